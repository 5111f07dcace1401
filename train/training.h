// The training objective, shared by rpsum-train and its tests.
#ifndef RPSUM_TRAIN_TRAINING_H_
#define RPSUM_TRAIN_TRAINING_H_

#include <ATen/ATen.h>
#include <ATen/core/grad_mode.h>

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

namespace rpsum::model {

// Binary cross-entropy of sentence logits [B, S] against oracle labels [B, S] (1 = in the
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

// Listwise cross-entropy (ListNet's top-one form): per document, the softmax of its valid
// units' logits against the labels normalised to a distribution over those units, so the
// model is trained to rank a document's units against each other, which is all the served
// selection reads. Documents whose labels are all zero add nothing; averaged over the rest.
inline at::Tensor ListwiseLoss(const at::Tensor& logits, const at::Tensor& labels,
                               const at::Tensor& valid) {
  const at::Tensor v = valid.to(at::kBool);
  const at::Tensor target = labels * v.to(at::kFloat);
  const at::Tensor mass = target.sum(1);
  const at::Tensor has = mass > 0;
  const at::Tensor p = target / mass.clamp_min(1e-12).unsqueeze(1);
  // A finite fill: -inf would make 0 * -inf = NaN in the product below.
  const at::Tensor logq = at::log_softmax(logits.masked_fill(~v, -1e9), 1).masked_fill(~v, 0);
  const at::Tensor per_doc = -(p * logq).sum(1);
  return (per_doc * has.to(at::kFloat)).sum() / has.sum().clamp_min(1);
}

// An exponential moving average of a model's parameters (Polyak averaging; `rpsum-train
// --ema_decay`): after each optimizer step, average = d * average + (1 - d) * weights, with
// d = min(decay, (1 + t) / (10 + t)) at the t-th update so the first updates are not tied to the
// random initial weights. Validation and the saved checkpoint read the average (Swap in, then
// Swap back); training goes on from the raw weights. `params` are the model's parameter tensors
// in a fixed order (module.parameters()), the same order on every call.
class WeightAverage {
 public:
  WeightAverage(const std::vector<at::Tensor>& params, double decay) : decay_(decay) {
    at::NoGradGuard no_grad;
    average_.reserve(params.size());
    for (const at::Tensor& p : params) average_.push_back(p.detach().clone());
  }

  // The decay of the update that follows `updates` earlier ones.
  static double DecayAt(double decay, int64_t updates) {
    return std::min(decay,
                    (1.0 + static_cast<double>(updates)) / (10.0 + static_cast<double>(updates)));
  }

  // Folds the current weights into the average; `updates` = how many updates came before (the
  // optimizer step, so a resumed run continues the same sequence).
  void Update(const std::vector<at::Tensor>& params, int64_t updates) {
    at::NoGradGuard no_grad;
    const double d = DecayAt(decay_, updates);
    for (size_t i = 0; i < params.size(); ++i) average_[i].mul_(d).add_(params[i].detach(), 1 - d);
  }

  // Exchanges the average with the weights in place (twice restores both).
  void Swap(const std::vector<at::Tensor>& params) {
    at::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      at::Tensor raw = params[i].detach().clone();
      params[i].detach().copy_(average_[i]);
      average_[i] = std::move(raw);
    }
  }

  std::vector<at::Tensor>& average() { return average_; }

 private:
  double decay_;
  std::vector<at::Tensor> average_;
};

}  // namespace rpsum::model

#endif  // RPSUM_TRAIN_TRAINING_H_
