// bench/prepare: document preparation per request on one thread (validation, ICU units,
// SentencePiece, the unit features), before and after preparation computed only the feature
// columns the served checkpoint reads (model/model_config.h FeatureColumnsRead), side by side in
// one run, on documents of about 2,000 and 10,000 words built from the given text. "Before" is
// every column, as every request computed them until then (with the budget columns, removed
// after 3ad3e94, which bench/results/prepare.md's run still set); "after" is what the server
// does now. Medians of 15 interleaved runs.
// The columns the checkpoint reads must come out equal in both, or it exits 1.
//   usage: bench-prepare MODEL_DIR TEXT_FILE > bench/results/prepare.md
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "model/document.h"
#include "model/model_config.h"

namespace {

using rpsum::model::PreparedDocument;

double MedianMs(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return 1000 * t[t.size() / 2];
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Whether the columns in `read` are equal in both.
bool SameColumns(const PreparedDocument& a, const PreparedDocument& b,
                 const std::bitset<rpsum::model::kNumFeatures>& read) {
  if (a.features.size() != b.features.size() || a.tokens != b.tokens) return false;
  for (size_t i = 0; i < a.features.size(); ++i) {
    if (read[i % rpsum::model::kNumFeatures] && a.features[i] != b.features[i]) return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench-prepare MODEL_DIR TEXT_FILE\n");
    return 2;
  }
  const std::string dir = argv[1];
  auto config = rpsum::model::ModelConfig::FromJson(ReadFile(dir + "/config.json"));
  if (!config.ok()) {
    std::fprintf(stderr, "%s\n", config.status().ToString().c_str());
    return 1;
  }
  std::string error;
  auto tok = rpsum::model::Tokenizer::Load(dir + "/" + config->tokenizer.file, &error);
  if (!tok) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const std::string base = ReadFile(argv[2]);
  rpsum::model::PrepareOptions before;
  before.max_input_tokens = 1 << 20;
  before.max_units = 1 << 20;
  before.max_tokens_per_unit = config->tokenizer.max_tokens_per_unit;
  rpsum::model::PrepareOptions after = before;
  after.columns = rpsum::model::FeatureColumnsRead(*config);
  std::printf("Columns read by %s (version %s): %s of %d.\n\n", dir.c_str(),
              config->version.c_str(), after.columns.to_string().c_str(),
              rpsum::model::kNumFeatures);
  std::printf(
      "| words | units | tokens | before ms | after ms | after / before |\n"
      "| --- | --- | --- | --- | --- | --- |\n");
  for (const int64_t target : {2000, 10000}) {
    std::string doc;
    while (rpsum::model::CountWords(doc) < target) doc += base + "\n\n";
    rpsum::model::DocumentInput input;
    input.document = doc;
    std::vector<double> tb, ta;
    PreparedDocument last_before, last_after;
    for (int r = 0; r < 15; ++r) {  // interleaved, so drift hits both alike
      auto t0 = std::chrono::steady_clock::now();
      auto p = rpsum::model::Prepare(input, *tok, before);
      if (!p.ok()) return 1;
      tb.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      last_before = *std::move(p);
      t0 = std::chrono::steady_clock::now();
      auto q = rpsum::model::Prepare(input, *tok, after);
      if (!q.ok()) return 1;
      ta.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      last_after = *std::move(q);
    }
    if (!SameColumns(last_before, last_after, after.columns)) {
      std::fprintf(stderr, "the columns the model reads differ\n");
      return 1;
    }
    std::printf("| %lld | %zu | %lld | %.2f | %.2f | %.3f |\n", static_cast<long long>(target),
                last_after.units.size(), static_cast<long long>(last_after.num_tokens()),
                MedianMs(tb), MedianMs(ta), MedianMs(ta) / MedianMs(tb));
  }
  return 0;
}
