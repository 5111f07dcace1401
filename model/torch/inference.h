// From prepared documents to unit scores: batch tensors, attention plans (clip distance k
// and full or block-local attention from the input length) and the forward pass.
#ifndef RPSUM_MODEL_TORCH_INFERENCE_H_
#define RPSUM_MODEL_TORCH_INFERENCE_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "model/document.h"
#include "model/summarizer.h"
#include "model/torch/checkpoint.h"
#include "model/torch/encoder.h"

namespace rpsum::net {

// Plans for the token layers (clip distance k; block-local with `window` tokens each side
// when it is above 0) and the unit layers. The mode comes from each document's own length
// (AttentionConfig::TokenWindow, IsLocalUnitAttention), never from a padded batch's.
AttentionPlan TokenPlan(int64_t window, int64_t k);
AttentionPlan UnitPlan(const model::ModelConfig& config, bool local);

// Pads `docs` into one batch on `device`.
ModelBatch MakeBatch(const std::vector<const model::PreparedDocument*>& docs, int32_t pad_id,
                     const at::Device& device);

// Runs the model under inference mode and returns, per document, a probability per kept unit
// (sigmoid of the logit) and the k and attention mode it ran with. All documents share clip
// distance `k`. Documents whose own lengths call for different attention modes run in separate
// forward passes, so a document's scores never depend on its batch partners. Exceptions (out
// of memory, bad shapes) become Internal or ResourceExhausted statuses. Thread-compatible per
// scorer: call from one worker thread at a time per Checkpoint. With `with_states`, each
// document's unit_states too. A document longer than `stretches` (in tokens, or in units
// where its unit layers attend block-locally) runs alone, in stretches
// (ExtractiveScorer::EncodeInStretches): its scores equal the whole forward's within float
// rounding, and its memory stops growing with its length. `stop` (may be empty) is asked before
// each stretch: true ends the call with DeadlineExceeded.
absl::StatusOr<std::vector<model::DocumentScores>> ScoreDocuments(
    const Checkpoint& checkpoint, const std::vector<const model::PreparedDocument*>& docs,
    int64_t k, int32_t pad_id, bool with_states = false,
    const Stretches& stretches = model::kServedStretches, const std::function<bool()>& stop = {});

}  // namespace rpsum::net

#endif  // RPSUM_MODEL_TORCH_INFERENCE_H_
