#include "train/trainer_data.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>

#include "absl/strings/str_cat.h"
#include "model/document.h"
#include "train/oracle.h"

namespace rpsum::train {
namespace {

namespace fs = std::filesystem;
using model::kFeatureContentCentrality;
using model::kNumFeatures;
using model::kNumFeaturesV1;

// Zeroes the centrality features of a pre-training document, so the network has to learn
// salience from the text instead of copying them.
void HideCentrality(model::PreparedDocument* p) {
  for (size_t u = 0; u < p->kept.size(); ++u) {
    for (int col = kNumFeaturesV1; col <= kFeatureContentCentrality; ++col) {
      p->features[u * kNumFeatures + col] = 0;
    }
  }
}

absl::StatusOr<std::vector<CorpusRecord>> TrainingRecords(const TrainOptions& o) {
  auto records =
      o.pretrain_file.empty() ? ReadCorpusSplit(o.data_dir, "train") : ReadCorpus(o.pretrain_file);
  if (!records.ok()) return records.status();
  if (const auto n = static_cast<size_t>(o.max_docs); n > 0 && n < records->size()) {
    std::mt19937 rng(static_cast<std::mt19937::result_type>(o.seed));
    std::shuffle(records->begin(), records->end(), rng);
    records->resize(n);
  }
  return records;
}

// Labels every training document: pre-training documents by their pseudo-summary (which becomes
// their record's summary), the others by the oracle mixed with the soft salience.
void Label(const TrainOptions& o, TrainingData* data, int64_t* positives, int64_t* units) {
  for (EvalDoc& d : data->train) {
    if (!o.pretrain_file.empty()) {
      // The records own the references the labels are made from.
      CorpusRecord* record = &data->train_records[d.record - data->train_records.data()];
      record->summary = PseudoSummary(&d, o.pseudo_ratio);
      d.oracle = GreedyOracle(d.texts, record->summary);
    }
    TrainDoc t{&d.prepared, TrainingLabels(d.texts, d.record->summary, d.oracle, o.soft_labels)};
    *positives += static_cast<int64_t>(d.oracle.size());
    *units += static_cast<int64_t>(t.labels.size());
    data->docs.push_back(std::move(t));
  }
}

}  // namespace

absl::StatusOr<std::string> EnsureTokenizer(const TrainOptions& o) {
  if (!o.tokenizer.empty()) return o.tokenizer;
  std::string path = (fs::path(o.out) / "tokenizer.model").string();
  if (fs::exists(path)) return path;
  auto train = ReadCorpusSplit(o.data_dir, "train");
  if (!train.ok()) return train.status();
  const std::string lines = (fs::path(o.out) / "tokenizer_input.txt").string();
  {
    std::ofstream f(lines);
    for (const auto& r : *train) f << r.title << "\n" << r.document << "\n" << r.summary << "\n";
  }
  std::printf("training a %d-piece SentencePiece tokenizer on %zu documents...\n", o.vocab_size,
              train->size());
  std::fflush(stdout);
  model::TokenizerTrainOptions t;
  t.input_file = lines;
  t.model_prefix = (fs::path(o.out) / "tokenizer").string();
  t.vocab_size = o.vocab_size;
  t.num_threads = o.threads;
  std::string error;
  if (!model::TrainTokenizer(t, &error)) return absl::InternalError(error);
  fs::remove(lines);
  return path;
}

absl::StatusOr<TrainingData> LoadTrainingData(const TrainOptions& o,
                                              const model::ModelConfig& config,
                                              const model::Tokenizer& tokenizer) {
  TrainingData data;
  auto train = TrainingRecords(o);
  if (!train.ok()) return train.status();
  auto valid =
      ReadCorpusSplit(o.valid_dir.empty() ? o.data_dir : o.valid_dir, "valid", o.valid_docs);
  if (!valid.ok()) return valid.status();
  data.train_records = *std::move(train);
  data.valid_records = *std::move(valid);
  model::PrepareOptions prep;
  prep.max_input_tokens = o.max_tokens;
  prep.max_tokens_per_unit = config.tokenizer.max_tokens_per_unit;
  prep.truncation = model::TruncationPolicy::kHead;
  int skipped = 0, vskipped = 0;
  const auto t0 = std::chrono::steady_clock::now();
  data.train =
      PrepareCorpus(data.train_records, tokenizer, prep, o.pretrain_file.empty(), &skipped);
  model::PrepareOptions vprep = prep;
  vprep.max_input_tokens = 32768;  // validate on whole documents, as served
  data.valid = PrepareCorpus(data.valid_records, tokenizer, vprep, false, &vskipped);
  int64_t total_tokens = 0, positives = 0, units = 0;
  Label(o, &data, &positives, &units);
  for (const EvalDoc& d : data.train) total_tokens += d.prepared.num_tokens();
  std::printf(
      "prepared %zu train (%d skipped) and %zu valid documents in %.0f s: %lld tokens, "
      "%lld units, %.1f%% oracle-positive\n",
      data.docs.size(), skipped, data.valid.size(),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(),
      static_cast<long long>(total_tokens), static_cast<long long>(units),
      100.0 * static_cast<double>(positives) / static_cast<double>(std::max<int64_t>(units, 1)));
  return data;
}

std::string PseudoSummary(EvalDoc* doc, double ratio) {
  model::PreparedDocument& p = doc->prepared;
  const size_t n = doc->texts.size();
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto centrality = [&](int32_t u) {
    return p.features[u * kNumFeatures + kFeatureContentCentrality];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return centrality(a) > centrality(b); });
  int64_t words = 0;
  for (int32_t w : doc->words) words += w;
  const double budget = std::max(1.0, ratio * static_cast<double>(words));
  std::vector<int32_t> chosen;
  int64_t used = 0;
  for (int32_t u : order) {
    if (used >= budget) break;
    if (p.units[p.kept[u]].kind == model::UnitKind::kHeading) continue;
    chosen.push_back(u);
    used += doc->words[u];
  }
  std::sort(chosen.begin(), chosen.end());
  std::string summary;
  for (int32_t u : chosen) {
    if (!summary.empty()) summary += '\n';
    summary.append(doc->texts[u]);
  }
  HideCentrality(&p);
  return summary;
}

}  // namespace rpsum::train
