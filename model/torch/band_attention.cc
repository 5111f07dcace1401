// BandRelativeAttend: the inference kernel of relative self-attention (see relative_attention.h
// for the math and the contract).
//
// Work is split into tiles of `block` queries of one head of one document. A tile's keys are
// the band's union, [i0 - window, i1 + window) clipped to the document, so nothing outside the
// document is computed and at most block - 1 keys per row are outside the row's own band (not
// the 2w of 3w-wide block windows). Per tile, on one thread:
//   S = Q K^T / sqrt(d)       sgemm, [m, nk]: q, k, v are read in place from the projection's
//   P = Q aK^T / sqrt(d)      sgemm, [m, 2kc+1]  output (row stride 3*H*d): no copies
//   one pass per row, while the tile is in L2: relative bias by segments (constant left edge,
//     contiguous band, constant right edge), key padding, softmax over the row's band,
//     zeros outside it, and the weights' relative bucket sums Bk [m, 2kc+1]
//   Z = A V + Bk aV           two sgemms written straight into z [N, L, H*d] (the layout the
//                             output projection reads), so no transpose copy either.
// The sgemms are single-threaded (OpenBLAS runs one thread inside an OpenMP region); the tiles
// are spread over ATen's intra-op threads.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <ATen/record_function.h>
#include <c10/util/Exception.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "model/torch/relative_attention.h"

namespace rpsum::net {
namespace {

// The Fortran BLAS's own name. NOLINTNEXTLINE(readability-identifier-naming)
extern "C" void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                       const int* k, const float* alpha, const float* a, const int* lda,
                       const float* b, const int* ldb, const float* beta, float* c, const int* ldc);

// Column-major C [m, n] = alpha op(A) op(B) + beta C through the Fortran BLAS (OpenBLAS: one
// thread when called inside an OpenMP parallel region).
void Gemm(bool trans_a, int64_t m, int64_t n, int64_t k, float alpha, const float* a, int64_t lda,
          const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  const char ta = trans_a ? 'T' : 'N', tb = 'N';
  const int mi = static_cast<int>(m), ni = static_cast<int>(n), ki = static_cast<int>(k);
  const int la = static_cast<int>(lda), lb = static_cast<int>(ldb), lc = static_cast<int>(ldc);
  sgemm_(&ta, &tb, &mi, &ni, &ki, &alpha, a, &la, b, &lb, &beta, c, &lc);
}

constexpr float kMask = -1e30f;  // the other kernels' additive key mask (see MaskValue)

struct TileRows {
  int64_t m, nk, nb;      // rows, keys, buckets (2kc + 1)
  int64_t i0, j0, j1;     // first query, key range [j0, j1) (absolute positions)
  int64_t window, kc;     // kc: the clip distance
  const float* key_bias;  // [L] 0 or kMask per key, or nullptr
};

// The row pass over one tile: s [m, nk] scores in, weights out; p [m, nb] q . aK per bucket;
// buckets [m, nb] out. Compiled for AVX-512, AVX2 and the baseline (SSE2); the loader picks by
// CPU features ("arch=" clones would test for one CPU model and miss newer ones).
__attribute__((target_clones("avx512f", "avx2", "default"))) void TileRowPass(float* s_tile,
                                                                              const float* p_tile,
                                                                              float* b_tile,
                                                                              const TileRows& t) {
  for (int64_t r = 0; r < t.m; ++r) {
    const int64_t i = t.i0 + r;
    float* s = s_tile + r * t.nk - t.j0;  // s[j], j absolute
    const float* p = p_tile + r * t.nb;
    float* b = b_tile + r * t.nb;
    const int64_t lo = std::max(t.j0, i - t.window);
    const int64_t hi = std::min(t.j1, i + t.window + 1);
    // Relative distance j - i: <= -kc (left edge), (-kc, kc) (band), >= kc (right edge).
    const int64_t left_end = std::clamp(i - t.kc + 1, lo, hi);
    const int64_t band_end = std::clamp(i + t.kc, left_end, hi);
    const float cl = p[0], cr = p[2 * t.kc];
    const float* band = p + t.kc - i;  // band[j] = P[kc + j - i]
    for (int64_t j = lo; j < left_end; ++j) s[j] += cl;
    for (int64_t j = left_end; j < band_end; ++j) s[j] += band[j];
    for (int64_t j = band_end; j < hi; ++j) s[j] += cr;
    if (t.key_bias != nullptr) {
      for (int64_t j = lo; j < hi; ++j) s[j] += t.key_bias[j];
    }
    float mx = -3.4e38f;
#pragma omp simd reduction(max : mx)
    for (int64_t j = lo; j < hi; ++j) mx = std::max(mx, s[j]);
    float sum = 0.f;
#pragma omp simd reduction(+ : sum)
    for (int64_t j = lo; j < hi; ++j) {
      // exp(x) for x <= 0: Cephes' expf polynomial on x - n ln2, times 2^n built from bits.
      // Relative error under 2e-7; branch-free and written out here (a helper function would
      // not be compiled for this clone's target, so not inlined), so the loop vectorizes.
      // Inputs below -87 give 2^-126 instead of underflowing to denormals.
      float x = s[j] - mx;
      x = x < -87.0f ? -87.0f : x;
      // n = round(x / ln2) by the 1.5 * 2^23 trick (no SSE4.1 round instruction needed).
      const float n = (x * 1.44269504088896341f + 12582912.0f) - 12582912.0f;
      const float r = x - n * 0.693359375f + n * 2.12194440e-4f;
      float e = 1.9875691500e-4f;
      e = e * r + 1.3981999507e-3f;
      e = e * r + 8.3334519073e-3f;
      e = e * r + 4.1665795894e-2f;
      e = e * r + 1.6666665459e-1f;
      e = e * r + 5.0000001201e-1f;
      e = e * r * r + r + 1.0f;
      const uint32_t bits = static_cast<uint32_t>(static_cast<int32_t>(n) + 127) << 23;
      float scale;
      std::memcpy(&scale, &bits, sizeof scale);
      e *= scale;
      s[j] = e;
      sum += e;
    }
    const float inv = 1.f / sum;
#pragma omp simd
    for (int64_t j = lo; j < hi; ++j) s[j] *= inv;
    for (int64_t j = t.j0; j < lo; ++j) s[j] = 0.f;
    for (int64_t j = hi; j < t.j1; ++j) s[j] = 0.f;
    // Bucket sums: the clipped edges as sums, the band one weight per bucket.
    std::fill(b, b + t.nb, 0.f);
    float left = 0.f, right = 0.f;
#pragma omp simd reduction(+ : left)
    for (int64_t j = lo; j < left_end; ++j) left += s[j];
#pragma omp simd reduction(+ : right)
    for (int64_t j = band_end; j < hi; ++j) right += s[j];
    b[0] += left;
    b[2 * t.kc] += right;
    float* bb = b + t.kc - i;
    for (int64_t j = left_end; j < band_end; ++j) bb[j] = s[j];
  }
}

}  // namespace

at::Tensor BandRelativeAttend(const at::Tensor& qkv, int64_t heads, const at::Tensor& rel_k,
                              const at::Tensor& rel_v, int64_t k_clip, const at::Tensor& key_valid,
                              int64_t window, int64_t block) {
  RECORD_FUNCTION("rpsum::band_attention", std::vector<c10::IValue>());
  TORCH_CHECK(qkv.dim() == 3 && qkv.device().is_cpu() && qkv.scalar_type() == at::kFloat,
              "qkv must be a CPU float32 [N, L, 3*H*d] tensor");
  TORCH_CHECK(heads >= 1 && qkv.size(2) % (3 * heads) == 0, "qkv's last dim ", qkv.size(2),
              " is not 3 * ", heads, " heads * d");
  TORCH_CHECK(window >= 1 && block >= 1, "window and block must be positive");
  const int64_t n = qkv.size(0), l = qkv.size(1), d = qkv.size(2) / (3 * heads);
  const int64_t big_k = CheckRelativeTables(rel_k, rel_v, d, k_clip);
  if (key_valid.defined()) {
    TORCH_CHECK(key_valid.dim() == 2 && key_valid.size(0) == n && key_valid.size(1) == l,
                "key_valid must be [N, L]");
  }
  const int64_t kc = k_clip, nb = 2 * kc + 1;
  const int64_t w = std::min(window, l);
  const int64_t bq = std::min(block, l);
  const int64_t blocks = (l + bq - 1) / bq;
  const int64_t max_keys = std::min(l, bq + 2 * w);

  const at::Tensor x = qkv.contiguous();
  const at::Tensor ak = rel_k.narrow(0, big_k - kc, nb).contiguous();
  const at::Tensor av = rel_v.narrow(0, big_k - kc, nb).contiguous();
  at::Tensor key_bias;
  if (key_valid.defined()) {
    key_bias = at::zeros({n, l}, x.options())
                   .masked_fill(key_valid.to(at::kBool).logical_not(), kMask)
                   .contiguous();
  }
  at::Tensor z = at::empty({n, l, heads * d}, x.options());

  const float* xd = x.data_ptr<float>();
  const float* akd = ak.data_ptr<float>();
  const float* avd = av.data_ptr<float>();
  const float* kbd = key_bias.defined() ? key_bias.data_ptr<float>() : nullptr;
  float* zd = z.data_ptr<float>();
  const int64_t ld_in = 3 * heads * d, ld_out = heads * d;
  const float scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(d)));
  at::parallel_for(0, n * heads * blocks, 1, [&](int64_t begin, int64_t end) {
    // One BLAS thread per tile: OpenBLAS (OpenMP build) reads this thread's OpenMP thread
    // count; left at the default it takes its threaded path, and two threads' calls then wait
    // for each other on its one parallel buffer (NUM_PARALLEL=1), which serializes the tiles.
    const int omp_threads = omp_get_max_threads();
    omp_set_num_threads(1);
    std::vector<float> buf(static_cast<size_t>(bq * (max_keys + 2 * nb)));
    float* s = buf.data();
    float* p = s + bq * max_keys;
    float* bk = p + bq * nb;
    for (int64_t task = begin; task < end; ++task) {
      const int64_t blk = task % blocks, h = (task / blocks) % heads, doc = task / (blocks * heads);
      TileRows t;
      t.i0 = blk * bq;
      t.m = std::min(l, t.i0 + bq) - t.i0;
      t.j0 = std::max<int64_t>(0, t.i0 - w);
      t.j1 = std::min(l, t.i0 + t.m + w);
      t.nk = t.j1 - t.j0;
      t.nb = nb;
      t.window = w;
      t.kc = kc;
      t.key_bias = kbd != nullptr ? kbd + doc * l : nullptr;
      const float* base = xd + doc * l * ld_in;
      const float* q = base + t.i0 * ld_in + h * d;
      const float* k = base + t.j0 * ld_in + (heads + h) * d;
      const float* v = base + t.j0 * ld_in + (2 * heads + h) * d;
      float* out = zd + (doc * l + t.i0) * ld_out + h * d;
      // Column-major BLAS on row-major data: S^T = K Q^T, P^T = aK Q^T, Z^T = V^T A^T + aV^T Bk^T.
      Gemm(true, t.nk, t.m, d, scale, k, ld_in, q, ld_in, 0.f, s, t.nk);
      Gemm(true, nb, t.m, d, scale, akd, d, q, ld_in, 0.f, p, nb);
      TileRowPass(s, p, bk, t);
      Gemm(false, d, t.m, t.nk, 1.f, v, ld_in, s, t.nk, 0.f, out, ld_out);
      Gemm(false, d, t.m, nb, 1.f, avd, d, bk, nb, 1.f, out, ld_out);
    }
    omp_set_num_threads(omp_threads);
  });
  return z;
}

}  // namespace rpsum::net
