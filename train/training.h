// The training objective, shared by rpsum-train and its tests.
#ifndef RPSUM_TRAIN_TRAINING_H_
#define RPSUM_TRAIN_TRAINING_H_

#include <ATen/ATen.h>

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

}  // namespace rpsum::model

#endif  // RPSUM_TRAIN_TRAINING_H_
