// Sentence selection, the policy the server serves and evaluation scores (docs/design.md,
// section 2, step 6). Torch-free.
#ifndef RPSUM_MODEL_SELECT_H_
#define RPSUM_MODEL_SELECT_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/document.h"

namespace rpsum::model {

struct Budget {
  enum class Kind { kWords, kUnits, kRatio };
  Kind kind = Kind::kWords;
  double value = 100;  // words, sentences, or a fraction of the input's words
};

struct Boilerplate;  // below

struct SelectOptions {
  Budget budget;
  // Skip a unit sharing a word trigram with one already chosen.
  bool trigram_blocking = true;
  // Summary-level reranking under a word budget (the model's scoring.rerank; off by default).
  RerankConfig rerank;
  // Let boilerplate (FindBoilerplate) into the summary like any other unit.
  bool keep_boilerplate = false;
  // FindBoilerplate of the document, found once by a caller that needs it too (the service);
  // null: found where it is needed. Must outlive the call.
  const Boilerplate* boilerplate = nullptr;
};

// Boilerplate (docs/design.md, section 2, "Boilerplate"): licences and notices, tables of
// contents and indexes, bibliographies and reference lists, release notes and change logs, and
// acknowledgements. A section is boilerplate by its heading (IsBoilerplateHeading: numbering
// aside, a name of that list, or any naming a licence), up to the next heading; a paragraph by
// its words (IsBoilerplateText: a licence's or notice's phrases), wherever it stands.
// SelectSummary leaves boilerplate out as it leaves headings out (unless keep_boilerplate):
// chosen only when the input has nothing else.
struct Boilerplate {
  std::vector<bool> units;        // per kept unit
  std::vector<int32_t> sections;  // the kept units that head boilerplate sections
  int32_t paragraphs = 0;         // paragraphs found by their words outside those sections
};

// The network's state per kept unit (model/summarizer.h DocumentScores::unit_states): row-major
// [kept units x width], not owned. Empty (width 0) when the model did not return them.
struct UnitStates {
  const float* values = nullptr;
  int64_t width = 0;
  bool empty() const { return values == nullptr || width <= 0; }
};

// The summary policy: what the service returns and what evaluation scores, so the model card's
// numbers are the served summaries' (docs/design.md, section 2, "Select"). A ratio budget becomes
// words of the whole input (truncated units included); headings (structure, not content),
// fragments (IsFragment) and boilerplate (FindBoilerplate) are chosen only when the input has
// nothing else; then SelectByScore,
// or, when options.rerank is on and the budget is in words, the best of SummaryCandidates by
// ChooseCandidate. `scores` and `texts` have one entry per kept unit of `doc`; `states` the
// network's unit states, which the net_* features of the reranking read. Returns indices into
// doc.kept, ascending. Thread-safe.
std::vector<int32_t> SelectSummary(const PreparedDocument& doc,
                                   const std::vector<std::string_view>& texts,
                                   const std::vector<float>& scores, const SelectOptions& options,
                                   UnitStates states = {});

// The outline (docs/design.md, section 2, "Outline"): the document's sections, each a heading
// unit and the units up to the next heading (the units before the first heading a section with
// no heading), and each one's summary from the same scores. A section's share of the summary's
// words (BudgetWords of the options' budget) is its share of the content words (what
// SelectSummary chooses from: no heading, fragment or boilerplate) of the sections that get
// one; a section of fewer than kMinSectionWords content words, and a boilerplate section, get
// none. Within a section, SelectByScore chooses (its best unit even past its share; the
// summary-level reranking is not used). Indices into doc.kept. Thread-safe.
struct OutlineSection {
  int32_t heading = -1;  // the heading unit; -1 for the part before the first heading
  int32_t first = 0;     // kept units [first, end), the heading included
  int32_t end = 0;
  int64_t words = 0;  // content words
  bool boilerplate = false;
  std::vector<int32_t> chosen;  // its summary, ascending; empty when too small or boilerplate
};

// What a response shows of a scored document (SelectForResponse).
struct Selection {
  std::vector<int32_t> chosen;          // SelectSummary's: indices into doc.kept, ascending
  Boilerplate boilerplate;              // FindBoilerplate's; empty with keep_boilerplate
  std::vector<OutlineSection> outline;  // SummarizeSections'; empty unless asked for
};
// The service's selection: the boilerplate found once (unless options.keep_boilerplate) and
// read by both, SelectSummary and, when `outline` and the document has kept units, the
// outline's sections. `headings`, when not empty, says which kept units head a section (the
// headings a format marked, where it marks them); else every heading unit does. The other
// arguments as SelectSummary's. Thread-safe.
Selection SelectForResponse(const PreparedDocument& doc, const std::vector<std::string_view>& texts,
                            const std::vector<float>& scores, SelectOptions options,
                            UnitStates states, bool outline,
                            const std::vector<bool>& headings = {});

// One candidate summary of the reranking: kept-unit indices, ascending, and its features in
// kRerankFeatureNames order (model/model_config.h), before standardisation:
//   mean_score, max_score, min_score: the units' served scores (the mean weighted by words);
//   units: how many; fill: min(words, budget) / budget;
//   document_cosine: cosine of its content-word counts (Words of 4+ characters, as the
//     centrality feature) with the whole document's;
//   title_share: the word-weighted mean of its units' title-overlap feature;
//   position, first: mean and first kept index of its units over the kept units' count;
//   rank: mean rank of its units in score order (0 = the best content unit);
//   distinct: distinct words over words (Words);
// and from the network's unit states (all 0 without them), against the document's state: the
// mean state of its content units (not headings or fragments; of every kept unit when none is):
//   net_coverage: cosine of the candidate's word-weighted mean state with the document's;
//   net_redundancy, net_max_redundancy: mean and largest cosine between two of its units'
//     states (0 for one unit);
//   net_coverage_units: as net_coverage with each unit weighted alike;
//   net_min_unit_cosine, net_mean_unit_cosine: least and mean cosine of a unit's state with the
//     document's.
struct Candidate {
  std::vector<int32_t> units;
  std::array<double, kNumRerankFeatures> features{};
};

// The candidates SelectSummary reranks under a word budget: [0] is the greedy selection
// (SelectByScore); then every subset of the options.rerank.top_k best content units with at most
// options.rerank.max_units members that fits the budget (a single unit always) and has no
// trigram shared between two members (with trigram blocking), filled by SelectByScore's rule
// from the units ranked below the top_k; duplicates dropped. Deterministic and per document.
// Empty when reranking is off or the budget is not in words.
std::vector<Candidate> SummaryCandidates(const PreparedDocument& doc,
                                         const std::vector<std::string_view>& texts,
                                         const std::vector<float>& scores,
                                         const SelectOptions& options, UnitStates states = {});

// Each feature standardised over the candidates ((x - mean) / (sd + 1e-6), sd over n - 1; all
// zeros for a single candidate).
std::vector<std::array<double, kNumRerankFeatures>> StandardisedFeatures(
    const std::vector<Candidate>& candidates);

// The index of the candidate with the largest weights . standardised features; the earliest
// on ties (so the greedy selection unless another is strictly better). 0 when empty.
size_t ChooseCandidate(const std::vector<Candidate>& candidates,
                       const std::vector<double>& weights);

// Joins the texts of `chosen` with '\n' and cuts the result to `max_words` words (0: no cut).
std::string JoinAndCut(const std::vector<std::string_view>& texts,
                       const std::vector<int32_t>& chosen, int64_t max_words);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_SELECT_H_
