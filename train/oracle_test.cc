#include "train/oracle.h"

#include <algorithm>
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

}  // namespace
}  // namespace rpsum::model
