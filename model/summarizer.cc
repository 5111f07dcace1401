#include "model/summarizer.h"

#include <algorithm>
#include <bitset>
#include <string>
#include <utility>

namespace rpsum::model {

int64_t AttentionCost(const ModelConfig& config, int64_t tokens) {
  const int64_t window = config.attention.TokenWindow(tokens);
  const int64_t span = window > 0 ? std::min<int64_t>(tokens, 3 * window) : tokens;
  return tokens + tokens * span / 256;
}

namespace {

// Positions one pass holds: all `length`, or a stretch with the halo of `layers` windows each
// side when the layers are block-local (window > 0) and the sequence is longer than a stretch.
int64_t HeldPositions(int64_t length, int64_t stretch, int64_t window, int64_t layers) {
  if (window <= 0 || stretch <= 0 || length <= stretch) return length;
  return std::min(length, stretch + 2 * window * layers);
}

}  // namespace

int64_t ForwardBytes(const ModelConfig& config, int64_t tokens, int64_t units,
                     ForwardStretches stretches, bool with_states) {
  const Architecture& a = config.architecture;
  const int64_t per_position = 4 * (4 * a.hidden_size + 2 * a.ffn_size);
  const int64_t token_positions =
      HeldPositions(tokens, stretches.tokens, config.attention.TokenWindow(tokens), a.token_layers);
  const int64_t unit_window =
      IsLocalUnitAttention(config, units) ? config.attention.unit_local_window : 0;
  const int64_t unit_positions = HeldPositions(units, stretches.units, unit_window, a.unit_layers);
  const int64_t unit_row = 4 * a.hidden_size;
  return per_position * (token_positions + unit_positions) + unit_row * unit_positions +
         (with_states ? unit_row * units : 0) + 4 * units;
}

int64_t ClipDistanceFor(const ModelConfig& config, int64_t tokens, int64_t override_k) {
  const int64_t k = override_k > 0 ? override_k : config.clip_policy.Pick(tokens);
  return std::clamp<int64_t>(k, 1, config.architecture.max_clip_distance);
}

std::string WorkerDevice(const std::string& spec, int worker, int gpus) {
  if (spec == "cuda" || (spec == "auto" && gpus > 0)) {
    return gpus > 0 ? "cuda:" + std::to_string(worker % gpus) : "cuda";
  }
  return spec == "auto" ? "cpu" : spec;
}

absl::StatusOr<ModelInput> PrepareInput(const Summarizer& model, const DocumentInput& input,
                                        PrepareOptions limits, Preparation what,
                                        int64_t clip_override) {
  const ModelConfig& config = model.description().config;
  limits.max_tokens_per_unit = config.tokenizer.max_tokens_per_unit;
  limits.columns =
      what == Preparation::kForScoring ? FeatureColumnsRead(config) : std::bitset<kNumFeatures>();
  absl::StatusOr<PreparedDocument> doc = Prepare(input, model.tokenizer(), limits);
  if (!doc.ok()) return doc.status();
  ModelInput out;
  out.doc = *std::move(doc);
  out.k = ClipDistanceFor(config, out.doc.num_tokens(), clip_override);
  return out;
}

bool IsLocalUnitAttention(const ModelConfig& config, int64_t units) {
  return units > config.attention.unit_local_threshold;
}

}  // namespace rpsum::model
