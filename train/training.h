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

}  // namespace rpsum::model

#endif  // RPSUM_TRAIN_TRAINING_H_
