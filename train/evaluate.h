// The evaluation protocol of docs/design.md, section 6, shared by the trainer's validation and
// rpsum-eval: every system picks units of the same preparation under the same budget (the
// reference's word count) and is scored with ROUGE; the model and TextRank exactly as the
// service selects, lead and the oracle cut to the budget. Torch-free.
#ifndef RPSUM_TRAIN_EVALUATE_H_
#define RPSUM_TRAIN_EVALUATE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/document.h"
#include "model/select.h"
#include "train/corpus.h"
#include "train/rouge.h"

namespace rpsum::train {

struct EvalDoc {
  const CorpusRecord* record = nullptr;  // not owned; outlives the EvalDoc
  model::DocumentInput input;
  model::PreparedDocument prepared;
  std::vector<std::string_view> texts;  // of the kept units
  std::vector<int32_t> words;           // of the kept units
  int64_t reference_words = 0;
  std::vector<int32_t> oracle;  // greedy oracle over the kept units (filled on request)
};

// Prepares `records` (title + document) with `options`; records that fail to prepare are
// skipped and counted in *skipped. With `with_oracle`, fills EvalDoc::oracle.
std::vector<EvalDoc> PrepareCorpus(const std::vector<CorpusRecord>& records,
                                   const model::Tokenizer& tokenizer,
                                   const model::PrepareOptions& options, bool with_oracle,
                                   int* skipped);

// The summary the service returns for `doc` from per-unit scores when asked for max_words =
// the reference's word count (SelectSummary, the one policy the server applies: headings only
// when nothing else, trigram blocking, whole units that fit), its units joined by newlines,
// not cut. Scores a model and TextRank exactly as served. `rerank`: the model's
// scoring.rerank (top_k 0, the default, for TextRank and for models without it); `states` the
// network's unit states, which its net_* features read.
std::string SummaryFromScores(const EvalDoc& doc, const std::vector<float>& scores,
                              const model::RerankConfig& rerank, model::UnitStates states = {});
// The options SummaryFromScores selects with.
model::SelectOptions ServedOptions(const EvalDoc& doc, const model::RerankConfig& rerank);
// The given units joined and cut to the reference's word count: the classic protocol for the
// lead and oracle reference points.
std::string SummaryFromUnits(const EvalDoc& doc, const std::vector<int32_t>& chosen);

// ROUGE of a summary against the document's reference summaries: the best F1 over references
// for each measure (one reference for the design-document corpus).
RougeScores ScoreSummary(const EvalDoc& doc, const std::string& summary);

// Running means of ROUGE scores (F1 x 100 in the tables).
struct RougeMean {
  double r1 = 0, r2 = 0, rl = 0, rlsum = 0;
  int n = 0;
  void Add(const RougeScores& s);
  RougeMean Mean() const;
};

// Baselines on the same units.
std::vector<float> LeadScores(const EvalDoc& doc);
std::vector<float> TextRankBaseline(const EvalDoc& doc);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_EVALUATE_H_
