// The selection's own parts (model/select.h has what callers outside model/ use): the
// boilerplate and the outline's sections (SelectForResponse calls them), the boilerplate tests,
// the greedy choice, fragments, the served scores and the document's state.
// Internal to model/.
#ifndef RPSUM_MODEL_INTERNAL_SELECT_H_
#define RPSUM_MODEL_INTERNAL_SELECT_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/select.h"

namespace rpsum::model {

// Finds a document's boilerplate (model/select.h Boilerplate).
Boilerplate FindBoilerplate(const PreparedDocument& doc,
                            const std::vector<std::string_view>& texts);

// The outline's sections and their summaries (model/select.h OutlineSection; a section of
// fewer than kMinSectionWords content words gets no summary).
inline constexpr int64_t kMinSectionWords = 40;
// `headings`, when not empty, says which kept units head a section (the headings a format
// marked, where it marks them); else every heading unit does.
std::vector<OutlineSection> SummarizeSections(const PreparedDocument& doc,
                                              const std::vector<std::string_view>& texts,
                                              const std::vector<float>& scores,
                                              const SelectOptions& options,
                                              const std::vector<bool>& headings = {});

// A heading that opens a boilerplate section, and a paragraph that is boilerplate by its words
// (FindBoilerplate).
bool IsBoilerplateHeading(std::string_view heading);
bool IsBoilerplateText(std::string_view text);

// Chooses among candidate units (parallel vectors: score, text, words) in score order under
// the budget. Always returns at least one unit when there is one. Returns indices into the
// vectors in ascending (document) order. Thread-safe.
std::vector<int32_t> SelectByScore(const std::vector<float>& scores,
                                   const std::vector<std::string_view>& texts,
                                   const std::vector<int32_t>& words, const SelectOptions& options);

// A fragment carries no statement of its own: a unit of at most kFragmentWords words ("The
// details.", a split after "regex!"), or an introduction to what follows it, ending with ':' in
// at most kIntroWords words ("For example:", "The bytecode breakdown:"). Alone in a summary it
// reads as a defect, so SelectSummary treats it like a heading (docs/design.md, section 2).
inline constexpr int64_t kFragmentWords = 3;
inline constexpr int64_t kIntroWords = 8;
bool IsFragment(std::string_view text, int64_t words);

// (x - mean) / standard deviation of each value (all zeros when the values are all alike).
std::vector<float> ZScores(const std::vector<float>& x);

// The served score of each kept unit of `doc` from the network's logits: sigmoid(logit + w * z),
// w = scoring.centrality_weight and z the unit's content-word centrality
// (kFeatureContentCentrality) standardised over the kept units (0 when they are all alike). With
// w = 0, the network's probability. Per document, so a unit's score never depends on what else
// is in its batch. Thread-safe.
std::vector<float> ServedScores(const PreparedDocument& doc, const std::vector<float>& logits,
                                const ScoringConfig& scoring);

// The document's state that the net_* features compare with (Candidate): the mean state of its
// content units (not headings, fragments or, unless the options keep it, boilerplate), of every
// kept unit when none is content. Empty without states.
std::vector<double> DocumentState(const PreparedDocument& doc,
                                  const std::vector<std::string_view>& texts, UnitStates states,
                                  const SelectOptions& options = {});

// The budget in words that an outline shares among its sections: words as given; a ratio of
// the whole input's words, as SelectSummary counts it; sentences times the mean words of the
// kept units other than headings (of all kept units when they are all headings), since the
// summary's own words are not known before the selection.
double BudgetWords(const Budget& budget, const PreparedDocument& doc);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_INTERNAL_SELECT_H_
