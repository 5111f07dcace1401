// rpsum-eval's summary-level reranking tools (docs/design.md, section 2): the candidates'
// features dumped for analysis, and the fit of scoring.rerank's weights written as a checkpoint.
#ifndef RPSUM_TRAIN_EVAL_RERANK_H_
#define RPSUM_TRAIN_EVAL_RERANK_H_

#include <fstream>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "model/model_config.h"
#include "model/torch/checkpoint.h"
#include "nlohmann/json.hpp"
#include "train/eval_run.h"
#include "train/evaluate.h"
#include "train/evaluator.h"

namespace rpsum::train {

// The candidates the fit and the dump read: `fit`'s sizes, weights still to be fitted.
model::RerankConfig CandidateOptions(const RerankFitOptions& fit);

// One JSON line per document with candidates: "z" (standardised features), "reward" (ROUGE-1,
// ROUGE-2 F1); with unit states (run.states), also "units" (each candidate's kept-unit
// indices), "states" (kept index -> state, for every unit in a candidate), "document"
// (model::DocumentState, what the net_* features compare with) and "words".
void WriteRerankDump(const std::vector<EvalDoc>& docs, const ModelRun& run,
                     const model::RerankConfig& rerank, std::ofstream& f);

// Fits scoring.rerank's weights on `docs` (`run`: the model's greedy scores and unit states)
// and writes `ck`'s checkpoint with them to fit.out, its training record naming `data`.
// Prints the fit (greedy against reranked on these documents, the weights) and adds it to
// `out`. FailedPrecondition when no document has candidates.
absl::Status FitRerankAndWrite(const net::Checkpoint& ck, const std::vector<EvalDoc>& docs,
                               const ModelRun& run, const RerankFitOptions& fit,
                               const std::string& data, nlohmann::json* out);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_EVAL_RERANK_H_
