// bench/prepare: document preparation throughput (validation, ICU sentence units,
// SentencePiece, model input) on one thread, for a document of about 10,000 words built from
// the given text. usage: bench-prepare TOKENIZER_MODEL TEXT_FILE [words]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "model/document.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: bench-prepare TOKENIZER_MODEL TEXT_FILE [words]\n");
    return 2;
  }
  std::string error;
  auto tok = rpsum::model::Tokenizer::Load(argv[1], &error);
  if (!tok) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  std::ifstream in(argv[2]);
  std::stringstream s;
  s << in.rdbuf();
  const std::string base = s.str();
  const int64_t target = argc > 3 ? std::atol(argv[3]) : 10000;
  std::string doc;
  int64_t words = 0;
  while (words < target) {
    doc += base + "\n";
    words = 0;
    bool w = false;
    for (char c : doc) {
      const bool sp = c == ' ' || c == '\n' || c == '\t';
      if (!sp && !w) ++words;
      w = !sp;
    }
  }
  rpsum::model::DocumentInput input;
  input.document = doc;
  rpsum::model::PrepareOptions o;
  o.max_input_tokens = 1 << 20;
  o.max_sentences = 1 << 20;
  std::vector<double> t;
  int64_t tokens = 0, units = 0;
  for (int r = 0; r < 7; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    auto p = rpsum::model::Prepare(input, *tok, o);
    t.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!p.ok()) return 1;
    tokens = p->num_tokens();
    units = static_cast<int64_t>(p->units.size());
  }
  std::sort(t.begin(), t.end());
  const double med = t[t.size() / 2];
  std::printf(
      "| words | units | tokens | median ms | words/s |\n| --- | --- | --- | --- | --- |\n");
  std::printf("| %ld | %lld | %lld | %.1f | %.0f |\n", words, static_cast<long long>(units),
              static_cast<long long>(tokens), 1000 * med, words / med);
  return 0;
}
