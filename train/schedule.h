// The trainer's bookkeeping, torch-free so it is tested on its own (schedule_test.cc): batches
// of similar length under a token budget, the learning-rate schedule, the per-epoch order, the
// clip distance a step trains with, and the resumable progress record (docs/design.md,
// section 3).
#ifndef RPSUM_TRAIN_SCHEDULE_H_
#define RPSUM_TRAIN_SCHEDULE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/model_config.h"
#include "model/summarizer.h"

namespace rpsum::train {

// Groups documents (by index) of similar length: sorted by length, each batch grows while
// (its longest document) x (its size) stays within `batch_tokens`; a document longer than the
// budget is a batch of its own. Every index appears exactly once.
std::vector<std::vector<size_t>> LengthBatches(const std::vector<int64_t>& lengths,
                                               int64_t batch_tokens);

// Linear warmup to `peak` over `warmup` steps, then linear decay to 10% of it at `total`.
double LearningRate(int64_t step, int64_t warmup, int64_t total, double peak);

// The batch order of an epoch: a permutation of [0, n) that depends only on (seed, epoch), so
// a resumed run sees the same sequence.
std::vector<size_t> EpochOrder(size_t n, int64_t seed, int epoch);

// The clip distance of a training step: half the steps the policy's k for `tokens`, the other
// half a random bucket of the policy (so a k a request overrides stays in distribution).
// Depends only on (seed, step).
int64_t TrainingClipDistance(const model::ModelConfig& config, int64_t seed, int64_t step,
                             int64_t tokens);

// What a resumed run needs besides the weights and the optimizer.
struct Progress {
  int64_t step = 0;
  double best = -1;  // best validation R1 + R2 + RLsum
  int best_epoch = -1;
  int bad_epochs = 0;
  double trained_seconds = 0;
  std::string history_json = "[]";  // per-epoch validation rows, a JSON array

  std::string ToJson() const;
  static absl::StatusOr<Progress> FromJson(const std::string& text);
};

// What a run does next from `p`, so an interrupted run resumes where it stopped: validate an
// epoch whose steps are all done but whose validation is not (the run stopped between the
// two), train the epoch `p.step` is in, or stop (every step done and validated, or `patience`
// epochs in a row without a gain). `epoch` is 0-based.
struct NextAction {
  enum Kind { kTrain, kValidate, kDone };
  Kind kind = kDone;
  int epoch = -1;
};
NextAction NextAfter(const Progress& p, int64_t steps_per_epoch, int64_t total_steps, int patience);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_SCHEDULE_H_
