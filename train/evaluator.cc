#include "train/evaluator.h"

#include <ATen/ATen.h>

#include <cstdio>
#include <fstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "model/torch/checkpoint.h"
#include "train/eval_rerank.h"
#include "train/eval_run.h"

namespace rpsum::train {
namespace {

// How the documents are named in the tables and the JSON.
std::string DataName(const EvalOptions& o) {
  if (!o.file.empty()) return o.file;
  if (absl::StrContains(o.data_dir, ',')) return absl::StrCat(o.data_dir, " (", o.split, ")");
  return o.data_dir + "/" + o.split + ".jsonl.gz";
}

// The checkpoint with the options' overrides.
absl::StatusOr<net::Checkpoint> Load(const EvalOptions& o) {
  auto ck = net::LoadCheckpoint(o.model_dir, "cpu");
  if (!ck.ok()) return ck.status();
  if (o.centrality_weight >= 0) ck->config.scoring.centrality_weight = o.centrality_weight;
  if (o.no_rerank) ck->config.scoring.rerank = model::RerankConfig{};
  return ck;
}

// Prepares the documents as the server does: whole up to max_input_tokens, the columns the
// checkpoint reads (every column when fitting or dumping the reranking's features).
std::vector<EvalDoc> PrepareDocuments(const EvalOptions& o, const model::ModelConfig& config,
                                      const model::Tokenizer& tok,
                                      const std::vector<CorpusRecord>& records, int* skipped) {
  model::PrepareOptions prep;
  prep.max_input_tokens = o.max_input_tokens;
  prep.max_units = 1 << 20;
  prep.max_document_bytes = 64U << 20;
  prep.max_tokens_per_unit = config.tokenizer.max_tokens_per_unit;
  prep.truncation = model::TruncationPolicy::kHead;
  if (o.fit.out.empty()) prep.columns = model::FeatureColumnsRead(config);
  return PrepareCorpus(records, tok, prep, true, skipped);
}

// The tables of one model run, and its --dump.
absl::Status Report(const EvalOptions& o, const net::Checkpoint& ck,
                    const std::vector<EvalDoc>& docs, const ModelRun& run, nlohmann::json* out) {
  std::ofstream dump;
  if (!o.dump.empty()) {
    dump.open(o.dump);
    if (!dump) return absl::UnavailableError("cannot write --dump " + o.dump);
  }
  Tables tables =
      ScoreSystems(docs, run, ck.config.scoring.rerank, dump.is_open() ? &dump : nullptr);
  PrintTables(tables, run, docs.size(), out);
  return absl::OkStatus();
}

}  // namespace

absl::Status Evaluate(const EvalOptions& o) {
  at::set_num_threads(o.threads);
  auto ck = Load(o);
  if (!ck.ok()) return ck.status();
  std::string error;
  auto tok = model::Tokenizer::Load(o.model_dir + "/" + ck->config.tokenizer.file, &error);
  if (!tok) return absl::NotFoundError(error);
  const std::string data = DataName(o);
  auto records =
      o.file.empty() ? ReadCorpusSplit(o.data_dir, o.split, o.limit) : ReadCorpus(o.file, o.limit);
  if (!records.ok()) return records.status();
  int skipped = 0;
  const std::vector<EvalDoc> docs = PrepareDocuments(o, ck->config, *tok, *records, &skipped);
  const int pad = tok->pad_id();
  const bool states = !o.fit.out.empty();
  const ModelRun run = RunModel(*ck, docs, pad, states);
  nlohmann::json out = {{"model", o.model_dir},         {"data", data},
                        {"documents", docs.size()},     {"skipped", skipped},
                        {"model_seconds", run.seconds}, {"model_tokens", run.tokens}};
  std::printf("## %s: %zu documents (%d skipped)\n\n", data.c_str(), docs.size(), skipped);
  RPSUM_RETURN_IF_ERROR(Report(o, *ck, docs, run, &out));
  if (!o.fit.out.empty()) {
    RPSUM_RETURN_IF_ERROR(FitRerankAndWrite(*ck, docs, run, o.fit, data, &out));
  }
  if (!o.json.empty()) std::ofstream(o.json) << out.dump(2);
  return absl::OkStatus();
}

}  // namespace rpsum::train
