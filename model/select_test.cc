#include "model/select.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/internal/select.h"
#include "testing/word_tokenizer.h"

namespace rpsum::model {
namespace {

TEST(Select, BudgetsAndTrigramBlocking) {
  const std::vector<std::string_view> texts = {"alpha beta gamma delta", "alpha beta gamma epsilon",
                                               "one two three", "four five six seven eight"};
  const std::vector<int32_t> words = {4, 4, 3, 5};
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.6f};
  SelectOptions o;
  o.budget = {Budget::Kind::kWords, 8};
  // Unit 1 repeats unit 0's trigram "alpha beta gamma": blocked; 0 + 2 = 7 words, 3 no longer fits.
  EXPECT_EQ(SelectByScore(scores, texts, words, o), (std::vector<int32_t>{0, 2}));
  o.trigram_blocking = false;
  EXPECT_EQ(SelectByScore(scores, texts, words, o), (std::vector<int32_t>{0, 1}));
  o.budget = {Budget::Kind::kUnits, 3};
  EXPECT_EQ(SelectByScore(scores, texts, words, o), (std::vector<int32_t>{0, 1, 2}));
  o.budget = {Budget::Kind::kWords, 1};  // the first unit always comes back
  EXPECT_EQ(SelectByScore(scores, texts, words, o), (std::vector<int32_t>{0}));
  o.budget = {Budget::Kind::kRatio, 0.5};  // 8 of 16 words
  EXPECT_EQ(SelectByScore(scores, texts, words, o), (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(JoinAndCut(texts, {0, 3}, 6), "alpha beta gamma delta\nfour five");
}

// A prepared document and its kept units' texts, with WordTokenizer.
struct Doc {
  std::string text;
  PreparedDocument prepared;
  std::vector<std::string_view> texts;
};

Doc PrepareText(std::string text, PrepareOptions o = {}, std::string_view title = {}) {
  static const test::WordTokenizer kTokenizer;
  Doc d;
  d.text = std::move(text);
  DocumentInput in;
  in.document = d.text;
  in.title = title;
  auto p = Prepare(in, kTokenizer, o);
  EXPECT_TRUE(p.ok()) << p.status();
  d.prepared = *std::move(p);
  for (size_t i = 0; i < d.prepared.kept.size(); ++i) {
    d.texts.push_back(d.prepared.UnitText(in, d.prepared.kept[i]));
  }
  return d;
}

// BudgetWords: the words a budget stands for, which the network's budget features read.
TEST(Select, BudgetWords) {
  // 10 words in 4 sentences under a 2-word heading: 2.5 words a content unit.
  const Doc d = PrepareText("# Two words\nOne two three four. Five six. Seven eight nine. Ten.");
  ASSERT_EQ(d.prepared.kept.size(), 5u);
  ASSERT_EQ(d.prepared.total_words, 13);  // "#" counts as a word
  EXPECT_EQ(BudgetWords({Budget::Kind::kWords, 7}, d.prepared), 7);
  EXPECT_EQ(BudgetWords({Budget::Kind::kRatio, 0.5}, d.prepared), 6.5);
  EXPECT_EQ(BudgetWords({Budget::Kind::kRatio, 0.01}, d.prepared), 1);  // at least one word
  EXPECT_EQ(BudgetWords({Budget::Kind::kUnits, 3}, d.prepared), 7.5);
  const Doc headings = PrepareText("# Alpha beta\n# Gamma");
  ASSERT_EQ(headings.prepared.kept.size(), 2u);
  EXPECT_EQ(BudgetWords({Budget::Kind::kUnits, 1}, headings.prepared), 2.5);
}

// ServedScores (ScoringConfig): weight 0 is the network's probability; a positive weight moves
// each unit by its own document's standardised centrality, so the same unit scores the same in
// any batch, and a document whose units are equally central keeps the network's order.
TEST(ServedScores, CentralityWeight) {
  PreparedDocument doc;
  doc.features.assign(size_t{3} * kNumFeatures, 0.f);
  const float central[3] = {0.2f, 1.0f, 0.6f};
  for (int u = 0; u < 3; ++u) {
    doc.features[(u * kNumFeatures) + kFeatureContentCentrality] = central[u];
  }
  const std::vector<float> logits = {1.0f, 0.0f, 0.5f};
  ScoringConfig none;
  const auto p = ServedScores(doc, logits, none);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_NEAR(p[0], 1 / (1 + std::exp(-1.0)), 1e-6);
  EXPECT_NEAR(p[1], 0.5, 1e-6);
  ScoringConfig fused;
  fused.centrality_weight = 2.0;
  const auto f = ServedScores(doc, logits, fused);
  // z = (c - 0.6) / sd(c), sd = sqrt(((0.4)^2 + 0.4^2 + 0) / 3).
  const double sd = std::sqrt(0.32 / 3);
  EXPECT_NEAR(f[0], 1 / (1 + std::exp(-(1.0 + 2 * (-0.4 / sd)))), 1e-5);
  EXPECT_NEAR(f[1], 1 / (1 + std::exp(-(0.0 + 2 * (0.4 / sd)))), 1e-5);
  EXPECT_NEAR(f[2], 1 / (1 + std::exp(-0.5)), 1e-5);
  EXPECT_GT(f[1], f[0]);  // centrality overturns a logit gap of 1
  for (int u = 0; u < 3; ++u) {
    doc.features[(u * kNumFeatures) + kFeatureContentCentrality] = 0.3f;
  }
  const auto flat = ServedScores(doc, logits, fused);
  for (int u = 0; u < 3; ++u) EXPECT_NEAR(flat[u], p[u], 1e-6);
}

TEST(SelectSummary, HeadingsAreChosenOnlyWhenThereIsNothingElse) {
  const Doc d = PrepareText(
      "# Motivation\nThe cache misses on every cold start of the service.\n"
      "# Design\nWe keep a warm pool of workers that share one index.\n");
  ASSERT_EQ(d.texts.size(), 4U);
  SelectOptions o;
  o.budget = {Budget::Kind::kWords, 100};
  // The headings score highest, yet the summary is the two sentences.
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, {0.9f, 0.1f, 0.8f, 0.2f}, o),
            (std::vector<int32_t>{1, 3}));
  const Doc only = PrepareText("# Motivation\n# Design\n");
  o.budget = {Budget::Kind::kUnits, 1};
  EXPECT_EQ(SelectSummary(only.prepared, only.texts, {0.1f, 0.9f}, o), (std::vector<int32_t>{1}));
}

TEST(IsFragment, ShortUnitsAndShortIntroductions) {
  EXPECT_TRUE(IsFragment("The regex!", 2));
  EXPECT_TRUE(IsFragment("Transaction data here.", 3));
  EXPECT_FALSE(IsFragment("The cache misses often.", 4));
  EXPECT_TRUE(IsFragment("For example:", 2));
  EXPECT_TRUE(IsFragment("The types of error considered are:  ", 6));
  EXPECT_TRUE(IsFragment("The architecture of clients, connections, channels and packets:", 8));
  // A longer introduction says something itself; a colon inside a unit is no introduction.
  EXPECT_FALSE(IsFragment("This proposal adds the following four variables to the gateway:", 10));
  EXPECT_FALSE(IsFragment("Keys: the index is sharded by tenant.", 7));
}

// Fragments rank below every other content unit, however high they score, and are chosen only
// when the input has nothing else (like headings); a sentence budget follows the same rule.
TEST(SelectSummary, FragmentsAreChosenOnlyWhenThereIsNothingElse) {
  const Doc d = PrepareText(
      "The cache misses on every cold start of the service.\nFor example:\n"
      "We keep a warm pool of workers that share one index.\nThe details.\n"
      "Each worker reloads the index in the background.\n");
  ASSERT_EQ(d.texts.size(), 5U);
  ASSERT_EQ(d.texts[1], "For example:");
  SelectOptions o;
  o.budget = {Budget::Kind::kWords, 25};
  const std::vector<float> scores = {0.5f, 0.9f, 0.4f, 0.8f, 0.1f};
  // 10 + 11 words; "For example:" and "The details." would still fit, yet they stay out.
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, o), (std::vector<int32_t>{0, 2}));
  o.budget = {Budget::Kind::kUnits, 3};
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, o), (std::vector<int32_t>{0, 2, 4}));
  o.rerank.top_k = 3;  // the candidates skip them too
  o.rerank.max_units = 2;
  o.rerank.weights.assign(kNumRerankFeatures, 0.0);
  o.budget = {Budget::Kind::kWords, 25};
  for (const Candidate& c : SummaryCandidates(d.prepared, d.texts, scores, o)) {
    EXPECT_EQ(std::count(c.units.begin(), c.units.end(), 1), 0) << "fragment in a candidate";
    EXPECT_EQ(std::count(c.units.begin(), c.units.end(), 3), 0) << "fragment in a candidate";
  }
  const Doc only = PrepareText("# Notes\nFor example:\nSee below.\n");
  ASSERT_EQ(only.texts.size(), 3U);
  o = {};
  o.budget = {Budget::Kind::kWords, 100};
  EXPECT_EQ(SelectSummary(only.prepared, only.texts, {0.9f, 0.1f, 0.5f}, o),
            (std::vector<int32_t>{0, 1, 2}));
}

TEST(SelectSummary, ARatioCountsTheWholeInputTruncatedUnitsIncluded) {
  std::string text;
  for (int i = 0; i < 10; ++i) text += "Sentence number " + std::to_string(i) + " has six words.\n";
  PrepareOptions o;
  o.truncation = TruncationPolicy::kHead;
  o.max_input_tokens = 40;  // keeps the first units only
  const Doc d = PrepareText(text, o);
  ASSERT_TRUE(d.prepared.truncated);
  ASSERT_LT(d.texts.size(), 10U);
  ASSERT_EQ(d.prepared.total_words, 60);
  SelectOptions s;
  s.trigram_blocking = false;
  s.budget = {Budget::Kind::kRatio, 0.2};  // 12 of the input's 60 words: two units
  const std::vector<float> scores(d.texts.size(), 0.5f);
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, s).size(), 2U);
}

TEST(SelectSummary, AlwaysAtLeastOneUnit) {
  const Doc d = PrepareText("A single sentence that is longer than the budget allows.\n");
  SelectOptions o;
  o.budget = {Budget::Kind::kWords, 1};
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, {0.3f}, o), (std::vector<int32_t>{0}));
}

// Four one-line units of 5, 5, 5 and 12 words, scored in document order.
const char kFour[] =
    "Alpha bravo charlie delta echo.\nFoxtrot golf hotel india juliet.\n"
    "Kilo lima mike november oscar.\n"
    "Papa quebec romeo sierra tango uniform victor whiskey xray yankee zulu end.\n";

SelectOptions RerankOptions(double budget_words, std::vector<double> weights) {
  SelectOptions o;
  o.budget = {Budget::Kind::kWords, budget_words};
  o.rerank.top_k = 3;
  o.rerank.max_units = 2;
  weights.resize(kNumRerankFeatures, 0.0);
  o.rerank.weights = std::move(weights);
  return o;
}

// The same options with every reranking feature computed (no weights, as fitting them reads).
SelectOptions EveryFeature(SelectOptions o) {
  o.rerank.weights.clear();
  return o;
}

// The candidates under a 10-word budget: the greedy selection first, then every subset of the
// three best units with at most two members that fits (a single unit always), filled from the
// units below them, each set once; the features are the documented ones.
TEST(SummaryCandidates, GreedyFirstThenTheSubsetsOfTheTopUnitsThatFit) {
  const Doc d = PrepareText(kFour);
  ASSERT_EQ(d.texts.size(), 4U);
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.6f};
  const auto c =
      SummaryCandidates(d.prepared, d.texts, scores, EveryFeature(RerankOptions(10, {1})));
  std::vector<std::vector<int32_t>> sets;
  sets.reserve(c.size());
  for (const Candidate& x : c) sets.push_back(x.units);
  EXPECT_EQ(sets, (std::vector<std::vector<int32_t>>{{0, 1}, {0}, {1}, {2}, {0, 2}, {1, 2}}));
  // With a 17-word budget the 12-word unit fills in after a single top unit.
  const auto wide =
      SummaryCandidates(d.prepared, d.texts, scores, EveryFeature(RerankOptions(17, {1})));
  EXPECT_EQ(wide[1].units, (std::vector<int32_t>{0, 3}));
  const Candidate& one = c[3];                // {2}: "Kilo lima mike november oscar."
  EXPECT_NEAR(one.features[0], 0.7, 1e-6);    // mean_score
  EXPECT_NEAR(one.features[3], 1.0, 1e-12);   // units
  EXPECT_NEAR(one.features[4], 0.5, 1e-12);   // fill: 5 of 10 words
  EXPECT_NEAR(one.features[7], 0.5, 1e-12);   // position: kept index 2 of 4
  EXPECT_NEAR(one.features[8], 0.5, 1e-12);   // first
  EXPECT_NEAR(one.features[9], 2.0, 1e-12);   // rank: the third best
  EXPECT_NEAR(one.features[10], 1.0, 1e-12);  // distinct: five distinct words of five
  const Candidate& two = c[0];                // {0, 1}
  EXPECT_NEAR(two.features[0], 0.85, 1e-6);
  EXPECT_NEAR(two.features[1], 0.9, 1e-6);
  EXPECT_NEAR(two.features[2], 0.8, 1e-6);
  EXPECT_NEAR(two.features[4], 1.0, 1e-12);
  EXPECT_NEAR(two.features[9], 0.5, 1e-12);
  // Off, or a budget that is not in words: no candidates.
  SelectOptions off = RerankOptions(10, {1});
  off.rerank.top_k = 0;
  EXPECT_TRUE(SummaryCandidates(d.prepared, d.texts, scores, off).empty());
  SelectOptions sentences = RerankOptions(10, {1});
  sentences.budget = {Budget::Kind::kUnits, 2};
  EXPECT_TRUE(SummaryCandidates(d.prepared, d.texts, scores, sentences).empty());
}

// No candidate holds two units that share a word trigram, or a heading when there is content.
TEST(SummaryCandidates, KeepTrigramBlockingAndSkipHeadings) {
  const Doc d = PrepareText(
      "# Overview\nThe cache warms at start.\nThe cache warms at night too.\nWorkers share "
      "one index.\n");
  ASSERT_EQ(d.texts.size(), 4U);
  const std::vector<float> scores = {0.99f, 0.9f, 0.8f, 0.7f};
  SelectOptions o = RerankOptions(100, {1});
  o.rerank.top_k = 4;
  o.rerank.max_units = 4;
  const auto c = SummaryCandidates(d.prepared, d.texts, scores, o);
  ASSERT_FALSE(c.empty());
  for (const Candidate& x : c) {
    EXPECT_EQ(std::count(x.units.begin(), x.units.end(), 0), 0) << "heading chosen";
    const bool both = std::count(x.units.begin(), x.units.end(), 1) &&
                      std::count(x.units.begin(), x.units.end(), 2);
    EXPECT_FALSE(both) << "units 1 and 2 share 'the cache warms'";
  }
  o.trigram_blocking = false;
  bool both_once = false;
  for (const Candidate& x : SummaryCandidates(d.prepared, d.texts, scores, o)) {
    both_once |= x.units == std::vector<int32_t>{1, 2, 3};
  }
  EXPECT_TRUE(both_once);
}

// Standardised features: zero mean over the candidates, all zero for one candidate.
TEST(SummaryCandidates, StandardisedFeatures) {
  std::vector<Candidate> c(3);
  for (int k = 0; k < 3; ++k) c[k].features.fill(1.0 + k);
  const auto z = StandardisedFeatures(c);
  EXPECT_NEAR(z[0][0], -1.0, 1e-5);
  EXPECT_NEAR(z[1][5], 0.0, 1e-12);
  EXPECT_NEAR(z[2][10], 1.0, 1e-5);
  EXPECT_EQ(StandardisedFeatures({c[0]})[0][3], 0.0);
}

// SelectSummary with reranking: the weights decide; ties, zero weights and budgets that are not
// in words keep the greedy selection.
TEST(SelectSummary, RerankingChoosesTheBestCandidateByItsWeights) {
  const Doc d = PrepareText(kFour);
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.6f};
  SelectOptions greedy;
  greedy.budget = {Budget::Kind::kWords, 10};
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, greedy), (std::vector<int32_t>{0, 1}));
  // min_score = 1: the single best unit has the highest minimum.
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, RerankOptions(10, {0, 0, 1})),
            (std::vector<int32_t>{0}));
  // rank = 1 (the worst-ranked units): {2}.
  EXPECT_EQ(
      SelectSummary(d.prepared, d.texts, scores, RerankOptions(10, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1})),
      (std::vector<int32_t>{2}));
  // units = 1: three candidates of two units tie; the greedy one is the earliest.
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, RerankOptions(10, {0, 0, 0, 1})),
            (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, RerankOptions(10, {})),
            (std::vector<int32_t>{0, 1}));
  SelectOptions sentences = RerankOptions(10, {0, 0, 0, 0, 0, 0, 0, 0, 0, 1});
  sentences.budget = {Budget::Kind::kUnits, 1};
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, sentences), (std::vector<int32_t>{0}));
}

// The net_* features read the unit states against the mean state of the content units, and
// SelectSummary's reranking reads them only when the states are given.
TEST(SummaryCandidates, NetFeaturesFromTheUnitStates) {
  const Doc d = PrepareText(kFour);
  const std::vector<float> scores = {0.9f, 0.8f, 0.7f, 0.6f};
  // Two-wide states: units 0 and 1 alike, 2 orthogonal to them, 3 between; document (0.75, 0.5).
  const std::vector<float> states = {1, 0, 1, 0, 0, 1, 1, 1};
  const UnitStates view{states.data(), 2};
  const int f = kFirstNetRerankFeature;
  const auto c =
      SummaryCandidates(d.prepared, d.texts, scores, EveryFeature(RerankOptions(10, {1})), view);
  ASSERT_EQ(c.size(), 6U);
  ASSERT_EQ(c[0].units, (std::vector<int32_t>{0, 1}));
  ASSERT_EQ(c[4].units, (std::vector<int32_t>{0, 2}));
  const double u0 = 0.75 / std::sqrt(0.8125), u2 = 0.5 / std::sqrt(0.8125);
  EXPECT_NEAR(c[0].features[f + 0], u0, 1e-9);   // net_coverage: the mean state is unit 0's
  EXPECT_NEAR(c[0].features[f + 1], 1.0, 1e-9);  // net_redundancy: two alike
  EXPECT_NEAR(c[0].features[f + 2], 1.0, 1e-9);  // net_max_redundancy
  EXPECT_NEAR(c[4].features[f + 0], 0.625 / std::sqrt(0.5 * 0.8125), 1e-9);
  EXPECT_NEAR(c[4].features[f + 1], 0.0, 1e-9);                              // orthogonal
  EXPECT_NEAR(c[4].features[f + 3], 0.625 / std::sqrt(0.5 * 0.8125), 1e-9);  // equal words
  EXPECT_NEAR(c[4].features[f + 4], u2, 1e-9);                               // net_min_unit_cosine
  EXPECT_NEAR(c[4].features[f + 5], (u0 + u2) / 2, 1e-9);                    // net_mean_unit_cosine
  EXPECT_NEAR(c[3].features[f + 2], 0.0, 1e-12);                             // one unit: no pair
  // Without states every net_* feature is 0.
  for (const Candidate& x :
       SummaryCandidates(d.prepared, d.texts, scores, EveryFeature(RerankOptions(10, {1})))) {
    for (int k = f; k < kNumRerankFeatures; ++k) EXPECT_EQ(x.features[k], 0.0);
  }
  // net_coverage = 1 chooses {0, 2}, the first of the two best covering candidates; without the
  // states the candidates tie and the greedy selection stays.
  std::vector<double> weights(kNumRerankFeatures, 0.0);
  weights[f] = 1;
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, RerankOptions(10, weights), view),
            (std::vector<int32_t>{0, 2}));
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, RerankOptions(10, weights)),
            (std::vector<int32_t>{0, 1}));
  RerankConfig r = RerankOptions(10, weights).rerank;
  EXPECT_TRUE(NeedsUnitStates(r));
  r.weights[f] = 0;
  EXPECT_FALSE(NeedsUnitStates(r));
  r.weights[0] = 1;
  EXPECT_FALSE(NeedsUnitStates(r));
}

// Every candidate's word and state features are its own, however many candidates came before it
// (the per-document word ids, count arrays and cosine caches carry nothing from one candidate to
// the next): each one recomputed from its units' texts and states alone.
TEST(SummaryCandidates, EveryCandidatesFeaturesAreItsOwn) {
  const Doc d = PrepareText(
      "Cache entries expire after ten minutes of idle time.\nThe index keeps entries sorted by "
      "expiry time.\nWorkers read the index without locks.\nEach worker owns a shard of the "
      "cache.\nShards rebalance when workers join.\nThe index is rebuilt nightly from the log.\n");
  const size_t n = d.texts.size();
  ASSERT_EQ(n, 6U);
  const std::vector<float> scores = {0.9f, 0.85f, 0.8f, 0.7f, 0.6f, 0.5f};
  const int64_t width = 3;
  std::vector<float> states(n * width);
  for (size_t k = 0; k < states.size(); ++k) states[k] = std::sin(1.0 + 0.7 * k);
  SelectOptions o = EveryFeature(RerankOptions(30, {1}));
  o.rerank.top_k = 5;
  o.rerank.max_units = 3;
  const auto c = SummaryCandidates(d.prepared, d.texts, scores, o, {states.data(), width});
  ASSERT_GT(c.size(), 10U);
  auto content = [&](const std::vector<int32_t>& units) {
    std::map<std::string, double> m;
    for (int32_t u : units) {
      for (const std::string& w : Words(d.texts[u])) {
        if (w.size() >= 4) m[w] += 1;
      }
    }
    return m;
  };
  auto norm = [](const std::vector<double>& x) {
    double s = 0;
    for (double v : x) s += v * v;
    return std::sqrt(s);
  };
  auto cosine = [&](const std::vector<double>& a, const std::vector<double>& b) {
    double dot = 0;
    for (size_t j = 0; j < a.size(); ++j) dot += a[j] * b[j];
    return dot / (norm(a) * norm(b));
  };
  auto state = [&](int32_t u) {
    return std::vector<double>(states.begin() + u * width, states.begin() + (u + 1) * width);
  };
  std::vector<int32_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  const auto document = content(all);
  std::vector<double> document_state(width, 0.0);
  for (int32_t u : all) {
    for (int64_t j = 0; j < width; ++j) document_state[j] += state(u)[j] / n;
  }
  for (const Candidate& x : c) {
    const auto own = content(x.units);
    double dot = 0, own_sq = 0, doc_sq = 0;
    for (const auto& [w, k] : own) dot += k * document.at(w), own_sq += k * k;
    for (const auto& [w, k] : document) doc_sq += k * k;
    EXPECT_NEAR(x.features[5], dot / std::sqrt(own_sq * doc_sq), 1e-12);  // document_cosine
    std::set<std::string> distinct;
    double tokens = 0;
    std::vector<double> weighted(width, 0.0), plain(width, 0.0);
    double words = 0, pairs = 0, sum_pair = 0, max_pair = -2, min_unit = 2, sum_unit = 0;
    for (size_t a = 0; a < x.units.size(); ++a) {
      const int32_t u = x.units[a];
      const auto w = Words(d.texts[u]);
      distinct.insert(w.begin(), w.end());
      tokens += w.size();
      const double uw = d.prepared.units[d.prepared.kept[u]].words;
      words += uw;
      for (int64_t j = 0; j < width; ++j) {
        weighted[j] += uw * state(u)[j];
        plain[j] += state(u)[j] / x.units.size();
      }
      min_unit = std::min(min_unit, cosine(state(u), document_state));
      sum_unit += cosine(state(u), document_state);
      for (size_t b = a + 1; b < x.units.size(); ++b) {
        const double p = cosine(state(u), state(x.units[b]));
        sum_pair += p, max_pair = std::max(max_pair, p), pairs += 1;
      }
    }
    EXPECT_NEAR(x.features[10], distinct.size() / tokens, 1e-12);  // distinct
    const int f = kFirstNetRerankFeature;
    for (double& v : weighted) v /= words;
    EXPECT_NEAR(x.features[f + 0], cosine(weighted, document_state), 1e-9);
    EXPECT_NEAR(x.features[f + 1], pairs > 0 ? sum_pair / pairs : 0.0, 1e-9);
    EXPECT_NEAR(x.features[f + 2], pairs > 0 ? max_pair : 0.0, 1e-9);
    EXPECT_NEAR(x.features[f + 3], cosine(plain, document_state), 1e-9);
    EXPECT_NEAR(x.features[f + 4], min_unit, 1e-9);
    EXPECT_NEAR(x.features[f + 5], sum_unit / x.units.size(), 1e-9);
  }
}

// Selection computes only the features it weighs (RerankFeaturesRead): the others are 0, the
// weighed ones equal their values with every feature computed, and so the choice is the one
// made from every feature. With no weights (fitting them), every feature is computed.
TEST(SummaryCandidates, OnlyTheWeighedFeaturesAreComputed) {
  const Doc d = PrepareText(
      "Cache entries expire after ten minutes of idle time.\nThe index keeps entries sorted by "
      "expiry time.\nWorkers read the index without locks.\nEach worker owns a shard of the "
      "cache.\n",
      PrepareOptions{}, "The cache index");
  const std::vector<float> scores = {0.9f, 0.85f, 0.8f, 0.7f};
  const std::vector<float> states = {1, 0, 1, 1, 0, 1, 1, 1};
  const UnitStates view{states.data(), 2};
  std::vector<double> weights(kNumRerankFeatures, 0.0);
  weights[0] = 1, weights[kRerankDistinct] = -0.5, weights[kRerankTitleShare] = 0.3;
  weights[kFirstNetRerankFeature + 1] = -0.4;
  const SelectOptions o = RerankOptions(20, weights);
  EXPECT_EQ(RerankFeaturesRead(o.rerank).count(), 4U);
  EXPECT_EQ(RerankFeaturesRead(EveryFeature(o).rerank).count(), size_t{kNumRerankFeatures});
  const auto some = SummaryCandidates(d.prepared, d.texts, scores, o, view);
  const auto all = SummaryCandidates(d.prepared, d.texts, scores, EveryFeature(o), view);
  ASSERT_EQ(some.size(), all.size());
  ASSERT_GT(some.size(), 3U);
  bool title_seen = false;
  for (size_t k = 0; k < some.size(); ++k) {
    ASSERT_EQ(some[k].units, all[k].units);
    for (int f = 0; f < kNumRerankFeatures; ++f) {
      EXPECT_EQ(some[k].features[f], weights[f] != 0 ? all[k].features[f] : 0.0) << k << " " << f;
    }
    title_seen |= all[k].features[kRerankTitleShare] > 0;
  }
  EXPECT_TRUE(title_seen);  // the title column reaches the feature
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, o, view),
            all[ChooseCandidate(all, weights)].units);
}

// Boilerplate sections (by heading) and paragraphs (by their words) are left out unless kept,
// and found wherever they stand.
TEST(SelectSummary, BoilerplateIsLeftOutUnlessKept) {
  const Doc d = PrepareText(
      "Design of the cache\n"
      "The cache keeps recent pages in memory for fast access by its readers.\n"
      "It evicts the least recently used page when the memory is full again.\n\n"
      "Copyright (c) 2024 The Cache Authors, all rights reserved by them here.\n\n"
      "References\n"
      "The first paper describes caching policies in great depth for its readers.\n"
      "Appendix B: GNU Free Documentation License\n"
      "Permission is granted to copy, distribute and modify this document freely.\n"
      "To use this License in a document you have written, include a copy of it.\n");
  ASSERT_EQ(d.texts.size(), 9U);
  const Boilerplate b = FindBoilerplate(d.prepared, d.texts);
  EXPECT_EQ(b.units, (std::vector<bool>{false, false, false, true, true, true, true, true, true}));
  EXPECT_EQ(b.sections, (std::vector<int32_t>{4, 6}));
  EXPECT_EQ(b.paragraphs, 1);
  // The boilerplate scores highest; it is chosen only when kept.
  const std::vector<float> scores = {0.1f, 0.5f, 0.4f, 0.9f, 0.1f, 0.9f, 0.1f, 0.9f, 0.9f};
  SelectOptions o;
  o.budget = {Budget::Kind::kUnits, 2};
  EXPECT_EQ(SelectSummary(d.prepared, d.texts, scores, o), (std::vector<int32_t>{1, 2}));
  o.keep_boilerplate = true;
  const std::vector<int32_t> kept = SelectSummary(d.prepared, d.texts, scores, o);
  EXPECT_TRUE(std::any_of(kept.begin(), kept.end(), [&](int32_t i) { return b.units[i]; }));
  // A document of boilerplate alone is still summarized.
  const Doc only = PrepareText(
      "License\nPermission is granted to copy, distribute and modify this document freely.\n");
  o.keep_boilerplate = false;
  o.budget = {Budget::Kind::kUnits, 1};
  EXPECT_EQ(SelectSummary(only.prepared, only.texts, {0.1f, 0.9f}, o), (std::vector<int32_t>{1}));
}

TEST(Boilerplate, HeadingsAndTexts) {
  for (const char* h :
       {"References", "12. References", "Appendix B: GNU General Public License",
        "Table of Contents", "Release Notes", "A.3 Bibliography", "LICENSE", "Third-party licenses",
        "Revision history:", "Acknowledgements", "Apache License, Version 2.0", "License terms"}) {
    EXPECT_TRUE(IsBoilerplateHeading(h)) << h;
  }
  for (const char* h : {"Design", "Proposed changes", "Licensing model for plugins", "History",
                        "How the license check works", "Apache Kafka's index design",
                        "Reference implementation", "Indexing strategy", "Contents of a page"}) {
    EXPECT_FALSE(IsBoilerplateHeading(h)) << h;
  }
  EXPECT_TRUE(IsBoilerplateText("These may be placed in the \"History\" section of this License."));
  EXPECT_TRUE(
      IsBoilerplateText("THE SOFTWARE IS PROVIDED \"AS IS\", WITHOUT WARRANTY OF ANY KIND"));
  EXPECT_FALSE(IsBoilerplateText("The plugin is licensed under the MIT license, which we accept."));
}

// The outline: a section per heading (and one for the text before the first), each summarized
// within its share of the budget; a small section and a boilerplate one get no summary.
TEST(SummarizeSections, SectionsSharesAndTheirOwnSentences) {
  std::string text = "An opening sentence of the document tells what the service does for users.\n";
  text += "Design\n";
  for (int i = 0; i < 6; ++i) {
    text += "The cache keeps page " + std::to_string(i) +
            " in memory for fast access by all of its many readers today.\n";
  }
  text += "Risks\nA short risk here is noted.\nReferences\n";
  for (int i = 0; i < 4; ++i) {
    text += "A paper number " + std::to_string(i) +
            " describes caching policies in depth for readers.\n";
  }
  const Doc d = PrepareText(text);
  std::vector<float> scores(d.texts.size(), 0.5f);
  scores[3] = 0.9f;  // the second unit of Design
  SelectOptions o;
  o.budget = {Budget::Kind::kWords, 60};
  const std::vector<OutlineSection> s = SummarizeSections(d.prepared, d.texts, scores, o);
  ASSERT_EQ(s.size(), 4U);
  EXPECT_EQ(s[0].heading, -1);
  EXPECT_EQ(s[0].words, 13);
  EXPECT_TRUE(s[0].chosen.empty());  // under kMinSectionWords
  EXPECT_EQ(d.texts[s[1].heading], "Design");
  EXPECT_EQ(s[1].first, 1);
  EXPECT_EQ(s[1].end, 8);
  EXPECT_EQ(s[1].words, 6 * 17);
  // The only section with a summary: all 60 words are its, and its best unit comes first.
  ASSERT_FALSE(s[1].chosen.empty());
  EXPECT_LE(s[1].chosen.size(), 4U);
  EXPECT_NE(std::find(s[1].chosen.begin(), s[1].chosen.end(), 3), s[1].chosen.end());
  for (int32_t i : s[1].chosen) EXPECT_TRUE(i >= s[1].first && i < s[1].end);
  EXPECT_TRUE(s[2].chosen.empty());
  EXPECT_TRUE(s[3].boilerplate);
  EXPECT_TRUE(s[3].chosen.empty());
  // Kept, the references share the budget by their words.
  o.keep_boilerplate = true;
  const std::vector<OutlineSection> kept = SummarizeSections(d.prepared, d.texts, scores, o);
  EXPECT_FALSE(kept[3].boilerplate);
  EXPECT_FALSE(kept[3].chosen.empty());
}

}  // namespace
}  // namespace rpsum::model
