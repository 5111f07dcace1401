#include "model/model_config.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"

namespace rpsum::model {
namespace {

using nlohmann::json;

absl::Status CheckKeys(const json& obj, absl::string_view where,
                       const std::set<std::string>& known) {
  if (!obj.is_object()) {
    return absl::InvalidArgumentError(absl::StrCat(where, " must be an object"));
  }
  for (const auto& [key, value] : obj.items()) {
    if (known.count(key) == 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("config.json: unknown key '", where, ".", key,
                       "' (written by a newer rpsum? this one understands format_version ",
                       ModelConfig::kFormatVersion, ")"));
    }
  }
  return absl::OkStatus();
}

template <typename T>
void Read(const json& obj, const char* key, T* out) {
  if (obj.contains(key)) *out = obj.at(key).get<T>();
}

absl::Status Range(absl::string_view key, int64_t v, int64_t lo, int64_t hi) {
  if (v < lo || v > hi) {
    return absl::InvalidArgumentError(
        absl::StrCat("config.json: ", key, " = ", v, " outside [", lo, ", ", hi, "]"));
  }
  return absl::OkStatus();
}

}  // namespace

int64_t ClipPolicy::Pick(int64_t length) const {
  const int64_t target = std::clamp<int64_t>(length / std::max<int64_t>(ratio, 1), min, max);
  int64_t k = buckets.empty() ? target : buckets.front();
  for (int64_t b : buckets) {
    if (b <= target) k = std::max(k, b);
  }
  return k;
}

std::string ClipPolicy::Describe() const {
  return absl::StrCat("k = largest of {", absl::StrJoin(buckets, ","), "} <= clamp(L/", ratio, ", ",
                      min, ", ", max, ")");
}

int64_t AttentionConfig::TokenWindow(int64_t tokens) const {
  if (tokens <= local_threshold) return 0;
  int64_t window = local_window;
  for (const LocalWindowBand& b : local_windows) {
    if (tokens >= b.from_tokens) window = b.window;
  }
  return window;
}

std::string AttentionConfig::DescribeWindows() const {
  std::string out =
      absl::StrCat(local_window, " tokens each side past ", local_threshold, " tokens");
  for (const LocalWindowBand& b : local_windows) {
    absl::StrAppend(&out, "; ", b.window, " from ", b.from_tokens);
  }
  return out;
}

std::bitset<kNumRerankFeatures> RerankFeaturesRead(const RerankConfig& rerank) {
  std::bitset<kNumRerankFeatures> read;
  for (int f = 0; f < kNumRerankFeatures; ++f) {
    read[f] = rerank.weights.size() <= static_cast<size_t>(f) ? rerank.weights.empty()
                                                              : rerank.weights[f] != 0;
  }
  return read;
}

std::bitset<kNumFeatures> FeatureColumnsRead(const ModelConfig& config) {
  std::bitset<kNumFeatures> read;
  const Architecture& a = config.architecture;
  if (a.feature_columns.empty()) {
    for (int64_t c = 0; c < a.num_features && c < kNumFeatures; ++c) read[c] = true;
  }
  for (int64_t c : a.feature_columns) read[c] = true;
  if (config.scoring.centrality_weight != 0) read[kFeatureContentCentrality] = true;
  const RerankConfig& r = config.scoring.rerank;
  if (r.top_k > 0 && RerankFeaturesRead(r)[kRerankTitleShare]) read[kFeatureTitleOverlap] = true;
  return read;
}

bool NeedsUnitStates(const RerankConfig& rerank) {
  if (rerank.top_k <= 0) return false;
  for (size_t f = kFirstNetRerankFeature; f < rerank.weights.size(); ++f) {
    if (rerank.weights[f] != 0) return true;
  }
  return false;
}

namespace {

absl::Status ValidateArchitecture(const Architecture& a) {
  RPSUM_RETURN_IF_ERROR(Range("architecture.vocab_size", a.vocab_size, 16, 1 << 20));
  RPSUM_RETURN_IF_ERROR(Range("architecture.heads", a.heads, 1, 64));
  RPSUM_RETURN_IF_ERROR(Range("architecture.hidden_size", a.hidden_size, a.heads, 1 << 14));
  if (a.hidden_size % a.heads != 0) {
    return absl::InvalidArgumentError("config.json: hidden_size must be a multiple of heads");
  }
  RPSUM_RETURN_IF_ERROR(Range("architecture.ffn_size", a.ffn_size, 1, 1 << 16));
  RPSUM_RETURN_IF_ERROR(Range("architecture.token_layers", a.token_layers, 0, 64));
  RPSUM_RETURN_IF_ERROR(Range("architecture.unit_layers", a.unit_layers, 0, 64));
  RPSUM_RETURN_IF_ERROR(Range("architecture.max_clip_distance", a.max_clip_distance, 1, 4096));
  RPSUM_RETURN_IF_ERROR(Range("architecture.unit_clip_distance", a.unit_clip_distance, 1, 4096));
  const bool reads_budget =
      a.feature_columns.empty()
          ? a.num_features == kNumFeatures + 1 || a.num_features == kNumFeatures + 2
          : std::any_of(a.feature_columns.begin(), a.feature_columns.end(),
                        [](int64_t c) { return c == kNumFeatures || c == kNumFeatures + 1; });
  if (reads_budget) {
    return absl::InvalidArgumentError(absl::StrCat(
        "config.json: the network reads the summary's budget (feature columns 10 and 11), a "
        "study that rpsum no longer serves (removed after commit ",
        kBudgetColumnsRemovedAfter, "); serve this checkpoint with rpsum at that commit"));
  }
  RPSUM_RETURN_IF_ERROR(Range("architecture.num_features", a.num_features, 0, kNumFeatures));
  if (!a.feature_columns.empty()) {
    if (static_cast<int64_t>(a.feature_columns.size()) != a.num_features) {
      return absl::InvalidArgumentError(
          absl::StrCat("config.json: architecture.feature_columns lists ", a.feature_columns.size(),
                       " columns; num_features is ", a.num_features));
    }
    std::set<int64_t> seen;
    for (int64_t col : a.feature_columns) {
      RPSUM_RETURN_IF_ERROR(Range("architecture.feature_columns[]", col, 0, kNumFeatures - 1));
      if (!seen.insert(col).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("config.json: architecture.feature_columns lists column ", col, " twice"));
      }
    }
  }
  if (!(a.dropout >= 0 && a.dropout < 1)) {
    return absl::InvalidArgumentError("config.json: architecture.dropout outside [0, 1)");
  }
  return absl::OkStatus();
}

// The clip policy, attention and tokenizer settings, which the architecture bounds.
absl::Status ValidateServing(const ModelConfig& config) {
  const Architecture& a = config.architecture;
  const ClipPolicy& c = config.clip_policy;
  RPSUM_RETURN_IF_ERROR(Range("clip_policy.ratio", c.ratio, 1, 1 << 20));
  RPSUM_RETURN_IF_ERROR(Range("clip_policy.min", c.min, 1, a.max_clip_distance));
  RPSUM_RETURN_IF_ERROR(Range("clip_policy.max", c.max, c.min, a.max_clip_distance));
  for (int64_t b : c.buckets) {
    RPSUM_RETURN_IF_ERROR(Range("clip_policy.buckets[]", b, 1, a.max_clip_distance));
  }
  const AttentionConfig& t = config.attention;
  RPSUM_RETURN_IF_ERROR(Range("attention.local_threshold", t.local_threshold, 1, 1 << 24));
  RPSUM_RETURN_IF_ERROR(Range("attention.local_window", t.local_window, 1, 1 << 16));
  int64_t from = t.local_threshold;
  for (const LocalWindowBand& b : t.local_windows) {
    // Ascending, and each past the threshold and the band before it.
    RPSUM_RETURN_IF_ERROR(
        Range("attention.local_windows[].from_tokens", b.from_tokens, from + 1, 1 << 24));
    RPSUM_RETURN_IF_ERROR(Range("attention.local_windows[].window", b.window, 1, 1 << 16));
    from = b.from_tokens;
  }
  RPSUM_RETURN_IF_ERROR(
      Range("attention.unit_local_threshold", t.unit_local_threshold, 1, 1 << 24));
  RPSUM_RETURN_IF_ERROR(Range("attention.unit_local_window", t.unit_local_window, 1, 1 << 16));
  RPSUM_RETURN_IF_ERROR(
      Range("tokenizer.max_tokens_per_unit", config.tokenizer.max_tokens_per_unit, 1, 1 << 16));
  return absl::OkStatus();
}

absl::Status ValidateScoring(const ScoringConfig& scoring) {
  if (!(scoring.centrality_weight >= -10 && scoring.centrality_weight <= 10)) {
    return absl::InvalidArgumentError(absl::StrCat("config.json: scoring.centrality_weight is ",
                                                   scoring.centrality_weight,
                                                   "; allowed: [-10, 10]"));
  }
  const RerankConfig& r = scoring.rerank;
  RPSUM_RETURN_IF_ERROR(Range("scoring.rerank.top_k", r.top_k, 0, 12));
  RPSUM_RETURN_IF_ERROR(Range("scoring.rerank.max_units", r.max_units, 1, 12));
  if (r.top_k > 0) {
    if (r.weights.size() != kNumRerankFeatures) {
      return absl::InvalidArgumentError(
          absl::StrCat("config.json: scoring.rerank.weights has ", r.weights.size(),
                       " entries; it needs one per feature (", kNumRerankFeatures, ")"));
    }
    for (double w : r.weights) {
      if (!(w >= -100 && w <= 100)) {
        return absl::InvalidArgumentError(
            absl::StrCat("config.json: a scoring.rerank weight is ", w, "; allowed: [-100, 100]"));
      }
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ModelConfig::Validate() const {
  RPSUM_RETURN_IF_ERROR(ValidateArchitecture(architecture));
  RPSUM_RETURN_IF_ERROR(ValidateServing(*this));
  RPSUM_RETURN_IF_ERROR(ValidateScoring(scoring));
  if (tokenizer.file.empty() || weights_file.empty()) {
    return absl::InvalidArgumentError("config.json: tokenizer.file and weights.file are required");
  }
  return absl::OkStatus();
}

namespace {

// A key of a study that was removed (kStudiesRemovedAfter): accepted at the value every shipped
// config holds, refused otherwise, naming the commit that still serves it.
absl::Status RefuseStudy(const json& section, const char* key, const json& shipped) {
  if (!section.contains(key) || section.at(key) == shipped) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("config.json: ", key, " = ", section.at(key).dump(),
                   " asks for a study variant that rpsum no longer serves (removed after commit ",
                   kStudiesRemovedAfter, "); serve this checkpoint with rpsum at that commit"));
}

absl::Status ReadArchitecture(const json& a, Architecture* r) {
  RPSUM_RETURN_IF_ERROR(
      CheckKeys(a, "architecture",
                {"vocab_size", "hidden_size", "heads", "ffn_size", "token_layers", "unit_layers",
                 "max_clip_distance", "unit_clip_distance", "num_features", "feature_columns",
                 "dropout", "head_clip_multipliers", "positions", "max_positions"}));
  RPSUM_RETURN_IF_ERROR(RefuseStudy(a, "head_clip_multipliers", json::array()));
  RPSUM_RETURN_IF_ERROR(RefuseStudy(a, "positions", "relative"));
  RPSUM_RETURN_IF_ERROR(RefuseStudy(a, "max_positions", 4096));
  Read(a, "vocab_size", &r->vocab_size);
  Read(a, "hidden_size", &r->hidden_size);
  Read(a, "heads", &r->heads);
  Read(a, "ffn_size", &r->ffn_size);
  Read(a, "token_layers", &r->token_layers);
  Read(a, "unit_layers", &r->unit_layers);
  Read(a, "max_clip_distance", &r->max_clip_distance);
  Read(a, "unit_clip_distance", &r->unit_clip_distance);
  Read(a, "num_features", &r->num_features);
  Read(a, "feature_columns", &r->feature_columns);
  Read(a, "dropout", &r->dropout);
  return absl::OkStatus();
}

// attention.local_windows: [{"from_tokens": N, "window": W}, ...] when present.
absl::Status ReadWindowBands(const json& t, std::vector<LocalWindowBand>* out) {
  if (!t.contains("local_windows")) return absl::OkStatus();
  const json& bands = t.at("local_windows");
  if (!bands.is_array()) {
    return absl::InvalidArgumentError("config.json: attention.local_windows must be a list");
  }
  out->clear();
  for (const json& b : bands) {
    RPSUM_RETURN_IF_ERROR(CheckKeys(b, "attention.local_windows[]", {"from_tokens", "window"}));
    if (!b.contains("from_tokens") || !b.contains("window")) {
      return absl::InvalidArgumentError(
          "config.json: each attention.local_windows entry needs from_tokens and window");
    }
    out->push_back({b.at("from_tokens").get<int64_t>(), b.at("window").get<int64_t>()});
  }
  return absl::OkStatus();
}

// clip_policy, attention, tokenizer and weights: each section when present.
absl::Status ReadServing(const json& j, ModelConfig* c) {
  if (j.contains("clip_policy")) {
    const json& p = j.at("clip_policy");
    RPSUM_RETURN_IF_ERROR(
        CheckKeys(p, "clip_policy", {"ratio", "min", "max", "buckets", "fixed", "describe"}));
    Read(p, "ratio", &c->clip_policy.ratio);
    Read(p, "min", &c->clip_policy.min);
    Read(p, "max", &c->clip_policy.max);
    Read(p, "buckets", &c->clip_policy.buckets);
    RPSUM_RETURN_IF_ERROR(RefuseStudy(p, "fixed", 0));
  }
  if (j.contains("attention")) {
    const json& t = j.at("attention");
    RPSUM_RETURN_IF_ERROR(CheckKeys(t, "attention",
                                    {"local_threshold", "local_window", "local_windows",
                                     "unit_local_threshold", "unit_local_window"}));
    Read(t, "local_threshold", &c->attention.local_threshold);
    Read(t, "local_window", &c->attention.local_window);
    RPSUM_RETURN_IF_ERROR(ReadWindowBands(t, &c->attention.local_windows));
    Read(t, "unit_local_threshold", &c->attention.unit_local_threshold);
    Read(t, "unit_local_window", &c->attention.unit_local_window);
  }
  if (j.contains("tokenizer")) {
    const json& t = j.at("tokenizer");
    RPSUM_RETURN_IF_ERROR(CheckKeys(t, "tokenizer", {"file", "max_tokens_per_unit"}));
    Read(t, "file", &c->tokenizer.file);
    Read(t, "max_tokens_per_unit", &c->tokenizer.max_tokens_per_unit);
  }
  if (j.contains("weights")) {
    const json& w = j.at("weights");
    RPSUM_RETURN_IF_ERROR(CheckKeys(w, "weights", {"file", "format"}));
    Read(w, "file", &c->weights_file);
  }
  return absl::OkStatus();
}

// scoring.rerank.weights, by feature name; configs written before the net_* features lack them
// (weight 0).
absl::Status ReadRerankWeights(const json& w, std::vector<double>* weights) {
  const std::set<std::string> names(std::begin(kRerankFeatureNames), std::end(kRerankFeatureNames));
  RPSUM_RETURN_IF_ERROR(CheckKeys(w, "scoring.rerank.weights", names));
  for (int f = 0; f < kNumRerankFeatures; ++f) {
    const char* name = kRerankFeatureNames[f];
    if (!w.contains(name) && f >= kFirstNetRerankFeature) {
      weights->push_back(0.0);
      continue;
    }
    if (!w.contains(name)) {
      return absl::InvalidArgumentError(
          absl::StrCat("config.json: scoring.rerank.weights has no '", name, "'"));
    }
    weights->push_back(w.at(name).get<double>());
  }
  return absl::OkStatus();
}

absl::Status ReadScoring(const json& s, ScoringConfig* scoring) {
  RPSUM_RETURN_IF_ERROR(CheckKeys(s, "scoring", {"centrality_weight", "rerank"}));
  Read(s, "centrality_weight", &scoring->centrality_weight);
  if (!s.contains("rerank")) return absl::OkStatus();
  const json& r = s.at("rerank");
  RPSUM_RETURN_IF_ERROR(CheckKeys(r, "scoring.rerank", {"top_k", "max_units", "weights"}));
  Read(r, "top_k", &scoring->rerank.top_k);
  Read(r, "max_units", &scoring->rerank.max_units);
  if (r.contains("weights")) {
    RPSUM_RETURN_IF_ERROR(ReadRerankWeights(r.at("weights"), &scoring->rerank.weights));
  }
  return absl::OkStatus();
}

// Format 1 named the unit-level settings after sentences; format 2 after units.
json UpgradeFormat1(json j) {
  const auto rename = [&j](const char* section, const char* from, const char* to) {
    if (!j.contains(section) || !j.at(section).is_object()) return;
    json& s = j.at(section);
    if (auto it = s.find(from); it != s.end()) {
      s[to] = *it;
      s.erase(from);
    }
  };
  rename("architecture", "sentence_layers", "unit_layers");
  rename("architecture", "sentence_clip_distance", "unit_clip_distance");
  rename("attention", "sentence_local_threshold", "unit_local_threshold");
  rename("attention", "sentence_local_window", "unit_local_window");
  rename("tokenizer", "max_tokens_per_sentence", "max_tokens_per_unit");
  j["format_version"] = ModelConfig::kFormatVersion;
  return j;
}

}  // namespace

absl::StatusOr<ModelConfig> ModelConfig::FromJson(std::string_view text) {
  ModelConfig c;
  try {
    const json j = json::parse(text);
    RPSUM_RETURN_IF_ERROR(
        CheckKeys(j, "config",
                  {"format", "format_version", "name", "version", "architecture", "clip_policy",
                   "attention", "tokenizer", "scoring", "weights", "training"}));
    if (j.value("format", std::string()) != "rpsum-checkpoint") {
      return absl::InvalidArgumentError(
          "config.json: 'format' must be \"rpsum-checkpoint\"; this is not an rpsum model");
    }
    const int version = j.value("format_version", -1);
    if (version == 1) return FromJson(UpgradeFormat1(j).dump());
    if (version != kFormatVersion) {
      return absl::InvalidArgumentError(absl::StrCat("config.json: format_version ", version,
                                                     " is not supported (this rpsum reads ",
                                                     kFormatVersion, ")"));
    }
    Read(j, "name", &c.name);
    Read(j, "version", &c.version);
    if (j.contains("architecture")) {
      RPSUM_RETURN_IF_ERROR(ReadArchitecture(j.at("architecture"), &c.architecture));
    }
    RPSUM_RETURN_IF_ERROR(ReadServing(j, &c));
    if (j.contains("scoring")) RPSUM_RETURN_IF_ERROR(ReadScoring(j.at("scoring"), &c.scoring));
    if (j.contains("training")) c.training_json = j.at("training").dump();
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("config.json: ", e.what()));
  }
  RPSUM_RETURN_IF_ERROR(c.Validate());
  return c;
}

std::string ModelConfig::ToJson() const {
  const Architecture& a = architecture;
  json j;
  j["format"] = "rpsum-checkpoint";
  j["format_version"] = kFormatVersion;
  j["name"] = name;
  j["version"] = version;
  j["architecture"] = {{"vocab_size", a.vocab_size},
                       {"hidden_size", a.hidden_size},
                       {"heads", a.heads},
                       {"ffn_size", a.ffn_size},
                       {"token_layers", a.token_layers},
                       {"unit_layers", a.unit_layers},
                       {"max_clip_distance", a.max_clip_distance},
                       {"unit_clip_distance", a.unit_clip_distance},
                       {"num_features", a.num_features},
                       {"dropout", a.dropout}};
  // Written only when set, so the configs of models that read the first columns stay as they were.
  if (!a.feature_columns.empty()) j["architecture"]["feature_columns"] = a.feature_columns;
  j["clip_policy"] = {{"ratio", clip_policy.ratio},
                      {"min", clip_policy.min},
                      {"max", clip_policy.max},
                      {"buckets", clip_policy.buckets},
                      {"describe", clip_policy.Describe()}};
  j["attention"] = {{"local_threshold", attention.local_threshold},
                    {"local_window", attention.local_window},
                    {"unit_local_threshold", attention.unit_local_threshold},
                    {"unit_local_window", attention.unit_local_window}};
  // Written only when set, so the configs of models without bands stay as they were.
  for (const LocalWindowBand& b : attention.local_windows) {
    j["attention"]["local_windows"].push_back(
        {{"from_tokens", b.from_tokens}, {"window", b.window}});
  }
  j["tokenizer"] = {{"file", tokenizer.file},
                    {"max_tokens_per_unit", tokenizer.max_tokens_per_unit}};
  j["scoring"] = {{"centrality_weight", scoring.centrality_weight}};
  if (scoring.rerank.top_k > 0) {
    json w = json::object();
    for (size_t i = 0; i < scoring.rerank.weights.size() && i < kNumRerankFeatures; ++i) {
      w[kRerankFeatureNames[i]] = scoring.rerank.weights[i];
    }
    j["scoring"]["rerank"] = {
        {"top_k", scoring.rerank.top_k}, {"max_units", scoring.rerank.max_units}, {"weights", w}};
  }
  j["weights"] = {{"file", weights_file}, {"format", "safetensors"}};
  j["training"] = json::parse(training_json.empty() ? "{}" : training_json);
  return j.dump(2) + "\n";
}

}  // namespace rpsum::model
