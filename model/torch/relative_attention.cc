#include "model/torch/relative_attention.h"

#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/util/Exception.h>
#include <torch/autograd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <list>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

namespace rpsum::net {
namespace {

// Masked scores are set to this value rather than -inf, so a query without any valid key
// (a padding query) gets a uniform, finite row instead of NaN (NaN would poison gradients).
double MaskValue(const at::Tensor& t) {
  return t.scalar_type() == at::kFloat || t.scalar_type() == at::kDouble ? -1e30 : -1e4;
}

struct IndexEntry {
  at::Tensor index;    // [Lq, Lk] int64: clip(j - i + offset, -k, k) + k
  at::Tensor allowed;  // [Lq, Lk] bool: |j - i + offset| <= window; undefined if all allowed
};

using IndexKey = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, std::string>;

class IndexCache {
 public:
  IndexEntry Get(int64_t lq, int64_t lk, int64_t k_clip, const AttentionGeometry& g,
                 const at::Device& device) {
    IndexKey key{lq, lk, k_clip, g.offset, g.window, device.str()};
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = entries_.find(key);
      if (it != entries_.end()) {
        order_.splice(order_.begin(), order_, it->second.second);
        return it->second.first;
      }
    }
    IndexEntry entry = Build(lq, lk, k_clip, g, device);
    std::lock_guard<std::mutex> lock(mu_);
    if (entries_.find(key) == entries_.end()) {
      order_.push_front(key);
      entries_.emplace(key, std::make_pair(entry, order_.begin()));
      if (entries_.size() > kCapacity) {
        entries_.erase(order_.back());
        order_.pop_back();
      }
    }
    return entry;
  }

 private:
  static constexpr size_t kCapacity = 64;

  static IndexEntry Build(int64_t lq, int64_t lk, int64_t k_clip, const AttentionGeometry& g,
                          const at::Device& device) {
    const auto opts = at::TensorOptions().dtype(at::kLong);
    const at::Tensor rel = at::arange(lk, opts).unsqueeze(0) - at::arange(lq, opts).unsqueeze(1) +
                           g.offset;  // [Lq, Lk]
    IndexEntry e;
    e.index = (rel.clamp(-k_clip, k_clip) + k_clip).to(device);
    const at::Tensor allowed = rel.abs() <= g.window;
    if (!allowed.all().item<bool>()) e.allowed = allowed.to(device);
    return e;
  }

  std::mutex mu_;
  std::map<IndexKey, std::pair<IndexEntry, std::list<IndexKey>::iterator>> entries_;
  std::list<IndexKey> order_;
};

IndexCache& Cache() {
  static IndexCache* cache = new IndexCache();
  return *cache;
}

struct Checked {
  int64_t n, h, lq, lk, d, big_k;
};

Checked CheckArgs(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                  const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t k_clip,
                  const at::Tensor& key_valid) {
  TORCH_CHECK(q.dim() == 4 && k.dim() == 4 && v.dim() == 4, "q, k, v must be [N, H, L, d]");
  Checked c{q.size(0), q.size(1), q.size(2), k.size(2), q.size(3), 0};
  TORCH_CHECK(k.size(0) == c.n && v.size(0) == c.n && k.size(1) == c.h && v.size(1) == c.h,
              "q, k, v disagree on N or H");
  TORCH_CHECK(v.size(2) == c.lk && k.size(3) == c.d && v.size(3) == c.d,
              "k and v must be [N, H, Lk, d] with q's d");
  c.big_k = CheckRelativeTables(rel_k, rel_v, c.d, k_clip);
  if (key_valid.defined()) {
    TORCH_CHECK(key_valid.dim() == 2 && key_valid.size(0) == c.n && key_valid.size(1) == c.lk,
                "key_valid must be [N, Lk]");
  }
  return c;
}

at::Tensor Composite(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                     const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t k_clip,
                     const at::Tensor& key_valid, const AttentionGeometry& g, double dropout,
                     bool training, const Checked& c, bool dense) {
  const at::Tensor ak = rel_k.narrow(0, c.big_k - k_clip, 2 * k_clip + 1);
  const at::Tensor av = rel_v.narrow(0, c.big_k - k_clip, 2 * k_clip + 1);
  const IndexEntry idx = Cache().Get(c.lq, c.lk, k_clip, g, q.device());
  const at::Tensor qs = q * (1.0 / std::sqrt(static_cast<double>(c.d)));
  at::Tensor scores = at::matmul(qs, k.transpose(-1, -2));  // [N, H, Lq, Lk]
  at::Tensor full_index;
  at::Tensor ak_dense, av_dense;
  if (dense) {  // the textbook reference: [Lq, Lk, d] tables shared by the heads
    ak_dense = ak.index({idx.index});
    av_dense = av.index({idx.index});
    scores = scores + at::einsum("nhid,ijd->nhij", {qs, ak_dense});
  } else {
    full_index = idx.index.view({1, 1, c.lq, c.lk}).expand({c.n, c.h, c.lq, c.lk});
    const at::Tensor p = at::matmul(qs, ak.t());  // [N, H, Lq, 2k+1]
    scores = scores + at::gather(p, -1, full_index);
  }
  at::Tensor allowed;
  if (idx.allowed.defined()) allowed = idx.allowed.view({1, 1, c.lq, c.lk});
  if (key_valid.defined()) {
    const at::Tensor kv = key_valid.to(at::kBool).view({c.n, 1, 1, c.lk});
    allowed = allowed.defined() ? at::logical_and(allowed, kv) : kv;
  }
  if (allowed.defined()) scores = scores.masked_fill(allowed.logical_not(), MaskValue(scores));
  at::Tensor a = at::softmax(scores, -1);
  if (training && dropout > 0) a = at::dropout(a, dropout, true);
  at::Tensor z = at::matmul(a, v);
  if (dense) return z + at::einsum("nhij,ijd->nhid", {a, av_dense});
  const at::Tensor buckets =
      at::zeros({c.n, c.h, c.lq, 2 * k_clip + 1}, a.options()).scatter_add(-1, full_index, a);
  return z + at::matmul(buckets, av);
}

inline float SumRange(const float* x, int64_t n) {
  float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    for (int u = 0; u < 8; ++u) acc[u] += x[j + u];
  }
  float s = 0;
  for (; j < n; ++j) s += x[j];
  for (int u = 0; u < 8; ++u) s += acc[u];
  return s;
}

// The allowed key range of one query row and its three relative segments.
struct RowSegments {
  int64_t lo, left_end, band_end, hi;  // [lo, left_end) left edge, band, [band_end, hi) right
  int64_t base;                        // rel = j + base
};

inline RowSegments Segments(int64_t i, int64_t lk, int64_t kc, const AttentionGeometry& g) {
  RowSegments s;
  s.base = g.offset - i;
  s.lo = std::clamp<int64_t>(-g.window - s.base, 0, lk);
  s.hi = std::clamp<int64_t>(g.window - s.base + 1, s.lo, lk);
  s.left_end = std::clamp<int64_t>(-kc - s.base + 1, s.lo, s.hi);
  s.band_end = std::clamp<int64_t>(kc - s.base, s.left_end, s.hi);
  return s;
}

// Pass over the rows of `scores` [rows, Lk] (rows = N*H*Lq): adds the relative key term by
// segments (constant left edge, contiguous band, constant right edge: no index table is read),
// adds `key_bias` [N, Lk] when given, and with `fill` sets pairs outside the window to the
// mask value. `p` [rows, 2kc+1] holds q . aK per bucket (kc: the clip distance).
void AddRelativeBias(at::Tensor& scores, const at::Tensor& p, const at::Tensor& key_bias,
                     int64_t kc, int64_t lq, const AttentionGeometry& g, bool fill) {
  RECORD_FUNCTION("rpsum::relative_bias", std::vector<c10::IValue>());
  const int64_t lk = scores.size(-1), nb = 2 * kc + 1, h_count = scores.size(1);
  const int64_t rows = scores.numel() / lk;
  float* s_data = scores.data_ptr<float>();
  const float* p_data = p.data_ptr<float>();
  const float* kb_data = key_bias.defined() ? key_bias.data_ptr<float>() : nullptr;
  const float mask = static_cast<float>(MaskValue(scores));
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, lk));
  at::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t i = row % lq;
      const int64_t n = row / (lq * h_count);
      float* s = s_data + row * lk;
      const float* pr = p_data + row * nb;
      const RowSegments seg = Segments(i, lk, kc, g);
      if (fill) {
        for (int64_t j = 0; j < seg.lo; ++j) s[j] = mask;
        for (int64_t j = seg.hi; j < lk; ++j) s[j] = mask;
      }
      const float cl = pr[0], cr = pr[2 * kc];
      for (int64_t j = seg.lo; j < seg.left_end; ++j) s[j] += cl;
      const float* band = pr + kc + seg.base;  // band[j] = P[kc + rel]
      for (int64_t j = seg.left_end; j < seg.band_end; ++j) s[j] += band[j];
      for (int64_t j = seg.band_end; j < seg.hi; ++j) s[j] += cr;
      if (kb_data != nullptr) {
        const float* kb = kb_data + n * lk;
        for (int64_t j = seg.lo; j < seg.hi; ++j) s[j] += kb[j];
      }
    }
  });
}

// The transpose of AddRelativeBias: sums each row of `a` [rows, Lk] into its 2kc+1 relative
// buckets (band entries one each, the clipped edges as sums). Returns [N, H, Lq, 2kc+1].
at::Tensor BucketSums(const at::Tensor& a, int64_t kc, int64_t lq, const AttentionGeometry& g) {
  RECORD_FUNCTION("rpsum::bucket_sums", std::vector<c10::IValue>());
  const int64_t lk = a.size(-1), nb = 2 * kc + 1;
  const int64_t rows = a.numel() / lk;
  at::Tensor buckets = at::zeros({a.size(0), a.size(1), a.size(2), nb}, a.options());
  const float* a_data = a.data_ptr<float>();
  float* b_data = buckets.data_ptr<float>();
  const int64_t grain = std::max<int64_t>(1, 32768 / std::max<int64_t>(1, lk));
  at::parallel_for(0, rows, grain, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const int64_t i = row % lq;
      const float* x = a_data + row * lk;
      float* b = b_data + row * nb;
      const RowSegments seg = Segments(i, lk, kc, g);
      b[0] += SumRange(x + seg.lo, seg.left_end - seg.lo);
      float* band = b + kc + seg.base;
      for (int64_t j = seg.left_end; j < seg.band_end; ++j) band[j] = x[j];
      b[2 * kc] += SumRange(x + seg.band_end, seg.hi - seg.band_end);
    }
  });
  return buckets;
}

// The fused CPU path as an autograd function: forward and backward both run the two row
// passes above instead of index gathers and scatters, so training costs about what inference
// does. Inputs: q, k, v [N, H, L, d]; ak, av [2k+1, d] (the tables' used rows).
class FusedRelativeAttention : public torch::autograd::Function<FusedRelativeAttention> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& q,
                            const at::Tensor& k, const at::Tensor& v, const at::Tensor& ak,
                            const at::Tensor& av, const at::Tensor& key_valid, int64_t offset,
                            int64_t window, double dropout) {
    const int64_t kc = (ak.size(0) - 1) / 2, lq = q.size(2);
    const AttentionGeometry g{offset, window};
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.size(3)));
    const at::Tensor qs = q * scale;
    at::Tensor a = at::matmul(qs, k.transpose(-1, -2)).contiguous();  // [N, H, Lq, Lk]
    const at::Tensor p = at::matmul(qs, ak.t()).contiguous();         // [N, H, Lq, 2kc+1]
    at::Tensor key_bias;
    if (key_valid.defined()) {
      key_bias = at::zeros({q.size(0), k.size(2)}, q.options())
                     .masked_fill(key_valid.to(at::kBool).logical_not(), MaskValue(q))
                     .contiguous();
    }
    AddRelativeBias(a, p, key_bias, kc, lq, g, /*fill=*/true);
    at::_softmax_out(a, a, -1, false);  // in place: no second [Lq, Lk] buffer
    at::Tensor keep;
    at::Tensor ad = a;
    if (dropout > 0) {
      keep = DropoutMask(a, dropout);
      ad = a * keep;
    }
    at::Tensor z = at::matmul(ad, v) + at::matmul(BucketSums(ad, kc, lq, g), av);
    if (ctx != nullptr) {
      ctx->save_for_backward({q, k, v, ak, av, a, keep});
      ctx->saved_data["offset"] = offset;
      ctx->saved_data["window"] = window;
    }
    return z;
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    const at::Tensor &q = saved[0], &k = saved[1], &v = saved[2], &ak = saved[3], &av = saved[4],
                     &a = saved[5], &keep = saved[6];
    const AttentionGeometry g{ctx->saved_data["offset"].toInt(), ctx->saved_data["window"].toInt()};
    const int64_t kc = (ak.size(0) - 1) / 2, lq = q.size(2), d = q.size(3);
    const double scale = 1.0 / std::sqrt(static_cast<double>(d));
    const at::Tensor dz = grads[0].contiguous();
    const at::Tensor ad = keep.defined() ? a * keep : a;
    const at::Tensor b = BucketSums(ad, kc, lq, g);
    const at::Tensor dv = at::matmul(ad.transpose(-1, -2), dz);
    const at::Tensor dav = b.reshape({-1, 2 * kc + 1}).t().mm(dz.reshape({-1, d}));
    // d(ad) = dz v^T + gather(dz aV^T) by the same relative segments as the forward bias.
    at::Tensor dad = at::matmul(dz, v.transpose(-1, -2)).contiguous();
    const at::Tensor gv = at::matmul(dz, av.t()).contiguous();
    AddRelativeBias(dad, gv, at::Tensor(), kc, lq, g, /*fill=*/false);
    if (keep.defined()) dad.mul_(keep);
    const at::Tensor ds = at::_softmax_backward_data(dad, a, -1, a.scalar_type()).contiguous();
    const at::Tensor dp = BucketSums(ds, kc, lq, g);
    const at::Tensor qs = q * scale;
    const at::Tensor dq = (at::matmul(ds, k) + at::matmul(dp, ak)) * scale;
    const at::Tensor dk = at::matmul(ds.transpose(-1, -2), qs);
    const at::Tensor dak = dp.reshape({-1, 2 * kc + 1}).t().mm(qs.reshape({-1, d}));
    return {dq, dk, dv, dak, dav, at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

at::Tensor Fused(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                 const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t k_clip,
                 const at::Tensor& key_valid, const AttentionGeometry& g, const Checked& c,
                 double dropout) {
  TORCH_CHECK(q.device().is_cpu() && q.scalar_type() == at::kFloat,
              "the fused relative attention runs on CPU float32 only");
  const at::Tensor ak = rel_k.narrow(0, c.big_k - k_clip, 2 * k_clip + 1);
  const at::Tensor av = rel_v.narrow(0, c.big_k - k_clip, 2 * k_clip + 1);
  const bool needs_grad =
      at::GradMode::is_enabled() && (q.requires_grad() || k.requires_grad() || v.requires_grad() ||
                                     ak.requires_grad() || av.requires_grad());
  if (!needs_grad) {  // inference: no autograd node, nothing saved
    return FusedRelativeAttention::forward(nullptr, q, k, v, ak, av, key_valid, g.offset, g.window,
                                           dropout);
  }
  return FusedRelativeAttention::apply(q, k, v, ak, av, key_valid, g.offset, g.window, dropout);
}

}  // namespace

at::Tensor DropoutMask(const at::Tensor& like, double p) {
  TORCH_CHECK(p >= 0 && p < 1, "dropout probability ", p, " outside [0, 1)");
  at::Tensor mask = at::empty(like.sizes(), like.options().dtype(at::kFloat).device(at::kCPU));
  const uint64_t seed =
      static_cast<uint64_t>(at::randint(INT64_MAX, {1}, at::kLong).item<int64_t>());
  const uint64_t threshold = static_cast<uint64_t>(p * 18446744073709551616.0);
  const float keep = static_cast<float>(1.0 / (1.0 - p));
  float* m = mask.data_ptr<float>();
  at::parallel_for(0, mask.numel(), 1 << 14, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      uint64_t z = seed + static_cast<uint64_t>(i) * 0x9E3779B97F4A7C15ull;  // splitmix64
      z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
      z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
      z ^= z >> 31;
      m[i] = z < threshold ? 0.f : keep;
    }
  });
  return like.device().is_cpu() && like.scalar_type() == at::kFloat ? mask
                                                                    : mask.to(like.options());
}

at::Tensor FastDropout(const at::Tensor& x, double p, bool training) {
  if (!training || p <= 0) return x;
  return x * DropoutMask(x, p);
}

int64_t CheckRelativeTables(const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t d,
                            int64_t k_clip) {
  TORCH_CHECK(rel_k.dim() == 2 && rel_k.sizes() == rel_v.sizes() && rel_k.size(1) == d &&
                  rel_k.size(0) % 2 == 1,
              "relative tables must both be [2K+1, d]");
  const int64_t big_k = (rel_k.size(0) - 1) / 2;
  TORCH_CHECK(k_clip >= 0 && k_clip <= big_k, "clip distance ", k_clip, " outside [0, ", big_k,
              "]");
  return big_k;
}

at::Tensor RelativeIndex(int64_t lq, int64_t lk, int64_t k_clip, const AttentionGeometry& geometry,
                         const at::Device& device) {
  return Cache().Get(lq, lk, k_clip, geometry, device).index;
}

at::Tensor RelativeAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t k_clip,
                          const at::Tensor& key_valid, const AttentionGeometry& geometry,
                          AttentionImpl impl, double dropout, bool training) {
  const Checked c = CheckArgs(q, k, v, rel_k, rel_v, k_clip, key_valid);
  if (impl == AttentionImpl::kAuto) {
    const bool fused_ok = q.device().is_cpu() && q.scalar_type() == at::kFloat;
    impl = fused_ok ? AttentionImpl::kFused : AttentionImpl::kComposite;
  }
  switch (impl) {
    case AttentionImpl::kFused:
      return Fused(q, k, v, rel_k, rel_v, k_clip, key_valid, geometry, c, training ? dropout : 0.0);
    case AttentionImpl::kDense:
      return Composite(q, k, v, rel_k, rel_v, k_clip, key_valid, geometry, dropout, training, c,
                       /*dense=*/true);
    default:
      return Composite(q, k, v, rel_k, rel_v, k_clip, key_valid, geometry, dropout, training, c,
                       /*dense=*/false);
  }
}

at::Tensor VanillaAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         const at::Tensor& key_valid) {
  at::Tensor scores =
      at::matmul(q * (1.0 / std::sqrt(static_cast<double>(q.size(-1)))), k.transpose(-1, -2));
  if (key_valid.defined()) {
    scores =
        scores.masked_fill(key_valid.to(at::kBool).logical_not().view({q.size(0), 1, 1, k.size(2)}),
                           MaskValue(scores));
  }
  return at::matmul(at::softmax(scores, -1), v);
}

at::Tensor LocalRelativeAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t k_clip,
                               const at::Tensor& key_valid, int64_t window, AttentionImpl impl,
                               double dropout, bool training) {
  TORCH_CHECK(q.dim() == 4, "q must be [B, H, L, d]");
  TORCH_CHECK(window >= 1, "window must be positive, got ", window);
  const int64_t b = q.size(0), h = q.size(1), l = q.size(2), d = q.size(3);
  const int64_t w = window;
  const int64_t blocks = (l + w - 1) / w;
  const int64_t lp = blocks * w;
  // Queries: [B, H, Lp, d] -> [B*blocks, H, w, d].
  const at::Tensor qb = at::constant_pad_nd(q, {0, 0, 0, lp - l})
                            .view({b, h, blocks, w, d})
                            .permute({0, 2, 1, 3, 4})
                            .reshape({b * blocks, h, w, d});
  // Keys and values: each block sees its own and both neighbours: [B*blocks, H, 3w, d].
  auto windows = [&](const at::Tensor& x) {
    return at::constant_pad_nd(x, {0, 0, w, lp - l + w})
        .unfold(2, 3 * w, w)  // [B, H, blocks, d, 3w]
        .permute({0, 2, 1, 4, 3})
        .reshape({b * blocks, h, 3 * w, d});
  };
  at::Tensor valid = key_valid.defined() ? key_valid.to(at::kBool)
                                         : at::ones({b, l}, q.options().dtype(at::kBool));
  valid = at::constant_pad_nd(valid, {w, lp - l + w}, 0)
              .unfold(1, 3 * w, w)
              .reshape({b * blocks, 3 * w});
  const at::Tensor z = RelativeAttend(qb, windows(k), windows(v), rel_k, rel_v, k_clip, valid,
                                      AttentionGeometry{-w, w}, impl, dropout, training);
  return z.view({b, blocks, h, w, d})
      .permute({0, 2, 1, 3, 4})
      .reshape({b, h, lp, d})
      .narrow(2, 0, l);
}

}  // namespace rpsum::net
