#include "train/rouge.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

#include "gtest/gtest.h"
#include "testing/source_dir.h"
#include "train/corpus.h"

namespace rpsum::train {

using test::TestSourceDir;

namespace {

constexpr double kTol = 1e-5;

void ExpectScore(const RougeScore& s, double p, double r, double f, double tol = kTol) {
  EXPECT_NEAR(s.precision, p, tol);
  EXPECT_NEAR(s.recall, r, tol);
  EXPECT_NEAR(s.f, f, tol);
}

// Cases from google-research/rouge rouge_scorer_test.py (Apache-2.0): score(target, prediction).
TEST(Rouge, PublishedSimpleCases) {
  ExpectScore(Rouge("testing one two", "testing").rouge1, 1, 1.0 / 3, 0.5);
  ExpectScore(Rouge("testing one two", "testing one").rouge2, 1, 0.5, 2.0 / 3);
  ExpectScore(Rouge("testing one two", "testing one").rougeL, 1, 2.0 / 3, 0.8);
  ExpectScore(Rouge("testing one two", "testing two").rougeL, 1, 2.0 / 3, 0.8);
  const RougeScores multi = Rouge("testing one two", "testing one");
  ExpectScore(multi.rouge1, 1, 2.0 / 3, 0.8);
  for (const RougeScore& s :
       {Rouge("testing one two", "").rouge1, Rouge("testing one two", "").rouge2,
        Rouge("testing one two", "").rougeL, Rouge("testing one two", "").rougeLsum}) {
    ExpectScore(s, 0, 0, 0);
  }
}

TEST(Rouge, PublishedLsumCases) {
  ExpectScore(Rouge("w1 w2 w3 w4 w5", "w1 w2 w6 w7 w8\nw1 w3 w8 w9 w5").rougeLsum, 0.4, 0.8, 0.5333,
              1e-3);
  ExpectScore(Rouge("w1 w2 w3 w4 w5", "").rougeLsum, 0, 0, 0);
  ExpectScore(Rouge("", "w1").rougeLsum, 0, 0, 0);
  ExpectScore(Rouge("w1 w2 w3 w4 w5", "/").rougeLsum, 0, 0, 0);
  // testSummaryLevelLcs: tokens as words.
  ExpectScore(RougeLsum({{"1", "2", "3", "4", "5"}},
                        {{"1", "2", "6", "7", "8"}, {"1", "3", "8", "9", "5"}}),
              0.4, 0.8, 0.5333, 1e-3);
  EXPECT_EQ(RougeLsum({{"reference"}}, {{}}).recall, 0.0);
}

// rouge-score's testdata/target.txt and prediction.txt (two pairs) with the values its tests
// took from ROUGE-1.5.5.
const char* const kTargets[] = {
    "ZfbCUIUuePaiLVUlCaUXxkpu XPeWing tUHfPMuZ',-Xd Y BrUgVJing M-HV.-DgdDaY.rFDJCRing Ht-LM "
    "EKBDXkME,yz'RBr q'wtion wIojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxer tKM L\n",
    "KsJdPByEtAor fE-Qg Dpdbring cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMtion psing sbKao "
    "Q m qiing LMmer HqqLFXe,XPY,J XsurkMer ,ed nB'wH'bWVHjWFEing tQ.saefZwJtKrTlixYpMMsJing "
    "UCAPwNHeYVjDing c T BUySKtion gMPfJpwGw p'NvxAoping eu pBwMBKV'I DNxqelhu,PHPxDEq,mtion SN\n"};
const char* const kPredictions[] = {
    "rFDJCRtion Ht-LM EKtDXkME,yz'RBr q'wer wrojNbN wL,b .a-'XdQggyFl jB-RPP'iyOIcUxi\n",
    "n cw-WeFyu vC MoBL Xdn g wkvcEiGvKtion BDFhrpMer pstion sbKao Q m qier LMmed HqqLFXe,XPY,J "
    "XsurkMeo ,ed nB'wH'bWVHjWFEer tQ.saefZwJtKrTlixYpMMNJtion UCAPwNHeYVjD\n"};

TEST(Rouge, AgreesWithRouge155OnPublishedPairs) {
  const RougeScores a = Rouge(kTargets[0], kPredictions[0], /*stem=*/false);
  ExpectScore(a.rouge1, 0.68750, 0.40741, 0.51163);
  ExpectScore(a.rouge2, 0.53333, 0.30769, 0.39024);
  ExpectScore(a.rougeL, 0.68750, 0.40741, 0.51163);
  const RougeScores b = Rouge(kTargets[1], kPredictions[1], /*stem=*/false);
  ExpectScore(b.rouge1, 0.65385, 0.40476, 0.50000);
  ExpectScore(b.rouge2, 0.48000, 0.29268, 0.36364);
  ExpectScore(b.rougeL, 0.65385, 0.40476, 0.50000);
  const RougeScores as = Rouge(kTargets[0], kPredictions[0], /*stem=*/true);
  ExpectScore(as.rouge1, 0.68750, 0.40741, 0.51163);
  ExpectScore(as.rouge2, 0.53333, 0.30769, 0.39024);
  const RougeScores bs = Rouge(kTargets[1], kPredictions[1], /*stem=*/true);
  ExpectScore(bs.rouge1, 0.69231, 0.42857, 0.52941);
  ExpectScore(bs.rouge2, 0.48000, 0.29268, 0.36364);
}

TEST(Rouge, HandComputed) {
  // Tokens: "the cat sat on the mat" vs "the cat is on a mat": unigram overlap the,cat,on,mat
  // = 4 of 6 and 6; bigrams (the cat) = 1 of 5; LCS the cat on mat = 4.
  const RougeScores s = Rouge("The cat sat on the mat.", "the cat is on a mat");
  ExpectScore(s.rouge1, 4.0 / 6, 4.0 / 6, 4.0 / 6);
  ExpectScore(s.rouge2, 1.0 / 5, 1.0 / 5, 1.0 / 5);
  ExpectScore(s.rougeL, 4.0 / 6, 4.0 / 6, 4.0 / 6);
  // Stemming conflates inflections: "running dogs" vs "run dog".
  EXPECT_NEAR(Rouge("running dogs", "run dog").rouge1.f, 1.0, 1e-9);
  EXPECT_NEAR(Rouge("running dogs", "run dog", false).rouge1.f, 0.0, 1e-9);
}

TEST(Porter, PaperExamples) {
  const std::pair<const char*, const char*> cases[] = {
      {"caresses", "caress"},       {"ponies", "poni"},       {"cats", "cat"},
      {"agreed", "agre"},           {"plastered", "plaster"}, {"motoring", "motor"},
      {"hopping", "hop"},           {"falling", "fall"},      {"filing", "file"},
      {"happy", "happi"},           {"relational", "relat"},  {"conformabli", "conform"},
      {"triplicate", "triplic"},    {"adjustment", "adjust"}, {"controll", "control"},
      {"generalizations", "gener"}, {"oscillators", "oscil"}};
  for (const auto& [w, s] : cases) EXPECT_EQ(PorterStem(w), s) << w;
}

std::string DataDir() {
  const char* env = std::getenv("RPSUM_DATA_DIR");
  return env != nullptr ? env : TestSourceDir() + "/../shared/data";
}

// Our stemmer against NLTK's PorterStemmer(ORIGINAL_ALGORITHM) on the vocabulary of the valid
// split (every token rouge-score would stem).
TEST(Porter, MatchesNltkOnCorpusVocabulary) {
  auto corpus = ReadCorpus(DataDir() + "/corpus/valid.jsonl.gz");
  // ../shared/data is an input of the gate, like the source tree: missing, it is a failure.
  ASSERT_TRUE(corpus.ok()) << corpus.status() << " (set RPSUM_DATA_DIR to the data folder)";
  std::set<std::string> vocab;
  for (const auto& r : *corpus) {
    for (const auto& t : RougeTokenize(r.document + " " + r.summary, /*stem=*/false)) {
      if (t.size() > 3) vocab.insert(t);
    }
  }
  const auto dir = std::filesystem::temp_directory_path();
  const std::string in = (dir / ("porter_in_" + std::to_string(getpid()))).string();
  const std::string out = (dir / ("porter_out_" + std::to_string(getpid()))).string();
  {
    std::ofstream f(in);
    for (const auto& w : vocab) f << w << "\n";
  }
  const std::string cmd =
      "/usr/bin/python3 " + TestSourceDir() + "/train/reference/porter_nltk.py " + in + " " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream f(out);
  std::string expected;
  int mismatches = 0;
  for (const auto& w : vocab) {
    ASSERT_TRUE(std::getline(f, expected));
    if (PorterStem(w) != expected && ++mismatches <= 10) {
      ADD_FAILURE() << w << ": ours " << PorterStem(w) << ", NLTK " << expected;
    }
  }
  EXPECT_EQ(mismatches, 0) << "of " << vocab.size() << " words";
  std::printf("porter: %zu corpus words, %d mismatches against NLTK\n", vocab.size(), mismatches);
  std::filesystem::remove(in);
  std::filesystem::remove(out);
}

}  // namespace
}  // namespace rpsum::train
