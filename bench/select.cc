// bench/select: the served selection's cost per request (model::SelectSummary, docs/design.md
// section 2, step 6) on one thread: greedy, reranked on the hand features (v2.3's scoring.rerank
// off = greedy), and reranked with the net_* features reading 192-wide unit states (v2.4), side
// by side in one run, on documents of about 2,000 and 10,000 words built from
// bench/data/sample.txt, at budgets of 100 and 250 words. Scores and states are seeded random
// numbers: the cost does not depend on their values beyond which units lead. Medians of 31 runs.
// The last columns compare the v2.4 case with every one of the 17 reranking features computed, as
// selection did until it computed only the features with a weight (model/model_config.h
// RerankFeaturesRead): both choose the same summary, or it exits 1.
//   usage: bench-select SAMPLE_TEXT_FILE > bench/results/select.md
#include "model/select.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/document.h"
#include "testing/word_tokenizer.h"

namespace {

using rpsum::model::SelectOptions;

double MedianMs(const std::vector<double>& t) {
  std::vector<double> s = t;
  std::sort(s.begin(), s.end());
  return 1000 * s[s.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench-select SAMPLE_TEXT_FILE\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string base = ss.str();
  const rpsum::test::WordTokenizer tok(8000);
  std::printf(
      "| words | kept units | budget | greedy ms | reranked (hand features) ms | reranked (unit "
      "states) ms | states / greedy | unit states, all 17 features (before) ms | after / before "
      "|\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n");
  for (const int64_t target : {2000, 10000}) {
    std::string doc;
    while (rpsum::model::CountWords(doc) < target) doc += base + "\n\n";
    rpsum::model::DocumentInput input;
    input.document = doc;
    rpsum::model::PrepareOptions o;
    o.max_input_tokens = 1 << 20;
    o.max_units = 1 << 20;
    auto p = rpsum::model::Prepare(input, tok, o);
    if (!p.ok()) return 1;
    const std::vector<std::string_view> texts = p->KeptTexts(input);
    const size_t n = p->kept.size();
    const int64_t width = 192;
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> unit(0.f, 1.f);
    std::normal_distribution<float> normal(0.f, 1.f);
    std::vector<float> scores(n), states(n * width);
    for (float& x : scores) x = unit(rng);
    for (float& x : states) x = normal(rng);
    for (const double budget : {100.0, 250.0}) {
      SelectOptions greedy;
      greedy.budget = {rpsum::model::Budget::Kind::kWords, budget};
      SelectOptions hand = greedy;
      hand.rerank.top_k = 8;
      hand.rerank.max_units = 6;
      hand.rerank.weights.assign(rpsum::model::kNumRerankFeatures, 0.0);
      hand.rerank.weights[0] = 1;
      SelectOptions net = hand;
      for (int f = rpsum::model::kFirstNetRerankFeature; f < rpsum::model::kNumRerankFeatures;
           ++f) {
        net.rerank.weights[f] = 0.1;
      }
      net.rerank.weights[3] = 0.1;  // units and document_cosine: v2.4 weighs 9 of the 17
      net.rerank.weights[5] = 0.3;
      SelectOptions every = net;  // candidates with every feature computed
      every.rerank.weights.clear();
      const rpsum::model::UnitStates st{states.data(), width};
      std::vector<double> tg, th, tn, tb;
      size_t chosen = 0;
      for (int r = 0; r < 31; ++r) {  // interleaved, so drift hits all three alike
        auto time = [&](const SelectOptions& opt, rpsum::model::UnitStates st,
                        std::vector<double>* out) {
          const auto t0 = std::chrono::steady_clock::now();
          chosen += rpsum::model::SelectSummary(*p, texts, scores, opt, st).size();
          out->push_back(
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        };
        time(greedy, {}, &tg);
        time(hand, {}, &th);
        time(net, st, &tn);
        const auto t0 = std::chrono::steady_clock::now();
        const auto candidates = rpsum::model::SummaryCandidates(*p, texts, scores, every, st);
        const auto& before =
            candidates[rpsum::model::ChooseCandidate(candidates, net.rerank.weights)];
        tb.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
        if (before.units != rpsum::model::SelectSummary(*p, texts, scores, net, st)) return 1;
      }
      if (chosen == 0) return 1;
      std::printf("| %lld | %zu | %.0f | %.3f | %.3f | %.3f | %.1fx | %.3f | %.3f |\n",
                  static_cast<long long>(target), n, budget, MedianMs(tg), MedianMs(th),
                  MedianMs(tn), MedianMs(tn) / MedianMs(tg), MedianMs(tb),
                  MedianMs(tn) / MedianMs(tb));
    }
  }
  return 0;
}
