// rpsum-eval: evaluates a checkpoint and the baselines with ROUGE (train/evaluator.h says how).
// The flags are read once, into EvalOptions.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "train/evaluator.h"
#include "train/tool_main.h"

ABSL_FLAG(std::string, model, "models/rpsum-ext", "checkpoint directory");
ABSL_FLAG(std::string, data_dir, "../shared/data/corpus", "corpus folders, comma-separated");
ABSL_FLAG(std::string, split, "test", "train, valid or test");
ABSL_FLAG(std::string, file, "", "a .jsonl(.gz) file instead of --data_dir/--split");
ABSL_FLAG(std::string, json, "", "write the results here");
ABSL_FLAG(int, limit, 0, "first N documents only (0: all)");
ABSL_FLAG(int, threads, 2, "torch threads");
ABSL_FLAG(int, max_input_tokens, 32768, "preparation limit (head truncation past it)");
ABSL_FLAG(double, centrality_weight, -1,
          "override the checkpoint's scoring.centrality_weight (negative: keep the config's)");
ABSL_FLAG(std::string, dump, "",
          "write one JSON line per document here: id, source, reference, and per system the "
          "summary and its ROUGE-1/2/Lsum F1 (for error analysis)");
ABSL_FLAG(bool, no_rerank, false,
          "select greedily (scoring.rerank off) even when the checkpoint has a summary-level "
          "reranking");
ABSL_FLAG(std::string, fit_rerank, "",
          "fit scoring.rerank's weights on these documents (the training splits) and write the "
          "checkpoint with them to this directory (docs/design.md, section 2, \"Select\")");
ABSL_FLAG(int, rerank_top_k, 8, "--fit_rerank: candidates are subsets of this many best units");
ABSL_FLAG(int, rerank_max_units, 6, "--fit_rerank: at most this many of them");
ABSL_FLAG(std::string, rerank_features, "",
          "--fit_rerank: fit only these features (comma-separated names, "
          "model/model_config.h kRerankFeatureNames); the others get weight 0. Empty: all");
ABSL_FLAG(double, rerank_l2, 0.001, "--fit_rerank: the fit's L2 penalty on the weights");
ABSL_FLAG(std::string, rerank_version, "", "--fit_rerank: the written config's version");
ABSL_FLAG(std::string, served_windows, "",
          "--fit_rerank: the written config's block-local window by length, FROM:WINDOW,... "
          "(attention.local_windows; the length policy, models/experiments/policy); the fit "
          "itself runs with the model's. Empty: the model's");

namespace rpsum::train {
namespace {

// --served_windows: FROM:WINDOW,... (Validate checks the order and ranges when written).
absl::StatusOr<std::vector<model::LocalWindowBand>> WindowBands(const std::string& text) {
  std::vector<model::LocalWindowBand> out;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::vector<absl::string_view> parts = absl::StrSplit(item, ':');
    model::LocalWindowBand b;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &b.from_tokens) ||
        !absl::SimpleAtoi(parts[1], &b.window)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "--served_windows: '", item, "' is not FROM:WINDOW (tokens, e.g. 4096:128)"));
    }
    out.push_back(b);
  }
  return out;
}

absl::StatusOr<EvalOptions> OptionsFromFlags() {
  EvalOptions o;
  o.model_dir = absl::GetFlag(FLAGS_model);
  o.data_dir = absl::GetFlag(FLAGS_data_dir);
  o.split = absl::GetFlag(FLAGS_split);
  o.file = absl::GetFlag(FLAGS_file);
  o.limit = absl::GetFlag(FLAGS_limit);
  o.threads = absl::GetFlag(FLAGS_threads);
  o.max_input_tokens = absl::GetFlag(FLAGS_max_input_tokens);
  o.centrality_weight = absl::GetFlag(FLAGS_centrality_weight);
  o.no_rerank = absl::GetFlag(FLAGS_no_rerank);
  o.json = absl::GetFlag(FLAGS_json);
  o.dump = absl::GetFlag(FLAGS_dump);
  o.fit.out = absl::GetFlag(FLAGS_fit_rerank);
  o.fit.top_k = absl::GetFlag(FLAGS_rerank_top_k);
  o.fit.max_units = absl::GetFlag(FLAGS_rerank_max_units);
  o.fit.features = absl::StrSplit(absl::GetFlag(FLAGS_rerank_features), ',', absl::SkipEmpty());
  o.fit.l2 = absl::GetFlag(FLAGS_rerank_l2);
  o.fit.version = absl::GetFlag(FLAGS_rerank_version);
  auto bands = WindowBands(absl::GetFlag(FLAGS_served_windows));
  if (!bands.ok()) return bands.status();
  o.fit.served_windows = *std::move(bands);
  return o;
}

}  // namespace
}  // namespace rpsum::train

int main(int argc, char** argv) {
  rpsum::train::ParseToolFlags(argc, argv,
                               "Evaluates an rpsum checkpoint and the baselines with ROUGE.");
  try {
    auto options = rpsum::train::OptionsFromFlags();
    absl::Status s = options.ok() ? rpsum::train::Evaluate(*options) : options.status();
    if (!s.ok()) {
      std::fprintf(stderr, "rpsum-eval: %s\n", s.ToString().c_str());
      return 1;
    }
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpsum-eval: %s\n", e.what());
    return 1;
  }
}
