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

// The candidates the fit reads: `fit`'s sizes, weights still to be fitted.
model::RerankConfig CandidateOptions(const RerankFitOptions& fit);

// Fits scoring.rerank's weights on `docs` (`run`: the model's greedy scores and unit states)
// and writes `ck`'s checkpoint with them to fit.out, its training record naming `data`.
// Prints the fit (greedy against reranked on these documents, the weights) and adds it to
// `out`. FailedPrecondition when no document has candidates.
absl::Status FitRerankAndWrite(const net::Checkpoint& ck, const std::vector<EvalDoc>& docs,
                               const ModelRun& run, const RerankFitOptions& fit,
                               const std::string& data, nlohmann::json* out);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_EVAL_RERANK_H_
