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

namespace rpsum::model {
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

// The greedy oracle written the plain way (every candidate rescored from copied counts), as
// train/oracle.cc had it before it became the beam search of width 1: the independent check.
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

TEST(OracleExpectation, BeamOneIsTheGreedyOracle) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 40; ++trial) {
    const auto sentences = RandomSentences(&rng, 5 + trial);
    const auto reference = RandomSentences(&rng, 1 + trial % 4);
    std::string ref;
    for (const auto& r : reference) ref += r + " ";
    const std::vector<std::string_view> texts(sentences.begin(), sentences.end());
    const std::vector<int32_t> greedy = ReferenceGreedy(texts, ref);
    EXPECT_EQ(GreedyOracle(texts, ref), greedy) << "trial " << trial;
    std::vector<float> indicator(texts.size(), 0.f);
    for (int32_t u : greedy) indicator[u] = 1.f;
    EXPECT_EQ(OracleExpectation(texts, ref, 1), indicator) << "trial " << trial;
  }
}

TEST(OracleExpectation, SharesCreditBetweenEqualUnits) {
  // Units 0 and 2 say the same; the greedy oracle takes the first and labels the copy 0.
  const std::vector<std::string_view> texts = {
      "we propose relative attention", "lunch was served at noon", "we propose relative attention",
      "relative attention is cheap"};
  const std::string_view ref = "we propose relative attention";
  EXPECT_EQ(GreedyOracle(texts, ref), (std::vector<int32_t>{0}));
  const auto e = OracleExpectation(texts, ref, 8);
  ASSERT_EQ(e.size(), 4U);
  EXPECT_FLOAT_EQ(e[0], e[2]);  // two perfect selections, {0} and {2}, one each
  EXPECT_GT(e[0], 0.3f);
  EXPECT_FLOAT_EQ(e[1], 0.f);  // never raises the score
  EXPECT_LT(e[3], e[0]);       // in the beam's weaker selections only
  for (float v : e) {
    EXPECT_GE(v, 0.f);
    EXPECT_LE(v, 1.f);
  }
  // Nothing matches: all zero.
  EXPECT_EQ(OracleExpectation(texts, "zebra", 8), std::vector<float>(4, 0.f));
}

TEST(OracleExpectation, ValuesAreAnExpectationOverTheBeam) {
  std::mt19937 rng(3);
  int spread = 0;  // trials where the beam credits more units than the greedy oracle picks
  for (int trial = 0; trial < 20; ++trial) {
    auto sentences = RandomSentences(&rng, 30);
    sentences.insert(sentences.end(), {"zebra giraffe lion.", "giraffe zebra okapi."});
    const auto reference = RandomSentences(&rng, 3);
    const std::string ref = reference[0] + " " + reference[1] + " " + reference[2];
    const std::vector<std::string_view> texts(sentences.begin(), sentences.end());
    const auto e = OracleExpectation(texts, ref, 16);
    // Each unit's value is at most 1, and their sum is the beam's mean selection size (at
    // least one unit: some unit shares words with the reference).
    const double sum = std::accumulate(e.begin(), e.end(), 0.0);
    EXPECT_GE(sum, 1.0 - 1e-5) << "trial " << trial;
    EXPECT_LE(sum, static_cast<double>(texts.size()));
    for (float v : e) EXPECT_LE(v, 1.f + 1e-6f);
    // Units that share no word with the reference never raise the score: 0.
    for (size_t u = 30; u < texts.size(); ++u) EXPECT_FLOAT_EQ(e[u], 0.f) << "trial " << trial;
    spread += std::count_if(e.begin(), e.end(), [](float v) { return v > 0; }) >
              static_cast<int64_t>(GreedyOracle(texts, ref).size());
  }
  EXPECT_GE(spread, 10) << "the beam should spread credit over other near-optimal selections";
}

TEST(TrainingLabels, ExpectationMixesLikeTheBinaryOracle) {
  const std::vector<std::string_view> texts = {"relative position attention",
                                               "relative attention is cheap", "lunch at noon"};
  const std::string_view ref = "relative position attention is cheap";
  const std::vector<int32_t> oracle = {0};
  for (double soft : {0.0, 0.5, 1.0}) {
    EXPECT_EQ(TrainingLabels(texts, ref, std::vector<float>{1.f, 0.f, 0.f}, soft),
              TrainingLabels(texts, ref, oracle, soft));
  }
  const auto half = TrainingLabels(texts, ref, std::vector<float>{0.5f, 0.5f, 0.f}, 0.0);
  EXPECT_EQ(half, (std::vector<float>{0.5f, 0.5f, 0.f}));
}

}  // namespace
}  // namespace rpsum::model
