#include "model/document.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "testing/source_dir.h"
#include "testing/word_tokenizer.h"
#include "train/corpus.h"

namespace rpsum::model {

using test::TestSourceDir;
using train::ReadCorpus;

namespace {

namespace fs = std::filesystem;

std::string DataDir() {
  const char* env = std::getenv("RPSUM_DATA_DIR");
  return env != nullptr ? env : TestSourceDir() + "/../shared/data";
}

std::vector<std::string> Texts(std::string_view doc, const std::vector<Unit>& units) {
  std::vector<std::string> out;
  out.reserve(units.size());
  for (const Unit& u : units) out.emplace_back(doc.substr(u.begin, u.end - u.begin));
  return out;
}

// A tiny tokenizer trained once on a few training documents: proves the training path.
class PrepareTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("rpsum_prep_" + std::to_string(getpid())));
    fs::create_directories(*dir_);
    const std::string input = (*dir_ / "lines.txt").string();
    {
      std::ofstream out(input);
      auto corpus = ReadCorpus(DataDir() + "/corpus/train.jsonl.gz", 40);
      if (corpus.ok()) {
        for (const auto& r : *corpus) out << r.document << "\n" << r.summary << "\n";
      } else {  // no data here: a small built-in text still trains a tokenizer
        for (int i = 0; i < 200; ++i) {
          out << "The quick brown fox " << i << " jumps over the lazy dog. Dr. Smith agrees.\n";
        }
      }
    }
    TokenizerTrainOptions o;
    o.input_file = input;
    o.model_prefix = (*dir_ / "tok").string();
    o.vocab_size = 400;
    std::string error;
    ASSERT_TRUE(TrainTokenizer(o, &error)) << error;
    tokenizer_ = Tokenizer::Load(o.model_prefix + ".model", &error).release();
    ASSERT_NE(tokenizer_, nullptr) << error;
  }
  static void TearDownTestSuite() {
    delete tokenizer_;
    fs::remove_all(*dir_);
    delete dir_;
  }

  static absl::StatusOr<PreparedDocument> Doc(std::string_view text, PrepareOptions o = {}) {
    DocumentInput in;
    in.document = text;
    return Prepare(in, *tokenizer_, o);
  }

  static fs::path* dir_;
  static Tokenizer* tokenizer_;
};
fs::path* PrepareTest::dir_ = nullptr;
Tokenizer* PrepareTest::tokenizer_ = nullptr;

TEST(SplitUnits, AbbreviationsDoNotSplit) {
  const std::string doc =
      "We met Dr. Smith at the U.S. office yesterday. Use a map, e.g. a hash map, for this. "
      "Version v1.2 ships in May. See Fig. 3 and J. Smith's note. The end.";
  const auto units = SplitUnits(doc);
  EXPECT_EQ(
      Texts(doc, units),
      (std::vector<std::string>{
          "We met Dr. Smith at the U.S. office yesterday.", "Use a map, e.g. a hash map, for this.",
          "Version v1.2 ships in May.", "See Fig. 3 and J. Smith's note.", "The end."}));
}

TEST(SplitUnits, TechnicalTextKeepsItsSentencesWhole) {
  // ICU breaks after every '!' and '?' and inside parentheses; each line below is one sentence.
  const std::vector<std::string> sentences = {
      "The regex! compiler plugin builds the automaton at compile time.",
      "To facilitate this, lazy_static! can be used for the global.",
      "Store the value when x != 0 and skip it otherwise.",
      "Scripts starting with #!python are rewritten at install time.",
      "A shebang line of '#! /usr/bin/python' works too.",
      "Note that catch { foo()? } is equivalent to foo().",
      "The wallet calls web+cardano://browse/v1?uri=<uri> to open a page.",
      "Actors need no direct addresses (eg. IP, onion) of their peers.",
      "A bug outside their responsibilities (ex. Valora) is not penalised.",
      "Core primitives (abbrev. UPLC) appear in validators.",
      "2. Block storm fix",
      "iv. Reapplication constraint",
      "1.2. Design of the cache"};
  std::string doc;
  for (const std::string& s : sentences) doc += s + "\n";
  EXPECT_EQ(Texts(doc, SplitUnits(doc)), sentences);
  // Real sentence ends still split: '?' or '!' before a capital, a closed parenthesis, and a
  // parenthesis left open (within 4 segments nothing closes it).
  const std::string two =
      "Why not pip? It needs a network. Yes. Sure. Stop! Then wait (see below). Read (this. It is "
      "long. "
      "Very long. Really. Done.";
  EXPECT_EQ(Texts(two, SplitUnits(two)),
            (std::vector<std::string>{"Why not pip?", "It needs a network.", "Yes.", "Sure.",
                                      "Stop!", "Then wait (see below).", "Read (this.",
                                      "It is long.", "Very long.", "Really.", "Done."}));
}

TEST(SplitUnits, LinesHeadingsListsAndTables) {
  const std::string doc =
      "Motivation\n"
      "The current design is slow. It copies every buffer twice.\n"
      "\n"
      "- First item of the list is here. It has two sentences.\n"
      "- Second item of the list is here.\n"
      "| a | b |\n"
      "## Detailed design\n"
      "A line without a break\nthat continues on the next line.\n";
  const auto units = SplitUnits(doc);
  ASSERT_EQ(units.size(), 10u) << ::testing::PrintToString(Texts(doc, units));
  EXPECT_EQ(units[0].kind, UnitKind::kHeading);
  EXPECT_TRUE(units[0].paragraph_start);
  EXPECT_EQ(units[1].kind, UnitKind::kSentence);
  EXPECT_TRUE(units[1].paragraph_start);  // after a heading
  EXPECT_FALSE(units[2].paragraph_start);
  EXPECT_EQ(units[3].kind, UnitKind::kListItem);  // a list item keeps its sentences apart
  EXPECT_EQ(units[4].kind, UnitKind::kListItem);
  EXPECT_FALSE(units[4].paragraph_start);
  EXPECT_EQ(units[5].kind, UnitKind::kListItem);
  EXPECT_TRUE(units[5].paragraph_start);  // each item starts a block
  EXPECT_EQ(units[6].kind, UnitKind::kTableRow);
  EXPECT_EQ(units[7].kind, UnitKind::kHeading);
  // A short unpunctuated line reads as a heading (the corpus joins hard-wrapped lines), and a
  // unit never crosses a line break, even mid-sentence.
  EXPECT_EQ(units[8].kind, UnitKind::kHeading);
  EXPECT_EQ(Texts(doc, units)[9], "that continues on the next line.");
  for (const auto& t : Texts(doc, units)) EXPECT_EQ(t.find('\n'), std::string::npos) << t;
}

TEST(SplitUnits, IsHeadingLineIsItsHeadingRule) {
  EXPECT_TRUE(IsHeadingLine("Motivation"));
  EXPECT_TRUE(IsHeadingLine("# Why we do this."));  // '#' wins over punctuation
  EXPECT_TRUE(IsHeadingLine("1.2 Design of the cache"));
  EXPECT_FALSE(IsHeadingLine("The cache is bounded."));
  EXPECT_FALSE(IsHeadingLine("- a list item"));
  EXPECT_FALSE(IsHeadingLine("| a | table |"));
  EXPECT_FALSE(IsHeadingLine("one two three four five six seven eight nine ten eleven twelve 13"));
  EXPECT_FALSE(IsHeadingLine(""));
  // SplitUnits makes exactly these lines heading units.
  const std::string doc = "Motivation\nThe cache is bounded.\n- a list item\n1.2 Design of it";
  std::vector<bool> headings;
  for (const Unit& u : SplitUnits(doc)) headings.push_back(u.kind == UnitKind::kHeading);
  EXPECT_EQ(headings, (std::vector<bool>{true, false, false, true}));
}

TEST(SplitUnits, UnicodeOffsetsAreBytes) {
  const std::string doc =
      "日本語の文です。二つ目の文です。\nEmoji 🎉 are fine here. Ünïcödé works too!";
  const auto units = SplitUnits(doc);
  const auto texts = Texts(doc, units);
  ASSERT_EQ(texts.size(), 4u) << ::testing::PrintToString(texts);
  EXPECT_EQ(texts[0], "日本語の文です。");
  EXPECT_EQ(texts[1], "二つ目の文です。");
  EXPECT_EQ(texts[2], "Emoji 🎉 are fine here.");
  EXPECT_EQ(texts[3], "Ünïcödé works too!");
}

TEST(SplitUnits, ShortUnitsAreFlagged) {
  const std::string doc = "Yes. This sentence has many more words in it.";
  const auto units = SplitUnits(doc);
  ASSERT_EQ(units.size(), 2u);
  EXPECT_TRUE(units[0].is_short);
  EXPECT_FALSE(units[1].is_short);
}

// Chinese and Japanese: units end at 。！？ (and the full-width forms), each ideograph or kana
// is a word-equivalent, and a short line without punctuation is a heading.
TEST(SplitUnits, ChineseAndJapaneseSentencesAndWords) {
  EXPECT_EQ(CountWords("我们使用缓存。"), 6);
  EXPECT_EQ(CountWords("使用gRPC服务"), 5);
  EXPECT_EQ(CountWords("キャッシュを使う"), 8);
  EXPECT_EQ(CountWords("캐시를 사용한다"), 2);  // Hangul is written with spaces
  EXPECT_EQ(CountWords("「引用」、逗号"), 4);
  EXPECT_EQ(CountWords("plain English words"), 3);

  const std::string zh = "缓存设计\n第一句话很重要。第二句话也很重要！第三句话呢？最后一句没有标点";
  const std::vector<Unit> units = SplitUnits(zh);
  ASSERT_EQ(units.size(), 5U);
  EXPECT_EQ(units[0].kind, UnitKind::kHeading);
  EXPECT_EQ(Texts(zh, units),
            (std::vector<std::string>{"缓存设计", "第一句话很重要。", "第二句话也很重要！",
                                      "第三句话呢？", "最后一句没有标点"}));
  EXPECT_EQ(units[1].words, 7);
  EXPECT_FALSE(units[1].is_short);

  const std::string ja = "これは最初の文です。これは二番目の文です！本当ですか？";
  EXPECT_EQ(
      Texts(ja, SplitUnits(ja)),
      (std::vector<std::string>{"これは最初の文です。", "これは二番目の文です！", "本当ですか？"}));
}

TEST(Utf8, FindsTheFirstInvalidByte) {
  EXPECT_EQ(FirstInvalidUtf8("plain ascii"), -1);
  EXPECT_EQ(FirstInvalidUtf8("h\xc3\xa9llo \xf0\x9f\x8e\x89"), -1);
  EXPECT_EQ(FirstInvalidUtf8("abc\xff"), 3);
  EXPECT_EQ(FirstInvalidUtf8("ab\xc3"), 2);                // truncated sequence
  EXPECT_EQ(FirstInvalidUtf8("a\xc0\xaf"), 1);             // overlong
  EXPECT_EQ(FirstInvalidUtf8("a\xed\xa0\x80"), 1);         // surrogate
  EXPECT_EQ(FirstInvalidUtf8("a\xf4\x90\x80\x80"), 1);     // above U+10FFFF
  EXPECT_EQ(FirstInvalidUtf8("\xe2\x82\xac ok \x80"), 7);  // stray continuation
}

TEST_F(PrepareTest, BadInputsGetPreciseErrors) {
  auto expect = [](const absl::Status& s, const std::string& part) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_NE(s.message().find(part), std::string::npos) << s;
  };
  expect(Doc("").status(), "document is empty");
  expect(Doc(" \n\t\n  ").status(), "only whitespace");
  expect(Doc("Good text \xff here").status(), "at byte offset 10");
  expect(Doc(std::string("Some\0text", 9)).status(), "NUL byte at byte offset 4");
  PrepareOptions small;
  small.max_document_bytes = 10;
  expect(Doc("This is more than ten bytes.", small).status(),
         "document is 28 bytes; the limit is 10");
  PrepareOptions few;
  few.max_input_tokens = 12;
  expect(Doc("One sentence here. Another sentence here. A third one too.", few).status(),
         "the limit is 12 (max_input_tokens)");
  few.max_input_tokens = 1000;
  few.max_units = 2;
  expect(Doc("One sentence here. Another sentence here. A third one too.", few).status(),
         "has 3 sentences; the limit is 2");

  DocumentInput split;
  split.presplit = true;
  expect(Prepare(split, *tokenizer_, {}).status(), "sentences is empty");
  split.units = {"A fine sentence.", "  "};
  expect(Prepare(split, *tokenizer_, {}).status(), "sentences[1] is empty");
  split.units = {"A fine sentence.", "bad \xc3("};
  expect(Prepare(split, *tokenizer_, {}).status(), "sentences[1] is not valid UTF-8");
  DocumentInput titled;
  titled.document = "Fine.";
  titled.title = "\xff";
  expect(Prepare(titled, *tokenizer_, {}).status(), "title is not valid UTF-8");
}

TEST_F(PrepareTest, TruncationPolicies) {
  std::string doc;
  for (int i = 0; i < 30; ++i) doc += "Sentence number " + std::to_string(i) + " is here.\n";
  PrepareOptions o;
  o.max_units = 9;
  o.truncation = TruncationPolicy::kHead;
  auto head = Doc(doc, o);
  ASSERT_TRUE(head.ok()) << head.status();
  EXPECT_TRUE(head->truncated);
  EXPECT_EQ(head->kept, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  o.truncation = TruncationPolicy::kHeadAndTail;
  auto both = Doc(doc, o);
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->kept, (std::vector<int32_t>{0, 1, 2, 3, 4, 5, 27, 28, 29}));
  EXPECT_EQ(both->units.size(), 30u);
  // Token cap: every kept unit starts with the marker, at its recorded position.
  for (size_t i = 0; i < both->kept.size(); ++i) {
    EXPECT_EQ(both->tokens[both->unit_pos[i]], tokenizer_->marker_id());
  }
  o = PrepareOptions();
  o.max_input_tokens = 40;
  o.truncation = TruncationPolicy::kHead;
  auto by_tokens = Doc(doc, o);
  ASSERT_TRUE(by_tokens.ok());
  EXPECT_LE(by_tokens->num_tokens(), 40);
  EXPECT_GT(by_tokens->untruncated_tokens, 40);
}

// A word tokenizer that counts the units it was asked to encode.
class CountingTokenizer : public test::WordTokenizer {
 public:
  bool Encode(std::string_view text, std::vector<int32_t>* ids, std::string* e) const override {
    ++calls;
    return WordTokenizer::Encode(text, ids, e);
  }
  mutable int calls = 0;
};

// Truncation is decided before the tokens past the limit are computed: a long document costs
// the tokenizer what truncation keeps, not its length; the kept units are those of a full count.
TEST(PrepareTruncation, TokenizesOnlyWhatTruncationCanKeep) {
  std::string doc;
  for (int i = 0; i < 20000; ++i) doc += "Sentence number " + std::to_string(i) + " is here.\n";
  DocumentInput in;
  in.document = doc;
  PrepareOptions o;
  o.max_units = 100000;
  o.max_input_tokens = 300;
  o.columns.reset();  // features are not what this test is about
  CountingTokenizer reject;
  auto refused = Prepare(in, reject, o);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("over 300 tokens after preparation by its sentence"),
            std::string_view::npos)
      << refused.status();
  EXPECT_LT(reject.calls, 100);
  o.truncation = TruncationPolicy::kHead;
  CountingTokenizer head;
  auto h = Prepare(in, head, o);
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_TRUE(h->truncated);
  EXPECT_LT(head.calls, 100);
  EXPECT_EQ(h->kept.front(), 0);
  EXPECT_LE(h->num_tokens(), 300);
  EXPECT_GT(h->untruncated_tokens, 300);
  o.truncation = TruncationPolicy::kHeadAndTail;
  CountingTokenizer both;
  auto ht = Prepare(in, both, o);
  ASSERT_TRUE(ht.ok()) << ht.status();
  EXPECT_LT(both.calls, 200);
  EXPECT_EQ(ht->kept.back(), 19999);
  EXPECT_LE(ht->num_tokens(), 300);
  EXPECT_EQ(ht->total_words, 20000 * 5);  // every unit's words, tokenized or not
  // Without the need to truncate, every unit is tokenized.
  o.max_input_tokens = 1 << 30;
  CountingTokenizer all;
  auto whole = Prepare(in, all, o);
  ASSERT_TRUE(whole.ok());
  EXPECT_EQ(all.calls, 20000);
  EXPECT_FALSE(whole->truncated);
  // A deadline already passed stops the tokenizer.
  o.deadline = absl::Now() - absl::Seconds(1);
  auto late = Prepare(in, all, o);
  ASSERT_FALSE(late.ok());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(late.status().message().find("while tokenizing"), std::string_view::npos);
}

TEST_F(PrepareTest, ModelInputLayoutAndFeatures) {
  DocumentInput in;
  in.document = "Relative attention\nRelative attention helps long documents. It is cheap.";
  in.title = "Relative attention";
  PrepareOptions o;
  o.max_tokens_per_unit = 3;
  auto p = Prepare(in, *tokenizer_, o);
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->kept.size(), 3u);
  EXPECT_EQ(p->unit_pos[0], 0);
  for (size_t i = 1; i < p->unit_pos.size(); ++i) {
    EXPECT_LE(p->unit_pos[i] - p->unit_pos[i - 1], 4);  // marker + at most 3 pieces
  }
  EXPECT_EQ(p->features.size(), 3u * kNumFeatures);
  EXPECT_EQ(p->features[1], 1.f);                 // unit 0 is a heading
  EXPECT_FLOAT_EQ(p->features[4], 1.f);           // all its words are in the title
  EXPECT_GT(p->features[kNumFeatures + 4], 0.f);  // unit 1 shares words with the title
}

// The centrality features (model_config.h): a unit whose words recur in the rest of the
// document scores above one that shares nothing, the most central unit scores 1, and every
// value lies in [0, 1].
TEST_F(PrepareTest, CentralityFeatures) {
  DocumentInput in;
  in.document =
      "The scheduler batches requests by their token cost. The scheduler admits requests while "
      "their token cost fits the budget. Penguins waddle across frozen beaches. Requests wait in "
      "the scheduler queue until the budget admits their cost.";
  auto p = Prepare(in, *tokenizer_, PrepareOptions());
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->kept.size(), 4u);
  for (int col : {6, 7}) {
    float best = 0.f;
    for (size_t u = 0; u < 4; ++u) {
      const float c = p->features[u * kNumFeatures + col];
      EXPECT_GE(c, 0.f);
      EXPECT_LE(c, 1.f);
      best = std::max(best, c);
    }
    EXPECT_FLOAT_EQ(best, 1.f) << "column " << col;
    const float off_topic = p->features[2 * kNumFeatures + col];
    for (size_t u : {0u, 1u, 3u}) {
      EXPECT_GT(p->features[u * kNumFeatures + col], off_topic) << "unit " << u << " col " << col;
    }
  }
  // No content word of "Penguins waddle across frozen beaches" recurs: cosine 0.
  EXPECT_EQ(p->features[2 * kNumFeatures + kFeatureContentCentrality], 0.f);
  // A single unit has no rest to be central to.
  in.document = "Only one sentence here.";
  auto one = Prepare(in, *tokenizer_, PrepareOptions());
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->features[6], 0.f);
  EXPECT_EQ(one->features[kFeatureContentCentrality], 0.f);
}

// The section features (model_config.h): a unit's index among the units between two headings
// over their count, and 1 for a section's first unit; headings get 0; no heading, one section.
TEST_F(PrepareTest, SectionFeatures) {
  DocumentInput in;
  in.document =
      "Motivation\nThe queue grows without bound. Requests time out. Users retry.\n"
      "Design\nThe scheduler admits by token cost. It sheds load early.";
  auto p = Prepare(in, *tokenizer_, PrepareOptions());
  ASSERT_TRUE(p.ok());
  ASSERT_EQ(p->kept.size(), 7u);
  const float position[7] = {0.f, 0.f, 1.f / 3, 2.f / 3, 0.f, 0.f, 0.5f};
  const float start[7] = {0.f, 1.f, 0.f, 0.f, 0.f, 1.f, 0.f};
  for (size_t u = 0; u < 7; ++u) {
    EXPECT_FLOAT_EQ(p->features[u * kNumFeatures + kFeatureSectionPosition], position[u]) << u;
    EXPECT_EQ(p->features[u * kNumFeatures + kFeatureSectionStart], start[u]) << u;
  }
  in.document = "No headings at all. Just two sentences.";
  auto flat = Prepare(in, *tokenizer_, PrepareOptions());
  ASSERT_TRUE(flat.ok());
  ASSERT_EQ(flat->kept.size(), 2u);
  EXPECT_EQ(flat->features[kFeatureSectionStart], 1.f);
  EXPECT_FLOAT_EQ(flat->features[kNumFeatures + kFeatureSectionPosition], 0.5f);
  EXPECT_EQ(flat->features[kNumFeatures + kFeatureSectionStart], 0.f);
}

// Prepare computes the columns PrepareOptions::columns asks for, each as it would with every
// column, and leaves the others 0; a served checkpoint asks for the ones it reads
// (FeatureColumnsRead: the network's, the centrality its score weighs, the title overlap its
// reranking weighs).
TEST_F(PrepareTest, OnlyTheAskedColumnsAreComputed) {
  DocumentInput in;
  in.document =
      "Motivation\nThe scheduler batches requests by token cost. The scheduler admits requests "
      "while their cost fits.\nDesign\nPenguins waddle. Requests wait in the scheduler queue.";
  in.title = "Scheduler design";
  auto all = Prepare(in, *tokenizer_, PrepareOptions());
  ASSERT_TRUE(all.ok());
  ModelConfig shipped;
  shipped.architecture.num_features = 6;
  shipped.scoring.centrality_weight = 0.2;
  const std::bitset<kNumFeatures> read = FeatureColumnsRead(shipped);
  EXPECT_EQ(read.to_string(), "0010111111");  // columns 0-5 and 7
  ModelConfig titled = shipped;
  titled.architecture.num_features = 4;
  titled.scoring.rerank.top_k = 8;
  titled.scoring.rerank.weights.assign(kNumRerankFeatures, 0.0);
  titled.scoring.rerank.weights[kRerankTitleShare] = 1;
  EXPECT_EQ(FeatureColumnsRead(titled).to_string(), "0010011111");
  titled.architecture.feature_columns = {9, 8, 0};
  titled.architecture.num_features = 3;
  EXPECT_EQ(FeatureColumnsRead(titled).to_string(), "1110010001");
  for (const std::bitset<kNumFeatures>& columns :
       {read, FeatureColumnsRead(titled), std::bitset<kNumFeatures>()}) {
    PrepareOptions o;
    o.columns = columns;
    auto some = Prepare(in, *tokenizer_, o);
    ASSERT_TRUE(some.ok());
    ASSERT_EQ(some->features.size(), all->features.size());
    EXPECT_EQ(some->tokens, all->tokens);
    bool nonzero = false;
    for (size_t i = 0; i < all->features.size(); ++i) {
      const int c = static_cast<int>(i % kNumFeatures);
      EXPECT_EQ(some->features[i], columns[c] ? all->features[i] : 0.f)
          << i / kNumFeatures << " " << c;
      nonzero |= c > 5 && columns[c] && all->features[i] != 0;
    }
    EXPECT_EQ(nonzero, columns.any()) << columns;  // a computed column beyond v1's is not all 0
  }
}

// Every document of the valid split prepares; units round-trip to the input bytes and never
// cross a line break. Prints unit statistics next to the corpus README's word statistics.
TEST_F(PrepareTest, RealCorpusValidSplit) {
  const std::string path = DataDir() + "/corpus/valid.jsonl.gz";
  auto corpus = ReadCorpus(path);
  // ../shared/data is an input of the gate, like the source tree: missing, it is a failure.
  ASSERT_TRUE(corpus.ok()) << corpus.status() << " (set RPSUM_DATA_DIR to the data folder)";
  ASSERT_EQ(corpus->size(), 182u);
  std::vector<int64_t> units, words, tokens;
  std::map<UnitKind, int64_t> kinds;
  PrepareOptions o;
  o.truncation = TruncationPolicy::kHead;
  for (const auto& r : *corpus) {
    DocumentInput in;
    in.document = r.document;
    in.title = r.title;
    auto p = Prepare(in, *tokenizer_, o);
    ASSERT_TRUE(p.ok()) << r.id << ": " << p.status();
    for (const Unit& u : p->units) {
      ASSERT_LT(u.begin, u.end);
      ASSERT_LE(u.end, r.document.size());
      const std::string_view doc = r.document;
      const std::string_view text = doc.substr(u.begin, u.end - u.begin);
      ASSERT_EQ(text.find('\n'), std::string_view::npos) << r.id;
      ASSERT_EQ(p->UnitText(in, &u - p->units.data()), text);
      ++kinds[u.kind];
    }
    units.push_back(static_cast<int64_t>(p->units.size()));
    words.push_back(p->total_words);
    tokens.push_back(p->untruncated_tokens);
  }
  auto median = [](std::vector<int64_t> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  auto p90 = [](std::vector<int64_t> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() * 9 / 10];
  };
  std::printf("| valid split (%zu docs) | median | p90 |\n| --- | --- | --- |\n", units.size());
  std::printf("| words (README: 1716 / 3974) | %lld | %lld |\n",
              static_cast<long long>(median(words)), static_cast<long long>(p90(words)));
  std::printf("| units | %lld | %lld |\n", static_cast<long long>(median(units)),
              static_cast<long long>(p90(units)));
  std::printf("| tokens (tiny tokenizer) | %lld | %lld |\n", static_cast<long long>(median(tokens)),
              static_cast<long long>(p90(tokens)));
  std::printf("unit kinds: sentence %lld, heading %lld, list item %lld, table row %lld\n",
              static_cast<long long>(kinds[UnitKind::kSentence]),
              static_cast<long long>(kinds[UnitKind::kHeading]),
              static_cast<long long>(kinds[UnitKind::kListItem]),
              static_cast<long long>(kinds[UnitKind::kTableRow]));
  // Our whitespace word count is the README's: the medians agree closely.
  EXPECT_NEAR(static_cast<double>(median(words)), 1716.0, 1716.0 * 0.05);
}

}  // namespace
}  // namespace rpsum::model
