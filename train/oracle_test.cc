#include "train/oracle.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "model/document.h"
#include "train/rouge.h"

namespace rpsum::train {

using model::CountWords;

namespace {

TEST(Select, OracleAndTextRank) {
  const std::vector<std::string_view> texts = {
      "The weather was nice today.", "Relative position attention helps long documents.",
      "We propose clipping distances for attention.", "Lunch was served at noon."};
  const auto chosen =
      GreedyOracle(texts, "We propose relative position attention with clipped distances.");
  EXPECT_EQ(chosen, (std::vector<int32_t>{1, 2}));
  const std::vector<std::string_view> graph = {
      "Sunny skies appeared today.", "Relative position attention helps long documents.",
      "We propose clipped distances for relative attention.",
      "Attention with relative positions is cheap.", "Lunch served at noon."};
  const auto tr = TextRankScores(graph);
  ASSERT_EQ(tr.size(), 5u);
  for (int central : {1, 2, 3}) {  // the attention sentences support each other
    EXPECT_GT(tr[central], tr[0]);
    EXPECT_GT(tr[central], tr[4]);
  }
}

TEST(TrainingLabels, BinaryOracleOrMixedWithSalience) {
  const std::vector<std::string_view> texts = {"relative position attention",
                                               "relative attention is cheap", "lunch at noon"};
  const std::string_view ref = "relative position attention is cheap";
  const std::vector<int32_t> oracle = {0};
  EXPECT_EQ(TrainingLabels(texts, ref, oracle, 0.0), (std::vector<float>{1.f, 0.f, 0.f}));
  const auto soft = TrainingLabels(texts, ref, oracle, 0.5);
  ASSERT_EQ(soft.size(), 3U);
  // The oracle unit keeps the larger label; the near-miss gets credit; the unrelated unit none.
  EXPECT_GT(soft[0], soft[1]);
  EXPECT_GT(soft[1], 0.2f);
  EXPECT_FLOAT_EQ(soft[2], 0.f);
  for (float l : soft) {
    EXPECT_GE(l, 0.f);
    EXPECT_LE(l, 1.f);
  }
  // The best-matching unit's salience is 1: with soft = 1 it is the only 1.
  const auto all_soft = TrainingLabels(texts, ref, oracle, 1.0);
  EXPECT_FLOAT_EQ(*std::max_element(all_soft.begin(), all_soft.end()), 1.f);
}

// The greedy oracle written the plain way (every candidate rescored from copied counts): the
// independent check of train/oracle.cc's incremental counts.
std::vector<int32_t> ReferenceGreedy(const std::vector<std::string_view>& texts,
                                     std::string_view reference) {
  const auto ref = RougeTokenize(reference);
  const int64_t ref_words = CountWords(reference);
  std::map<std::string, int> ref1;
  std::map<std::pair<std::string, std::string>, int> ref2;
  for (size_t i = 0; i < ref.size(); ++i) {
    ++ref1[ref[i]];
    if (i + 1 < ref.size()) ++ref2[{ref[i], ref[i + 1]}];
  }
  const int ref1_total = static_cast<int>(ref.size());
  const int ref2_total = std::max<int>(0, ref1_total - 1);
  std::vector<std::vector<std::string>> toks(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) toks[i] = RougeTokenize(texts[i]);

  // Counts of the selection's unigrams and bigrams (bigrams within units: the selection's
  // token stream concatenates units, the one bigram across each join is ignored).
  std::map<std::string, int> sel1;
  std::map<std::pair<std::string, std::string>, int> sel2;
  int sel1_total = 0, sel2_total = 0;
  auto f = [](int overlap, int pred, int target) {
    if (pred == 0 || target == 0 || overlap == 0) return 0.0;
    const double p = static_cast<double>(overlap) / pred, r = static_cast<double>(overlap) / target;
    return 2 * p * r / (p + r);
  };
  auto score_with = [&](int add) {
    std::map<std::string, int> s1 = sel1;
    auto s2 = sel2;
    int t1 = sel1_total, t2 = sel2_total;
    if (add >= 0) {
      const auto& t = toks[add];
      for (size_t i = 0; i < t.size(); ++i) {
        ++s1[t[i]];
        ++t1;
        if (i + 1 < t.size()) {
          ++s2[{t[i], t[i + 1]}];
          ++t2;
        }
      }
    }
    int o1 = 0, o2 = 0;
    for (const auto& [g, c] : ref1) {
      auto it = s1.find(g);
      if (it != s1.end()) o1 += std::min(c, it->second);
    }
    for (const auto& [g, c] : ref2) {
      auto it = s2.find(g);
      if (it != s2.end()) o2 += std::min(c, it->second);
    }
    return f(o1, t1, ref1_total) + f(o2, t2, ref2_total);
  };

  std::vector<int32_t> chosen;
  std::vector<char> used(texts.size(), 0);
  double best = 0;
  int64_t words = 0;
  while (words < ref_words) {
    int best_i = -1;
    double best_score = best;
    for (size_t i = 0; i < texts.size(); ++i) {
      if (used[i] || toks[i].empty()) continue;
      const double s = score_with(static_cast<int>(i));
      if (s > best_score) {
        best_score = s;
        best_i = static_cast<int>(i);
      }
    }
    if (best_i < 0) break;
    used[best_i] = 1;
    chosen.push_back(best_i);
    best = best_score;
    for (size_t i = 0; i < toks[best_i].size(); ++i) {
      ++sel1[toks[best_i][i]];
      ++sel1_total;
      if (i + 1 < toks[best_i].size()) {
        ++sel2[{toks[best_i][i], toks[best_i][i + 1]}];
        ++sel2_total;
      }
    }
    words += CountWords(texts[best_i]);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

// Random documents of sentences over a small vocabulary, with a reference drawn from the same
// words: many near-ties, so the search order matters.
std::vector<std::string> RandomSentences(std::mt19937* rng, int n) {
  static const char* const kWords[] = {"cache",   "queue",  "request", "worker", "format", "metric",
                                       "latency", "batch",  "token",   "model",  "server", "client",
                                       "budget",  "policy", "design",  "shard"};
  std::vector<std::string> out;
  for (int i = 0; i < n; ++i) {
    std::string s;
    const int len = 3 + static_cast<int>((*rng)() % 10);
    for (int w = 0; w < len; ++w) s += std::string(w ? " " : "") + kWords[(*rng)() % 16];
    out.push_back(s + ".");
  }
  return out;
}

// The incremental greedy oracle chooses what the plain one does, near-ties included (the first
// of equal units wins), on 300 random documents.
TEST(GreedyOracle, ChoosesWhatThePlainGreedyOracleChooses) {
  std::mt19937 rng(11);
  int nonempty = 0;
  for (int doc = 0; doc < 300; ++doc) {
    const std::vector<std::string> sentences = RandomSentences(&rng, 4 + doc % 20);
    const std::vector<std::string_view> texts(sentences.begin(), sentences.end());
    std::string reference;
    for (const std::string& s : RandomSentences(&rng, 1 + doc % 4)) reference += s + " ";
    const std::vector<int32_t> chosen = GreedyOracle(texts, reference);
    ASSERT_EQ(chosen, ReferenceGreedy(texts, reference)) << "document " << doc;
    nonempty += chosen.empty() ? 0 : 1;
  }
  EXPECT_GT(nonempty, 250);
}

}  // namespace
}  // namespace rpsum::train
