#include "train/schedule.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "nlohmann/json.hpp"

namespace rpsum::train {

using model::ClipDistanceFor;
using model::ModelConfig;

std::vector<std::vector<size_t>> LengthBatches(const std::vector<int64_t>& lengths,
                                               int64_t batch_tokens) {
  std::vector<size_t> by_len(lengths.size());
  std::iota(by_len.begin(), by_len.end(), 0);
  std::sort(by_len.begin(), by_len.end(),
            [&](size_t a, size_t b) { return lengths[a] < lengths[b]; });
  std::vector<std::vector<size_t>> batches;
  for (size_t i = 0; i < by_len.size();) {
    std::vector<size_t> b;
    int64_t longest = 0;
    while (i < by_len.size()) {
      const int64_t l = std::max(longest, lengths[by_len[i]]);
      if (!b.empty() && l * static_cast<int64_t>(b.size() + 1) > batch_tokens) break;
      b.push_back(by_len[i++]);
      longest = l;
    }
    batches.push_back(std::move(b));
  }
  return batches;
}

double LearningRate(int64_t step, int64_t warmup, int64_t total, double peak) {
  if (step < warmup) return peak * static_cast<double>(step + 1) / static_cast<double>(warmup);
  return peak * std::max(0.1, 1.0 - static_cast<double>(step - warmup) /
                                        static_cast<double>(std::max<int64_t>(1, total - warmup)));
}

std::vector<size_t> EpochOrder(size_t n, int64_t seed, int epoch) {
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed * 1000003 + epoch));
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  return order;
}

int64_t TrainingClipDistance(const ModelConfig& config, int64_t seed, int64_t step,
                             int64_t tokens) {
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed * 7919 + step));
  const auto& buckets = config.clip_policy.buckets;
  if (rng() % 2 == 0 || buckets.empty()) return ClipDistanceFor(config, tokens);
  return buckets[rng() % buckets.size()];
}

std::string Progress::ToJson() const {
  return nlohmann::json({{"step", step},
                         {"best", best},
                         {"best_epoch", best_epoch},
                         {"bad_epochs", bad_epochs},
                         {"trained_seconds", trained_seconds},
                         {"history", nlohmann::json::parse(history_json)}})
      .dump(2);
}

absl::StatusOr<Progress> Progress::FromJson(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    Progress p;
    p.step = j.at("step");
    p.best = j.at("best");
    p.best_epoch = j.at("best_epoch");
    p.bad_epochs = j.at("bad_epochs");
    p.trained_seconds = j.value("trained_seconds", 0.0);
    p.history_json = j.value("history", nlohmann::json::array()).dump();
    return p;
  } catch (const nlohmann::json::exception& e) {
    return absl::DataLossError(absl::StrCat("progress.json: ", e.what()));
  }
}

NextAction NextAfter(const Progress& p, int64_t steps_per_epoch, int64_t total_steps,
                     int patience) {
  const auto history = nlohmann::json::parse(p.history_json);
  const int64_t validated = history.empty() ? 0 : history.back().value("epoch", int64_t{0});
  if (validated > 0 && p.bad_epochs >= patience) return {NextAction::kDone, -1};
  // Epochs whose steps are all done (the last one may be cut short by the step budget).
  const int64_t finished = p.step >= total_steps
                               ? (total_steps + steps_per_epoch - 1) / steps_per_epoch
                               : p.step / steps_per_epoch;
  if (finished > validated) return {NextAction::kValidate, static_cast<int>(finished - 1)};
  if (p.step >= total_steps) return {NextAction::kDone, -1};
  return {NextAction::kTrain, static_cast<int>(p.step / steps_per_epoch)};
}

}  // namespace rpsum::train
