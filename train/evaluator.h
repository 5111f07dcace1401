// rpsum-eval: the evaluation protocol (docs/design.md, "Evaluation"). Runs a checkpoint and the
// baselines (lead, TextRank, greedy oracle) on one split with the same units and budget, the
// reference's word count: the model and TextRank through the service's own selection
// (SelectSummary: what a client asking for that many words gets), lead and the oracle cut to the
// budget. Prints markdown tables (overall, by document length, by source) and writes JSON;
// fits the summary-level reranking (`fit`). The options
// are the command line's, parsed once in eval_main.cc. Torch-free header.
#ifndef RPSUM_TRAIN_EVALUATOR_H_
#define RPSUM_TRAIN_EVALUATOR_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "model/model_config.h"

namespace rpsum::train {

// Fitting scoring.rerank's weights on the evaluated documents (the training splits) and writing
// the checkpoint with them (docs/design.md, section 2): train/eval_rerank.h.
struct RerankFitOptions {
  std::string out;                    // the fitted checkpoint's directory (empty: no fit)
  int top_k = 8;                      // candidates are subsets of this many best units
  int max_units = 6;                  // of at most this many of them
  std::vector<std::string> features;  // the features fitted (empty: all); the others get 0
  double l2 = 0.001;                  // the fit's L2 penalty on the weights
  std::string version;                // the written config's version (empty: the model's)
  // The written config's attention.local_windows (empty: the model's): the length policy
  // measured on the fitted model (models/experiments/policy). The fit runs with the model's.
  std::vector<model::LocalWindowBand> served_windows;
};

struct EvalOptions {
  std::string model_dir = "models/rpsum-ext";
  // The documents: `file`, or the `split` of the comma-separated corpus folders `data_dir`.
  std::string data_dir = "../shared/data/corpus";
  std::string split = "test";
  std::string file;
  int limit = 0;  // the first N documents (0: all)
  int threads = 2;
  int max_input_tokens = 32768;   // preparation limit (head truncation past it)
  double centrality_weight = -1;  // overrides the config's when >= 0
  bool no_rerank = false;         // select greedily even when the config reranks
  std::string json;               // write the results here
  std::string dump;               // one JSON line per document: summaries and scores
  RerankFitOptions fit;
};

// Evaluates as `options` say, printing the tables to stdout. Errors: a checkpoint, tokenizer or
// corpus that cannot be read, a file that cannot be written, a fit without candidates.
absl::Status Evaluate(const EvalOptions& options);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_EVALUATOR_H_
