// The model's configuration: architecture, clip policy k(L), attention mode thresholds,
// tokenizer settings. Read from and written to a checkpoint's config.json. Torch-free.
#ifndef RPSUM_MODEL_MODEL_CONFIG_H_
#define RPSUM_MODEL_MODEL_CONFIG_H_

#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace rpsum::model {

// Number of per-unit features, in this order: position fraction, heading, list item, short,
// title overlap, paragraph start (model v1 reads these six), then two centrality features
// over the kept units (docs/design.md, section 2): ROUGE-1 F1 of the unit against the rest of
// the document, and cosine similarity of its content words with the rest's, each divided by
// the document's largest; then the unit's place in its section (the units between two
// headings): its index there over the section's unit count, and 1 for a section's first unit.
// A checkpoint reads the first architecture.num_features columns, or its feature_columns. (Two
// more columns, 10 and 11, gave the summary's budget: a study removed after commit
// kBudgetColumnsRemovedAfter, whose checkpoints are refused.)
inline constexpr int kNumFeatures = 10;
inline constexpr const char* kBudgetColumnsRemovedAfter = "3ad3e94";
inline constexpr int kNumFeaturesV1 = 6;
// The columns of the title overlap (summary-level reranking) and of the content-word
// centrality (ScoringConfig).
inline constexpr int kFeatureTitleOverlap = 4;
inline constexpr int kFeatureRougeCentrality = 6;
inline constexpr int kFeatureContentCentrality = 7;
inline constexpr int kFeatureSectionPosition = 8;
inline constexpr int kFeatureSectionStart = 9;

struct Architecture {
  int64_t vocab_size = 8000;
  int64_t hidden_size = 256;
  int64_t heads = 4;
  int64_t ffn_size = 1024;
  int64_t token_layers = 4;
  int64_t unit_layers = 2;
  // Half-width K of the token-level relative tables (2K+1 rows): the largest clip distance.
  int64_t max_clip_distance = 64;
  // Half-width of the unit-level tables; unit layers use this k.
  int64_t unit_clip_distance = 16;
  // Unit features fed to the unit layers: the first num_features of kNumFeatures, or, when
  // feature_columns (below) is not empty, those columns (num_features of them, in that order).
  int64_t num_features = kNumFeaturesV1;
  double dropout = 0.1;
  // The feature columns the unit layers read (see num_features); empty: the first ones.
  std::vector<int64_t> feature_columns;
};

// The commit that last ran the position and layered-clipping studies, the fixed-k policy and
// rpsum-eval's clip-distance and window studies (models/experiments/LOG.md): a checkpoint that
// asks for one of them is refused with a message naming it.
inline constexpr char kStudiesRemovedAfter[] = "c882fd2";

// k(L) = the largest bucket <= clamp(L / ratio, min, max); buckets keep batches on few k.
struct ClipPolicy {
  int64_t ratio = 8;
  int64_t min = 2;
  int64_t max = 64;
  std::vector<int64_t> buckets = {2, 4, 8, 16, 32, 64};

  int64_t Pick(int64_t length) const;
  std::string Describe() const;
};

// From `from_tokens` tokens on, block-local token attention uses `window` tokens each side.
struct LocalWindowBand {
  int64_t from_tokens = 0;
  int64_t window = 0;
};

struct AttentionConfig {
  // Token sequences longer than this use block-local attention of +-local_window tokens.
  int64_t local_threshold = 2048;
  int64_t local_window = 256;
  // The window by length (the length policy, models/experiments/policy): each band, in
  // ascending from_tokens above local_threshold, replaces local_window from its length on.
  // Empty: local_window at every length past the threshold.
  std::vector<LocalWindowBand> local_windows;
  // The same for the unit layers, counted in units.
  int64_t unit_local_threshold = 1024;
  int64_t unit_local_window = 128;

  // Tokens each side of the block-local token attention for a sequence of `tokens`; 0 when it
  // is short enough for full attention.
  int64_t TokenWindow(int64_t tokens) const;
  // Human-readable, e.g. "256 tokens each side past 1024 tokens; 128 from 4096".
  std::string DescribeWindows() const;
};

struct TokenizerConfig {
  std::string file = "tokenizer.model";
  // Tokens kept per unit after its start marker; longer units are cut.
  int64_t max_tokens_per_unit = 64;
};

// Summary-level reranking (docs/design.md, section 2, "Select"): the feature names, in the
// order of RerankConfig::weights (model/select.h Candidate defines each). The net_* features
// read the network's unit states (model/summarizer.h DocumentScores::unit_states); a config may
// leave them out (weight 0), as configs written before them do.
inline constexpr int kNumRerankFeatures = 17;
inline constexpr int kFirstNetRerankFeature = 11;
inline constexpr const char* kRerankFeatureNames[kNumRerankFeatures] = {"mean_score",
                                                                        "max_score",
                                                                        "min_score",
                                                                        "units",
                                                                        "fill",
                                                                        "document_cosine",
                                                                        "title_share",
                                                                        "position",
                                                                        "first",
                                                                        "rank",
                                                                        "distinct",
                                                                        "net_coverage",
                                                                        "net_redundancy",
                                                                        "net_max_redundancy",
                                                                        "net_coverage_units",
                                                                        "net_min_unit_cosine",
                                                                        "net_mean_unit_cosine"};

// The reranking features that read something other than the selection itself.
inline constexpr int kRerankTitleShare = 6;
inline constexpr int kRerankDistinct = 10;
static_assert(std::string_view(kRerankFeatureNames[kRerankTitleShare]) == "title_share");
static_assert(std::string_view(kRerankFeatureNames[kRerankDistinct]) == "distinct");

// With top_k > 0, SelectSummary chooses among candidate summaries built from subsets of the
// top_k units (at most max_units of them) by a linear score of their standardised features.
struct RerankConfig {
  int64_t top_k = 0;  // 0: off (the greedy selection alone, models before v2.3)
  int64_t max_units = 6;
  std::vector<double> weights;  // kNumRerankFeatures, when top_k > 0
};

// Whether selecting under `rerank` reads the network's unit states (a net_* weight is not 0).
bool NeedsUnitStates(const RerankConfig& rerank);

// Which reranking features selection computes: those with a weight that is not 0, or all of
// them when `weights` is empty (fitting the weights reads every feature).
std::bitset<kNumRerankFeatures> RerankFeaturesRead(const RerankConfig& rerank);

// How the served score of a unit is made from the network's output (docs/design.md, section 6).
struct ScoringConfig {
  // score = sigmoid(logit + centrality_weight * z), z the unit's content-word centrality
  // (model/document.h, kFeatureContentCentrality) standardised over the document's kept units.
  // 0 (model v1): the network's probability alone.
  double centrality_weight = 0.0;
  RerankConfig rerank;
};

struct ModelConfig {
  // Format 2 names the unit-level settings unit_*; format 1 (models written before 2026-12)
  // named them sentence_* and is still read.
  static constexpr int kFormatVersion = 2;

  std::string name = "rpsum-ext";
  std::string version = "0";
  Architecture architecture;
  ClipPolicy clip_policy;
  AttentionConfig attention;
  TokenizerConfig tokenizer;
  ScoringConfig scoring;
  std::string weights_file = "weights.safetensors";
  // Free-form training metadata (JSON object text), kept as is.
  std::string training_json = "{}";

  // Parses config.json. Unknown keys, a wrong format or version, and values out of range are
  // InvalidArgument naming the key.
  static absl::StatusOr<ModelConfig> FromJson(std::string_view text);
  std::string ToJson() const;
  // Checks ranges and consistency.
  absl::Status Validate() const;
};

// The unit feature columns serving a checkpoint reads (model/document.h PrepareOptions::columns):
// the network's (num_features or feature_columns), the content-word centrality when
// scoring.centrality_weight is not 0, the title overlap when the reranking weighs title_share.
std::bitset<kNumFeatures> FeatureColumnsRead(const ModelConfig& config);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_MODEL_CONFIG_H_
