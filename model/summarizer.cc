#include "model/summarizer.h"

#include <algorithm>
#include <string>

namespace rpsum::model {

int64_t AttentionCost(const ModelConfig& config, int64_t tokens) {
  const int64_t window = config.attention.TokenWindow(tokens);
  const int64_t span = window > 0 ? std::min<int64_t>(tokens, 3 * window) : tokens;
  return tokens + tokens * span / 256;
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

bool IsLocalUnitAttention(const ModelConfig& config, int64_t units) {
  return units > config.attention.unit_local_threshold;
}

}  // namespace rpsum::model
