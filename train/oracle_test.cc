#include "train/oracle.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "gtest/gtest.h"

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
    std::vector<float> indicator(texts.size(), 0.f);
    for (int32_t u : GreedyOracle(texts, ref)) indicator[u] = 1.f;
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
