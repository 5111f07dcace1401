// The training objective, shared by rpsum-train and its tests.
#ifndef RPSUM_TRAIN_TRAINING_H_
#define RPSUM_TRAIN_TRAINING_H_

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>
#include <torch/nn/module.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>
#include <torch/nn/pimpl.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "model/model_config.h"

namespace rpsum::train {

// Binary cross-entropy of unit logits [B, S] against oracle labels [B, S] (1 = in the
// oracle summary), over valid units only, with oracle units weighted `pos_weight`; averaged
// over the valid units of the batch.
inline at::Tensor ExtractiveLoss(const at::Tensor& logits, const at::Tensor& labels,
                                 const at::Tensor& valid, double pos_weight) {
  const at::Tensor weight = valid.to(at::kFloat) * (1.0 + (pos_weight - 1.0) * labels);
  return (at::binary_cross_entropy_with_logits(logits, labels, {}, {}, at::Reduction::None) *
          weight)
             .sum() /
         valid.sum().clamp_min(1);
}

// Masked-token pre-training (BERT's recipe; rpsum-train --mlm_weight). The mask is the eos id
// of the tokenizers TrainTokenizer makes (model/tokenizer.h): Prepare never emits it, so it
// stands for nothing else. Random replacements are drawn from the ordinary pieces (ids from 4,
// after unk, the marker, eos and pad).
inline constexpr int64_t kMaskId = 2;
inline constexpr int64_t kFirstPieceId = 4;

struct MaskedTokens {
  at::Tensor input;   // [B, L] the tokens with the chosen ones replaced
  at::Tensor target;  // [B, L] the original id where chosen, -1 elsewhere
};

// Chooses each valid token that is not a unit marker with probability `ratio`; a chosen token
// becomes kMaskId 80% of the time, a random ordinary piece 10%, and stays itself 10%.
// `tokens` [B, L] int64 and `valid` [B, L] bool, on the CPU. Deterministic in `seed`: the
// trainer derives it from the run's seed and the step, so a resumed run masks exactly as the
// uninterrupted one.
inline MaskedTokens MaskTokens(const at::Tensor& tokens, const at::Tensor& valid, int64_t marker_id,
                               int64_t vocab_size, double ratio, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::uniform_int_distribution<int64_t> piece(kFirstPieceId, vocab_size - 1);
  MaskedTokens m{tokens.contiguous().clone(), at::full_like(tokens, -1)};
  const at::Tensor v = valid.contiguous();
  auto in = m.input.accessor<int64_t, 2>();
  auto target = m.target.accessor<int64_t, 2>();
  auto ok = v.accessor<bool, 2>();
  for (int64_t i = 0; i < in.size(0); ++i) {
    for (int64_t j = 0; j < in.size(1); ++j) {
      if (!ok[i][j] || in[i][j] == marker_id || uniform(rng) >= ratio) continue;
      target[i][j] = in[i][j];
      const double r = uniform(rng);
      if (r < 0.8) {
        in[i][j] = kMaskId;
      } else if (r < 0.9) {
        in[i][j] = piece(rng);
      }
    }
  }
  return m;
}

// The prediction head of the masked tokens: a dense layer, GELU and a norm, then scores over the
// vocabulary from the input embedding (tied weights) plus a bias. Training only: fine-tuning
// and the served checkpoint keep the encoder and drop the head.
class MaskedTokenHeadImpl : public torch::nn::Module {
 public:
  MaskedTokenHeadImpl(int64_t hidden, int64_t vocab_size)
      : dense(register_module("dense", torch::nn::Linear(hidden, hidden))),
        norm(register_module("norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})))),
        bias(register_parameter("bias", at::zeros({vocab_size}))) {}

  // Mean cross-entropy over the chosen positions (target >= 0) of `states` [B, L, D], the token
  // layers' output; `embedding` [V, D] is the input embedding. 0 when none was chosen.
  at::Tensor Loss(const at::Tensor& states, const at::Tensor& target, const at::Tensor& embedding) {
    const at::Tensor idx = (target.reshape({-1}) >= 0).nonzero().squeeze(1);
    if (idx.numel() == 0) return states.sum() * 0;
    const at::Tensor h = states.reshape({-1, states.size(-1)}).index_select(0, idx);
    const at::Tensor logits = at::linear(norm(at::gelu(dense(h))), embedding, bias);
    return at::nll_loss(at::log_softmax(logits, 1), target.reshape({-1}).index_select(0, idx));
  }

  torch::nn::Linear dense{nullptr};
  torch::nn::LayerNorm norm{nullptr};
  at::Tensor bias;
};
TORCH_MODULE(MaskedTokenHead);

// The feature columns a network of this architecture reads, in order (model/model_config.h).
inline std::vector<int64_t> FeatureColumns(const model::Architecture& a) {
  if (!a.feature_columns.empty()) return a.feature_columns;
  std::vector<int64_t> out(a.num_features);
  std::iota(out.begin(), out.end(), 0);
  return out;
}

// Fine-tuning (--init_from) a network that reads more feature columns than the one it starts
// from: when `from`'s columns are the first of `to`'s, the feature projection in `weights`
// becomes `to`'s width with zero weights for the new columns, so the fine-tuning starts from
// exactly the given network and learns the new features' weights. Leaves `weights` alone when
// `to` reads no more columns than `from`; InvalidArgument when `from`'s columns are not a prefix.
inline absl::Status WidenFeatureProjection(const model::Architecture& from,
                                           const model::Architecture& to,
                                           std::map<std::string, at::Tensor>* weights) {
  const std::vector<int64_t> old_cols = FeatureColumns(from);
  const std::vector<int64_t> new_cols = FeatureColumns(to);
  if (old_cols.empty() || old_cols.size() >= new_cols.size()) return absl::OkStatus();
  if (!std::equal(old_cols.begin(), old_cols.end(), new_cols.begin())) {
    return absl::InvalidArgumentError(
        absl::StrCat("the checkpoint reads feature columns ", absl::StrJoin(old_cols, ","),
                     ", which are not the first of this model's ", absl::StrJoin(new_cols, ",")));
  }
  auto it = weights->find("feature_proj.weight");
  if (it == weights->end()) return absl::OkStatus();  // AssignWeights names what is missing
  const at::Tensor& w = it->second;
  at::Tensor wide = at::zeros({w.size(0), static_cast<int64_t>(new_cols.size())}, w.options());
  wide.narrow(1, 0, w.size(1)).copy_(w);
  it->second = wide;
  return absl::OkStatus();
}

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_TRAINING_H_
