#include "model/torch/relative_attention.h"

#include <ATen/ATen.h>
#include <torch/autograd.h>

#include <algorithm>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace rpsum::net {
namespace {

struct Inputs {
  at::Tensor q, k, v, rel_k, rel_v, valid;
  int64_t k_clip = 0;
};

// B=2 documents, H=4 heads of d=8; the second document's last third of keys is padding.
Inputs Make(int64_t l, int64_t table_k, int64_t k_clip, bool grad = false,
            at::ScalarType dtype = at::kFloat) {
  Inputs in;
  const auto o = at::TensorOptions().dtype(dtype);
  in.q = at::randn({2, 4, l, 8}, o);
  in.k = at::randn({2, 4, l, 8}, o);
  in.v = at::randn({2, 4, l, 8}, o);
  in.rel_k = at::randn({2 * table_k + 1, 8}, o);
  in.rel_v = at::randn({2 * table_k + 1, 8}, o);
  in.valid = at::ones({2, l}, at::kBool);
  if (l > 2) in.valid[1].narrow(0, l - l / 3, l / 3).fill_(false);
  in.k_clip = k_clip;
  if (grad) {
    for (at::Tensor* t : {&in.q, &in.k, &in.v, &in.rel_k, &in.rel_v}) t->requires_grad_(true);
  }
  return in;
}

double MaxDiff(const at::Tensor& a, const at::Tensor& b) {
  return (a.to(at::kDouble) - b.to(at::kDouble)).abs().max().item<double>();
}

// Difference relative to the reference's largest magnitude (at least 1): gradients of the
// tables sum over L^2 terms, so their float32 rounding grows with their size.
double RelDiff(const at::Tensor& a, const at::Tensor& ref) {
  return MaxDiff(a, ref) / std::max(1.0, ref.abs().max().item<double>());
}

// Outputs of padding queries are not used; compare only rows of valid queries.
at::Tensor ValidRows(const at::Tensor& z, const at::Tensor& valid) {
  return z.transpose(1, 2).index({valid});  // [n_valid, H, d]
}

class ExactnessTest : public ::testing::TestWithParam<std::tuple<int64_t, int64_t>> {};

TEST_P(ExactnessTest, EfficientFusedAndDenseAgree) {
  const auto [l, k] = GetParam();
  at::manual_seed(l * 1000 + k);
  const int64_t table_k = std::max<int64_t>(k, 64);
  const Inputs in = Make(l, table_k, k);
  const at::Tensor dense = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip, in.valid,
                                          {}, AttentionImpl::kDense);
  const at::Tensor comp = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip, in.valid,
                                         {}, AttentionImpl::kComposite);
  const at::Tensor fused = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip, in.valid,
                                          {}, AttentionImpl::kFused);
  EXPECT_LT(MaxDiff(ValidRows(comp, in.valid), ValidRows(dense, in.valid)), 1e-5);
  EXPECT_LT(MaxDiff(ValidRows(fused, in.valid), ValidRows(dense, in.valid)), 1e-5);
  EXPECT_FALSE(fused.isnan().any().item<bool>());
}

// k in {0 (no positions), 1, 4, 64, k >= L} for L in {1, 2, 7, 64, 300}.
INSTANTIATE_TEST_SUITE_P(LengthsAndClips, ExactnessTest,
                         ::testing::Combine(::testing::Values(1, 2, 7, 64, 300),
                                            ::testing::Values(0, 1, 4, 64, 400)));

TEST(RelativeAttention, TheClipDistanceMatters) {
  at::manual_seed(7);
  const Inputs in = Make(70, 64, 1);
  for (AttentionImpl impl : {AttentionImpl::kDense, AttentionImpl::kFused}) {
    const at::Tensor near =
        RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, 1, in.valid, {}, impl);
    const at::Tensor far =
        RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, 64, in.valid, {}, impl);
    EXPECT_GT(MaxDiff(near, far), 1e-3);
  }
}

TEST(RelativeAttention, RelativeTermsCarryWeight) {
  at::manual_seed(8);
  Inputs in = Make(32, 8, 8);
  const at::Tensor with = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip, in.valid);
  const at::Tensor without = RelativeAttend(in.q, in.k, in.v, at::zeros_like(in.rel_k),
                                            at::zeros_like(in.rel_v), in.k_clip, in.valid);
  EXPECT_GT(MaxDiff(with, without), 1e-2);
  EXPECT_LT(MaxDiff(without, VanillaAttend(in.q, in.k, in.v, in.valid)), 1e-5);
}

TEST(RelativeAttention, GradientsOfEfficientPathMatchDense) {
  for (int64_t l : {7, 64}) {
    at::manual_seed(l);
    Inputs a = Make(l, 16, 4, /*grad=*/true);
    const at::Tensor w = at::randn({2, 4, l, 8});
    auto grads = [&](AttentionImpl impl) {
      for (at::Tensor* t : {&a.q, &a.k, &a.v, &a.rel_k, &a.rel_v}) {
        if (t->grad().defined()) t->mutable_grad().zero_();
      }
      const at::Tensor z =
          RelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid, {}, impl);
      (z * w).sum().backward();
      std::vector<at::Tensor> g;
      for (at::Tensor* t : {&a.q, &a.k, &a.v, &a.rel_k, &a.rel_v}) g.push_back(t->grad().clone());
      return g;
    };
    const auto dense = grads(AttentionImpl::kDense);
    const auto comp = grads(AttentionImpl::kComposite);
    const auto fused = grads(AttentionImpl::kFused);
    const char* names[] = {"q", "k", "v", "rel_k", "rel_v"};
    for (size_t i = 0; i < dense.size(); ++i) {
      EXPECT_LT(RelDiff(comp[i], dense[i]), 1e-5) << "composite d/d" << names[i] << " L=" << l;
      EXPECT_LT(RelDiff(fused[i], dense[i]), 1e-5) << "fused d/d" << names[i] << " L=" << l;
      EXPECT_GT(dense[i].abs().sum().item<double>(), 0) << names[i];
    }
  }
}

TEST(RelativeAttention, FusedAutogradWithDropout) {
  at::manual_seed(3);
  Inputs a = Make(16, 4, 4, /*grad=*/true);
  const at::Tensor z = RelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid, {},
                                      AttentionImpl::kAuto, 0.5, /*training=*/true);
  EXPECT_TRUE(z.requires_grad());
  z.sum().backward();
  EXPECT_TRUE(a.rel_v.grad().defined());
  EXPECT_TRUE(at::isfinite(a.q.grad()).all().item<bool>());
  // Dropout changes the output; without training it is off.
  const at::Tensor eval = RelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid, {},
                                         AttentionImpl::kAuto, 0.5, /*training=*/false);
  const at::Tensor dense =
      RelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid, {}, AttentionImpl::kDense);
  EXPECT_LT(MaxDiff(ValidRows(eval, a.valid), ValidRows(dense, a.valid)), 1e-5);
  EXPECT_GT(MaxDiff(z, eval), 1e-3);
}

// Gradient check by finite differences of the fused backward (float64 inputs are not
// supported by the fused kernel, so compare against the dense path's autograd instead at
// several clip settings and the window).
TEST(RelativeAttention, FusedLocalGradientsMatchDense) {
  at::manual_seed(12);
  Inputs a = Make(40, 8, 4, /*grad=*/true);
  const at::Tensor mask = a.valid.view({2, 1, 40, 1}).to(at::kFloat);
  const at::Tensor w = at::randn({2, 4, 40, 8});
  const at::Tensor dense = RelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid,
                                          AttentionGeometry{0, 6}, AttentionImpl::kDense);
  const at::Tensor local = LocalRelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid,
                                               6, AttentionImpl::kFused);
  const std::vector<at::Tensor> inputs = {a.q, a.k, a.v, a.rel_k, a.rel_v};
  const auto gd = torch::autograd::grad({(dense * mask * w).sum()}, inputs);
  const auto gl = torch::autograd::grad({(local * mask * w).sum()}, inputs);
  for (size_t i = 0; i < gd.size(); ++i) EXPECT_LT(RelDiff(gl[i], gd[i]), 1e-5) << i;
}

class LocalTest : public ::testing::TestWithParam<std::tuple<int64_t, int64_t>> {};

TEST_P(LocalTest, BlockLocalEqualsDenseRestrictedToTheWindow) {
  const auto [l, window] = GetParam();
  at::manual_seed(l + window);
  const Inputs in = Make(l, 16, 8);
  const at::Tensor dense = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip, in.valid,
                                          AttentionGeometry{0, window}, AttentionImpl::kDense);
  for (AttentionImpl impl : {AttentionImpl::kComposite, AttentionImpl::kFused}) {
    const at::Tensor local = LocalRelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip,
                                                 in.valid, window, impl);
    ASSERT_EQ(local.sizes(), dense.sizes());
    EXPECT_LT(MaxDiff(ValidRows(local, in.valid), ValidRows(dense, in.valid)), 1e-5)
        << "impl " << static_cast<int>(impl);
  }
  if (window < l - 1) {  // the window really restricts: full attention differs
    const at::Tensor full = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip,
                                           in.valid, {}, AttentionImpl::kDense);
    EXPECT_GT(MaxDiff(full, dense), 1e-4);
  }
}

INSTANTIATE_TEST_SUITE_P(LengthsAndWindows, LocalTest,
                         ::testing::Combine(::testing::Values(1, 7, 64, 300),
                                            ::testing::Values(1, 4, 16, 50)));

// The inference kernel reads q, k, v from one projection output and returns [N, L, H*d].
at::Tensor Band(const Inputs& in, int64_t window, int64_t block) {
  const int64_t n = in.q.size(0), h = in.q.size(1), l = in.q.size(2), d = in.q.size(3);
  const at::Tensor qkv =
      at::cat({in.q, in.k, in.v}, 1).permute({0, 2, 1, 3}).reshape({n, l, 3 * h * d});
  return BandRelativeAttend(qkv, h, in.rel_k, in.rel_v, in.k_clip, in.valid, window, block)
      .view({n, l, h, d})
      .transpose(1, 2);  // back to [N, H, L, d]
}

class BandTest : public ::testing::TestWithParam<std::tuple<int64_t, int64_t, int64_t>> {};

TEST_P(BandTest, EqualsDenseRestrictedToTheBand) {
  const auto [l, window, block] = GetParam();
  at::manual_seed(l * 31 + window * 7 + block);
  const Inputs in = Make(l, 16, 8);  // padded keys in document 2
  const AttentionGeometry g = window >= l ? AttentionGeometry{} : AttentionGeometry{0, window};
  const at::Tensor dense = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip, in.valid,
                                          g, AttentionImpl::kDense);
  const at::Tensor band = Band(in, window, block);
  ASSERT_EQ(band.sizes(), dense.sizes());
  EXPECT_LT(MaxDiff(ValidRows(band, in.valid), ValidRows(dense, in.valid)), 1e-5);
  EXPECT_FALSE(band.isnan().any().item<bool>());
}

INSTANTIATE_TEST_SUITE_P(LengthsWindowsBlocks, BandTest,
                         ::testing::Combine(::testing::Values(1, 7, 64, 300),
                                            ::testing::Values(1, 16, 50, 100000),
                                            ::testing::Values(1, 5, 64)));

// k = 0 is the ablation "no relative positions": every distance reads the table's centre row,
// so the other rows change nothing, in every kernel (the inference band kernel included).
TEST(RelativeAttention, ZeroClipReadsOnlyTheCentreRow) {
  at::manual_seed(11);
  for (const int64_t k : {0, 1}) {
    const Inputs in = Make(300, 16, k);
    Inputs redrawn = in;  // every row of both tables but the centre (16) drawn again
    redrawn.rel_k = in.rel_k.clone();
    redrawn.rel_v = in.rel_v.clone();
    redrawn.rel_k.narrow(0, 0, 16).normal_();
    redrawn.rel_v.narrow(0, 17, 16).normal_();
    const at::Tensor dense = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip,
                                            in.valid, {}, AttentionImpl::kDense);
    const AttentionGeometry g{0, 50};
    const at::Tensor local = RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip,
                                            in.valid, g, AttentionImpl::kDense);
    const at::Tensor band = Band(redrawn, 50, 64);
    for (AttentionImpl impl :
         {AttentionImpl::kDense, AttentionImpl::kComposite, AttentionImpl::kFused}) {
      const at::Tensor z = RelativeAttend(in.q, in.k, in.v, redrawn.rel_k, redrawn.rel_v, in.k_clip,
                                          in.valid, {}, impl);
      const double diff = MaxDiff(ValidRows(z, in.valid), ValidRows(dense, in.valid));
      if (k == 0) {
        EXPECT_LT(diff, 1e-5);
      } else {
        EXPECT_GT(diff, 1e-3);  // at k = 1 the neighbours' rows matter: the check can fail
      }
    }
    const double band_diff = MaxDiff(ValidRows(band, in.valid), ValidRows(local, in.valid));
    if (k == 0) {
      EXPECT_LT(band_diff, 1e-5);
    } else {
      EXPECT_GT(band_diff, 1e-3);
    }
  }
}

TEST(RelativeAttention, BandMatchesTheFusedTrainingKernelAtModelShape) {
  // The shipped shape at a length past the local threshold: 4 heads of 48, k=16, window 256.
  at::manual_seed(5);
  Inputs in;
  in.q = at::randn({1, 4, 1500, 48});
  in.k = at::randn({1, 4, 1500, 48});
  in.v = at::randn({1, 4, 1500, 48});
  in.rel_k = at::randn({513, 48});
  in.rel_v = at::randn({513, 48});
  in.k_clip = 16;
  const at::Tensor fused = LocalRelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, in.k_clip,
                                               at::Tensor(), 256, AttentionImpl::kFused);
  EXPECT_LT(MaxDiff(Band(in, 256, 64), fused), 1e-5);
}

TEST(RelativeAttention, BandRowWithoutValidKeysIsFinite) {
  Inputs in = Make(20, 4, 4);
  in.valid[1].fill_(false);  // document 2 is all padding
  const at::Tensor band = Band(in, 3, 8);
  EXPECT_FALSE(band.isnan().any().item<bool>());
  EXPECT_TRUE(band.isfinite().all().item<bool>());
}

TEST(RelativeAttention, BandRejectsBadArguments) {
  const Inputs in = Make(8, 4, 4);
  const at::Tensor qkv = at::randn({2, 8, 96});
  EXPECT_THROW(BandRelativeAttend(qkv, 4, in.rel_k, in.rel_v, 5, in.valid, 4),
               c10::Error);  // k above the table
  EXPECT_THROW(BandRelativeAttend(qkv, 5, in.rel_k, in.rel_v, in.k_clip, in.valid, 4),
               c10::Error);  // 96 is not 3 * 5 heads * d
  EXPECT_THROW(BandRelativeAttend(qkv, 4, in.rel_k, in.rel_v, in.k_clip, in.valid, 0),
               c10::Error);  // window
  EXPECT_THROW(
      BandRelativeAttend(qkv.to(at::kDouble), 4, in.rel_k, in.rel_v, in.k_clip, in.valid, 4),
      c10::Error);  // float32 only
  EXPECT_THROW(
      BandRelativeAttend(qkv, 4, in.rel_k, in.rel_v, in.k_clip, in.valid.narrow(1, 0, 4), 4),
      c10::Error);  // key_valid shape
}

TEST(RelativeAttention, LocalGradientsMatchDenseWindowed) {
  at::manual_seed(11);
  Inputs a = Make(40, 8, 4, /*grad=*/true);
  const at::Tensor dense = RelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid,
                                          AttentionGeometry{0, 6}, AttentionImpl::kDense);
  const at::Tensor local = LocalRelativeAttend(a.q, a.k, a.v, a.rel_k, a.rel_v, a.k_clip, a.valid,
                                               6, AttentionImpl::kComposite);
  const at::Tensor mask = a.valid.view({2, 1, 40, 1}).to(at::kFloat);
  const auto gd = torch::autograd::grad({(dense * mask).sum()}, {a.q, a.rel_k, a.rel_v});
  const auto gl = torch::autograd::grad({(local * mask).sum()}, {a.q, a.rel_k, a.rel_v});
  for (size_t i = 0; i < gd.size(); ++i) EXPECT_LT(RelDiff(gl[i], gd[i]), 1e-5) << i;
}

TEST(RelativeAttention, RejectsBadArguments) {
  const Inputs in = Make(8, 4, 4);
  EXPECT_THROW(RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, 5, in.valid),
               c10::Error);  // k above the table
  EXPECT_THROW(RelativeAttend(in.q, in.k, in.v, in.rel_k, in.rel_v, -1, in.valid),
               c10::Error);  // a negative k
  EXPECT_THROW(
      RelativeAttend(in.q, in.k.narrow(3, 0, 4), in.v, in.rel_k, in.rel_v, in.k_clip, in.valid),
      c10::Error);
}

TEST(RelativeAttention, IndexTableIsCachedAndCorrect) {
  const at::Tensor a = RelativeIndex(5, 5, 2, {}, at::kCPU);
  const at::Tensor b = RelativeIndex(5, 5, 2, {}, at::kCPU);
  EXPECT_TRUE(a.is_same(b));
  // r(i,j) = clip(j - i, -2, 2) + 2
  EXPECT_EQ(a[0][0].item<int64_t>(), 2);
  EXPECT_EQ(a[0][4].item<int64_t>(), 4);
  EXPECT_EQ(a[4][0].item<int64_t>(), 0);
  EXPECT_EQ(a[2][3].item<int64_t>(), 3);
}

}  // namespace
}  // namespace rpsum::net
