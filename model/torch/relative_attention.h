// Self-attention with relative position representations (Shaw, Uszkoreit and Vaswani, 2018).
//
// Per head h with clip distance k_h <= K (the table's half-width) and head dim d:
//   r(i,j) = clip(j - i + offset, -k_h, k_h) + K
//   e_ij   = (q_i . k_j + q_i . aK[r(i,j)]) / sqrt(d)  + mask_ij
//   a_ij   = softmax_j(e_ij)                          (dropout on a before both sums)
//   z_i    = sum_j a_ij v_j + sum_j a_ij aV[r(i,j)]
// aK and aV are (2K+1) x d tables shared by the heads. Query i may attend key j only when
// |j - i + offset| <= window (full attention: offset 0, window unbounded), and only when the
// key is valid (key padding).
//
// Four implementations of the same function, three here and the inference kernel apart:
//  - kComposite: torch ops only (autograd, any device). The key term is q aK^T gathered by a
//    cached index table, the value term scatters the weights into 2k+1 buckets and multiplies
//    by aV. No [Lq, Lk, d] tensor.
//  - kFused (CPU, float32, no autograd): one pass adds the relative bias by row segments
//    (constant left edge, contiguous band, constant right edge: no index table is read), ATen
//    softmax in place, one pass sums the weights into buckets.
//  - kDense: the materialized [H, Lq, Lk, d] tables, for tests and benchmarks only.
//  - BandRelativeAttend (band_attention.cc, declared below): the server's CPU inference kernel,
//    tiles of queries over the band only, reading q, k and v in place from the projection.
#ifndef RPSUM_MODEL_TORCH_RELATIVE_ATTENTION_H_
#define RPSUM_MODEL_TORCH_RELATIVE_ATTENTION_H_

#include <ATen/ATen.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace rpsum::net {

enum class AttentionImpl { kAuto, kComposite, kFused, kDense };

// Which (query, key) pairs exist and what their relative distance is.
struct AttentionGeometry {
  // Added to j - i: the key block may start before the query block (block-local attention).
  int64_t offset = 0;
  // Pairs with |j - i + offset| > window are masked out.
  int64_t window = std::numeric_limits<int32_t>::max();
};

// The core: q [N, H, Lq, d], k and v [N, H, Lk, d]; rel_k and rel_v [2K+1, d] (the whole
// tables); k_clip: the clip distance, in [0, K] (0: no relative positions); key_valid: [N, Lk]
// bool, or undefined (all valid); every query must have at least one valid key in its window.
// Returns z [N, H, Lq, d]. kAuto picks kFused on CPU float32, else kComposite (any device). Dropout
// on the weights applies with `training`. Throws c10::Error on bad shapes (callers in model/ turn
// exceptions into statuses). Thread-safe.
at::Tensor RelativeAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                          const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t k_clip,
                          const at::Tensor& key_valid, const AttentionGeometry& geometry = {},
                          AttentionImpl impl = AttentionImpl::kAuto, double dropout = 0.0,
                          bool training = false);

// Plain scaled dot-product attention without relative terms, with the same masking. The
// baseline the benchmarks compare against. Thread-safe.
at::Tensor VanillaAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                         const at::Tensor& key_valid);

// Block-local attention: q, k, v [B, H, L, d]; each query attends to keys within `window`
// positions (either side) through blocks of `window` tokens, so time and memory grow linearly
// with L. Same result as RelativeAttend with geometry {0, window}. key_valid [B, L] or
// undefined. Thread-safe.
at::Tensor LocalRelativeAttend(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v,
                               const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t k_clip,
                               const at::Tensor& key_valid, int64_t window,
                               AttentionImpl impl = AttentionImpl::kAuto, double dropout = 0.0,
                               bool training = false);

// The inference kernel (no autograd, no dropout; CPU float32) of relative self-attention over
// the band |j - i| <= window (window >= L: full attention), read straight from the QKV
// projection's output: qkv [N, L, 3*H*d], where head h's q, k and v are columns h*d, (H+h)*d
// and (2H+h)*d. Tiles of `block` queries per document and head: one sgemm for the scores, one
// pass per row (relative bias, key mask, softmax, bucket sums) while the tile is in cache, two
// sgemms into z. Returns z [N, L, H*d] (heads side by side, the output projection's input).
// Same result as RelativeAttend / LocalRelativeAttend up to float rounding; a row without any
// valid key gets uniform weights over its band. Thread-safe.
at::Tensor BandRelativeAttend(const at::Tensor& qkv, int64_t heads, const at::Tensor& rel_k,
                              const at::Tensor& rel_v, int64_t k_clip, const at::Tensor& key_valid,
                              int64_t window, int64_t block = 64);

// Checks the relative tables rel_k and rel_v (both [2K+1, d]) and the clip distance (in
// [0, K]); throws c10::Error naming what is wrong. Returns K.
int64_t CheckRelativeTables(const at::Tensor& rel_k, const at::Tensor& rel_v, int64_t d,
                            int64_t k_clip);

// A dropout mask shaped like `like`: each element 0 with probability p, else 1 / (1 - p).
// Generated in parallel by a counter-based hash seeded from ATen's default generator (so
// at::manual_seed makes it reproducible); several times faster than at::bernoulli on CPU.
at::Tensor DropoutMask(const at::Tensor& like, double p);

// x * DropoutMask(x, p) when training and p > 0, else x. Differentiable.
at::Tensor FastDropout(const at::Tensor& x, double p, bool training);

// The relative index table clip(j - i + offset, -k_clip, k_clip) + k_clip, shape [Lq, Lk],
// int64, on `device`; cached by its arguments (a small LRU). Thread-safe.
at::Tensor RelativeIndex(int64_t lq, int64_t lk, int64_t k_clip, const AttentionGeometry& geometry,
                         const at::Device& device);

}  // namespace rpsum::net

#endif  // RPSUM_MODEL_TORCH_RELATIVE_ATTENTION_H_
