// rpsum-eval's model runs and tables (train/evaluator.h): the model's served scores per document,
// every system's summaries scored, and the tables printed.
#ifndef RPSUM_TRAIN_EVAL_RUN_H_
#define RPSUM_TRAIN_EVAL_RUN_H_

#include <cstdint>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "model/select.h"
#include "model/summarizer.h"
#include "model/torch/checkpoint.h"
#include "nlohmann/json.hpp"
#include "train/evaluate.h"

namespace rpsum::train {

// The model's scores of every document, and its time.
struct ModelRun {
  std::vector<std::vector<float>> scores;
  std::vector<model::DocumentScores> states;  // unit_states per document, when asked for
  double seconds = 0;
  std::vector<double> document_seconds;  // the model's time per document
  int64_t tokens = 0;

  // Document i's unit states (empty when not asked for).
  model::UnitStates States(size_t i) const {
    if (i >= states.size() || states[i].state_size <= 0) return {};
    return {states[i].unit_states.data(), states[i].state_size};
  }
};

// Scores every document alone at the clip distance of the config's policy, as the server does.
// Keeps the unit states with `with_states` or when the checkpoint's reranking reads them.
ModelRun RunModel(const net::Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                  bool with_states = false);

// ROUGE means per system: overall, by length bucket, by source.
struct Tables {
  std::map<std::string, RougeMean> overall;
  std::map<std::string, std::map<std::string, RougeMean>> by_bucket, by_source;
};

// Scores lead, TextRank, the model (`run`, through the served selection with `rerank`) and the
// oracle on every document. With `dump` open, writes each document's JSON line: title,
// reference, the kept units, the model's served score per unit, the oracle's units, and per
// system the summary and its ROUGE F1 x 100, for reading what the model gets wrong.
Tables ScoreSystems(const std::vector<EvalDoc>& docs, const ModelRun& run,
                    const model::RerankConfig& rerank, std::ofstream* dump);

// The tables: overall (with the model's time), by document length, by source; each also into
// `out`.
void PrintTables(Tables& t, const ModelRun& run, size_t docs, nlohmann::json* out);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_EVAL_RUN_H_
