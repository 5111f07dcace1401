// From prepared documents to sentence scores: batch tensors, attention plans (clip distance k
// and full or block-local attention from the input length) and the forward pass.
#ifndef RPSUM_MODEL_INFERENCE_H_
#define RPSUM_MODEL_INFERENCE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "model/checkpoint.h"
#include "model/document.h"
#include "model/encoder.h"

namespace rpsum::model {

// The clip distance for a sequence of `tokens`: `override` when > 0 (already validated to be
// <= max_clip_distance), else the config's policy k(L).
int64_t PickClipDistance(const ModelConfig& config, int64_t tokens, int64_t override_k = 0);

// Whether a sequence of `tokens` uses block-local attention.
bool UsesLocalAttention(const ModelConfig& config, int64_t tokens);

// Plans for the token layers (k for every head, local past the threshold) and the sentence
// layers.
AttentionPlan TokenPlan(const ModelConfig& config, int64_t max_tokens, int64_t k);
AttentionPlan SentencePlan(const ModelConfig& config, int64_t max_units);

// Pads `docs` into one batch on `device`.
ModelBatch MakeBatch(const std::vector<const PreparedDocument*>& docs, int32_t pad_id,
                     const at::Device& device);

// Runs the model under inference mode and returns, per document, a probability per kept unit
// (sigmoid of the logit). All documents share clip distance `k`. Exceptions (out of memory,
// bad shapes) become Internal or ResourceExhausted statuses. Thread-compatible per scorer: call
// from one worker thread at a time per Checkpoint.
absl::StatusOr<std::vector<std::vector<float>>> ScoreDocuments(
    const Checkpoint& checkpoint, const std::vector<const PreparedDocument*>& docs, int64_t k,
    int32_t pad_id);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_INFERENCE_H_
