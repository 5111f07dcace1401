// The evaluator on a fixed tiny set with values computed by hand.
#include "train/evaluate.h"

#include "gtest/gtest.h"
#include "model/select.h"

namespace rpsum::train {
namespace {

class SpaceTokenizer : public model::Tokenizer {
 public:
  bool Encode(std::string_view text, std::vector<int32_t>* ids, std::string*) const override {
    for (char c : text) {
      if (c == ' ') ids->push_back(5);
    }
    ids->push_back(6);
    return true;
  }
  int32_t vocab_size() const override { return 10; }
  int32_t marker_id() const override { return 1; }
  int32_t pad_id() const override { return 3; }
};

TEST(Evaluate, FixedTinySetKnownValues) {
  std::vector<CorpusRecord> records(2);
  records[0].document = "Alpha beta gamma delta.\nEpsilon zeta eta theta.\nIota kappa lambda mu.";
  records[0].summary = "alpha beta gamma delta";
  records[0].references = {records[0].summary};
  records[1].document = "One two three four.\nFive six seven eight.";
  records[1].summary = "five six seven eight";
  records[1].references = {records[1].summary};
  SpaceTokenizer tok;
  int skipped = 0;
  const auto docs = PrepareCorpus(records, tok, {}, /*with_oracle=*/true, &skipped);
  ASSERT_EQ(skipped, 0);
  ASSERT_EQ(docs.size(), 2u);
  EXPECT_EQ(docs[0].reference_words, 4);
  EXPECT_EQ(docs[0].oracle, (std::vector<int32_t>{0}));
  EXPECT_EQ(docs[1].oracle, (std::vector<int32_t>{1}));

  // Lead: document 0 matches exactly (F1 1), document 1 not at all (F1 0): mean 50.
  RougeMean lead;
  for (const auto& d : docs) lead.Add(ScoreSummary(d, SummaryFromScores(d, LeadScores(d), {})));
  const RougeMean m = lead.Mean();
  EXPECT_DOUBLE_EQ(m.r1, 50.0);
  EXPECT_DOUBLE_EQ(m.r2, 50.0);
  EXPECT_DOUBLE_EQ(m.rl, 50.0);
  EXPECT_DOUBLE_EQ(m.rlsum, 50.0);
  EXPECT_EQ(m.n, 2);

  // Scores that prefer the second unit, cut to the reference length (4 words).
  EXPECT_EQ(SummaryFromScores(docs[0], {0.1f, 0.9f, 0.5f}, {}), "Epsilon zeta eta theta.");
  // Oracle: 100 on both.
  RougeMean oracle;
  for (const auto& d : docs) oracle.Add(ScoreSummary(d, SummaryFromUnits(d, d.oracle)));
  EXPECT_DOUBLE_EQ(oracle.Mean().r1, 100.0);
  // Half of a reference: "alpha beta" against "alpha beta gamma delta": P 1, R 0.5, F 2/3.
  const RougeScores half = ScoreSummary(docs[0], "Alpha beta");
  EXPECT_NEAR(half.rouge1.f, 2.0 / 3, 1e-12);
  EXPECT_NEAR(half.rouge2.f, 2 * (1.0 * (1.0 / 3)) / (1.0 + 1.0 / 3), 1e-12);
}

}  // namespace
}  // namespace rpsum::train
