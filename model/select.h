// Sentence selection, the policy the server serves and evaluation scores (docs/design.md,
// section 2, step 6). Torch-free.
#ifndef RPSUM_MODEL_SELECT_H_
#define RPSUM_MODEL_SELECT_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/document.h"

namespace rpsum::model {

struct Budget {
  enum class Kind { kWords, kSentences, kRatio };
  Kind kind = Kind::kWords;
  double value = 100;  // words, sentences, or a fraction of the input's words
};

struct SelectOptions {
  Budget budget;
  // Skip a unit sharing a word trigram with one already chosen.
  bool trigram_blocking = true;
};

// Chooses among candidate units (parallel vectors: score, text, words) in score order under
// the budget. Always returns at least one unit when there is one. Returns indices into the
// vectors in ascending (document) order. Thread-safe.
std::vector<int32_t> SelectByScore(const std::vector<float>& scores,
                                   const std::vector<std::string_view>& texts,
                                   const std::vector<int32_t>& words, const SelectOptions& options);

// (x - mean) / standard deviation of each value (all zeros when the values are all alike).
std::vector<float> ZScores(const std::vector<float>& x);

// The served score of each kept unit of `doc` from the network's logits: sigmoid(logit + w * z),
// w = scoring.centrality_weight and z the unit's content-word centrality
// (kFeatureContentCentrality) standardised over the kept units (0 when they are all alike). With
// w = 0, the network's probability. Per document, so a unit's score never depends on what else
// is in its batch. Thread-safe.
std::vector<float> ServedScores(const PreparedDocument& doc, const std::vector<float>& logits,
                                const ScoringConfig& scoring);

// The summary policy: what the service returns and what evaluation scores, so the model card's
// numbers are the served summaries' (docs/design.md, "Selection"). A ratio budget becomes words
// of the whole input (truncated units included); headings are structure, not content, and are
// chosen only when the input has nothing else; then SelectByScore. `scores` and `texts` have
// one entry per kept unit of `doc`. Returns indices into doc.kept, ascending. Thread-safe.
std::vector<int32_t> SelectSummary(const PreparedDocument& doc,
                                   const std::vector<std::string_view>& texts,
                                   const std::vector<float>& scores, SelectOptions options);

// Joins the texts of `chosen` with '\n' and cuts the result to `max_words` words (0: no cut).
std::string JoinAndCut(const std::vector<std::string_view>& texts,
                       const std::vector<int32_t>& chosen, int64_t max_words);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_SELECT_H_
