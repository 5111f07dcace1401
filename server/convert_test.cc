// The proto edge, table-driven: every field of SummarizeRequest that PlanRequest checks, in
// range and out of it, and what FillSummary writes back.
#include "server/convert.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "testing/word_tokenizer.h"

namespace rpsum::server {
namespace {

using model::Budget;
using model::TruncationPolicy;

v1::SummarizeRequest Parse(const std::string& text) {
  v1::SummarizeRequest r;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &r)) << text;
  return r;
}

model::ModelConfig Config() {
  model::ModelConfig c;
  c.architecture.max_clip_distance = 64;
  return c;
}

// The service's selection of a scored document (server/service.cc), for FillSummary.
model::Selection SelectAsServed(const RequestPlan& plan, const ReadDocument& read,
                                const model::PreparedDocument& doc,
                                const model::DocumentScores& s) {
  return model::SelectForResponse(doc, doc.KeptTexts(plan.input), s.scores, plan.select,
                                  {s.unit_states.data(), s.state_size}, plan.outline,
                                  MarkedHeadings(read, doc));
}

struct Case {
  const char* request;  // text format
  const char* error;    // substring of the INVALID_ARGUMENT message, or nullptr when accepted
  Budget::Kind kind = Budget::Kind::kWords;
  double value = 100;
  TruncationPolicy truncation = TruncationPolicy::kReject;
  int priority = 2;
};

TEST(PlanRequest, EveryCheckedField) {
  const Case cases[] = {
      {"", "set either document or sentences"},
      {R"(document: "x")", nullptr},
      {R"(sentences { sentences: "a" sentences: "b" })", nullptr},
      {R"(document: "x" max_words: 0)", "max_words must be in [1, 100000], got 0"},
      {R"(document: "x" max_words: 100001)", "max_words must be in [1, 100000], got 100001"},
      {R"(document: "x" max_words: 40)", nullptr, Budget::Kind::kWords, 40},
      {R"(document: "x" max_sentences: 0)", "max_sentences must be in [1, 10000], got 0"},
      {R"(document: "x" max_sentences: 3)", nullptr, Budget::Kind::kUnits, 3},
      {R"(document: "x" ratio: 0)", "ratio must be in (0, 1], got 0"},
      {R"(document: "x" ratio: 1.5)", "ratio must be in (0, 1], got 1.5"},
      {R"(document: "x" ratio: nan)", "ratio must be in (0, 1]"},
      {R"(document: "x" ratio: 0.25)", nullptr, Budget::Kind::kRatio, 0.25},
      {R"(document: "x" clip_distance: 65)", "clip_distance must be at most 64"},
      {R"(document: "x" clip_distance: 64)", nullptr},
      {R"(document: "x" truncation: TRUNCATION_HEAD)", nullptr, Budget::Kind::kWords, 100,
       TruncationPolicy::kHead},
      {R"(document: "x" truncation: TRUNCATION_HEAD_AND_TAIL)", nullptr, Budget::Kind::kWords, 100,
       TruncationPolicy::kHeadAndTail},
      {R"(document: "x" truncation: 17)", "unknown truncation value 17"},
      {R"(document: "x" priority: PRIORITY_HIGH)", nullptr, Budget::Kind::kWords, 100,
       TruncationPolicy::kReject, 3},
      {R"(document: "x" priority: PRIORITY_LOW)", nullptr, Budget::Kind::kWords, 100,
       TruncationPolicy::kReject, 1},
      {R"(document: "x" priority: 9)", "unknown priority value 9"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.request);
    const v1::SummarizeRequest request = Parse(c.request);
    const auto plan = PlanRequest(request, Config());
    if (c.error != nullptr) {
      ASSERT_FALSE(plan.ok());
      EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
      EXPECT_NE(plan.status().message().find(c.error), absl::string_view::npos)
          << plan.status().message();
      continue;
    }
    ASSERT_TRUE(plan.ok()) << plan.status();
    EXPECT_EQ(plan->select.budget.kind, c.kind);
    EXPECT_DOUBLE_EQ(plan->select.budget.value, c.value);
    EXPECT_EQ(plan->truncation, c.truncation);
    EXPECT_EQ(plan->priority, c.priority);
  }
}

TEST(PlanRequest, CarriesTheInputAndFlags) {
  // The plan's input points into the request: it must outlive the plan.
  const v1::SummarizeRequest request =
      Parse(R"(sentences { sentences: "a" sentences: "b" } title: "T" keep_redundant: true
               return_all_scores: true clip_distance: 8)");
  auto plan = PlanRequest(request, Config());
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_TRUE(plan->input.presplit);
  EXPECT_EQ(plan->input.units, (std::vector<std::string_view>{"a", "b"}));
  EXPECT_EQ(plan->input.title, "T");
  EXPECT_FALSE(plan->select.trigram_blocking);
  EXPECT_TRUE(plan->return_all_scores);
  EXPECT_EQ(plan->clip_override, 8);
  EXPECT_EQ(plan->select.rerank.top_k, 0);  // the config's: off
  model::ModelConfig reranked = Config();
  reranked.scoring.rerank.top_k = 8;
  reranked.scoring.rerank.weights.assign(model::kNumRerankFeatures, 0.5);
  auto with = PlanRequest(request, reranked);
  ASSERT_TRUE(with.ok()) << with.status();
  EXPECT_EQ(with->select.rerank.top_k, 8);
  EXPECT_EQ(with->select.rerank.weights, reranked.scoring.rerank.weights);
}

TEST(FillSummary, SentencesPointAtTheirTextInTheDocument) {
  const v1::SummarizeRequest request = Parse(
      R"(document: "# Goal\nCaches miss at start. We keep a warm pool.\nLogs rotate every day."
         max_sentences: 2 return_all_scores: true)");
  auto plan = PlanRequest(request, Config());
  ASSERT_TRUE(plan.ok()) << plan.status();
  ReadDocument read;
  ASSERT_TRUE(ReadInput({}, &*plan, &read).ok());
  EXPECT_FALSE(read.extracted.has_value());  // detected as text/plain: read as it is
  const test::WordTokenizer tok;
  auto doc = model::Prepare(plan->input, tok, {});
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_EQ(doc->kept.size(), 4U);  // heading, two sentences, one line
  model::DocumentScores scores;
  scores.scores = {0.9f, 0.2f, 0.7f, 0.5f};
  scores.clip_distance = 8;
  scores.local_window = 96;
  v1::SummarizeResponse out;
  FillSummary(*plan, read, *doc, scores, SelectAsServed(*plan, read, *doc, scores), &out);
  ASSERT_EQ(out.sentences_size(), 2);  // the heading is structure, not content
  EXPECT_EQ(out.sentences(0).index(), 2U);
  EXPECT_EQ(out.sentences(1).index(), 3U);
  for (const v1::Sentence& s : out.sentences()) {
    EXPECT_EQ(request.document().substr(s.begin(), s.end() - s.begin()), s.text());
    EXPECT_EQ(s.source_begin(), s.begin());  // text/plain: the source is the text
    EXPECT_EQ(s.source_end(), s.end());
  }
  EXPECT_EQ(out.content_type(), "text/plain");
  EXPECT_EQ(out.language(), "en");
  EXPECT_FLOAT_EQ(out.sentences(0).score(), 0.7f);
  EXPECT_EQ(out.summary(), "We keep a warm pool.\nLogs rotate every day.");
  EXPECT_EQ(out.clip_distance(), 8U);
  EXPECT_EQ(out.attention_mode(), v1::ATTENTION_MODE_LOCAL);
  EXPECT_EQ(out.local_window(), 96U);
  EXPECT_EQ(out.input_sentences(), 4U);
  EXPECT_FALSE(out.truncated());
  ASSERT_EQ(out.scores_size(), 4);
  EXPECT_FLOAT_EQ(out.scores(0), 0.9f);
}

// Markdown: the model reads the extracted text; begin/end index it, source_begin/source_end
// the Markdown bytes the sentence came from.
TEST(FillSummary, MarkdownSentencesPointIntoExtractedTextAndSource) {
  const v1::SummarizeRequest request = Parse(
      R"(document: "# Goal\n\nCaches **miss** at [start](https://x.io/s). We keep a warm pool.\n\n"
                   "```\nint x;\n```\n\n- Logs rotate `every` day.\n"
         content_type: "text/markdown; charset=utf-8" max_sentences: 2 return_extracted_text: true)");
  auto plan = PlanRequest(request, Config());
  ASSERT_TRUE(plan.ok()) << plan.status();
  ReadDocument read;
  ASSERT_TRUE(ReadInput({}, &*plan, &read).ok());
  ASSERT_TRUE(read.extracted.has_value());
  EXPECT_EQ(read.extracted->text,
            "Goal\nCaches miss at start. We keep a warm pool.\nLogs rotate every day.");
  const test::WordTokenizer tok;
  auto doc = model::Prepare(plan->input, tok, {});
  ASSERT_TRUE(doc.ok()) << doc.status();
  ASSERT_EQ(doc->kept.size(), 4U);
  model::DocumentScores scores;
  scores.scores = {0.9f, 0.8f, 0.1f, 0.7f};
  v1::SummarizeResponse out;
  FillSummary(*plan, read, *doc, scores, SelectAsServed(*plan, read, *doc, scores), &out);
  ASSERT_EQ(out.sentences_size(), 2);
  EXPECT_EQ(out.content_type(), "text/markdown");
  EXPECT_EQ(out.extracted_text(), read.extracted->text);
  const v1::Sentence& first = out.sentences(0);
  EXPECT_EQ(first.text(), "Caches miss at start.");
  EXPECT_EQ(out.extracted_text().substr(first.begin(), first.end() - first.begin()), first.text());
  EXPECT_EQ(
      request.document().substr(first.source_begin(), first.source_end() - first.source_begin()),
      "Caches **miss** at [start](https://x.io/s).");
  const v1::Sentence& second = out.sentences(1);
  EXPECT_EQ(second.text(), "Logs rotate every day.");
  EXPECT_EQ(
      request.document().substr(second.source_begin(), second.source_end() - second.source_begin()),
      "Logs rotate `every` day.");
}

// Text in another encoding: read in it, begin/end index the converted text (returned as
// extracted_text), source_begin/source_end the bytes as sent; the response names the encoding.
TEST(FillSummary, Latin1SentencesPointIntoTheBytesAsSent) {
  for (const char* type : {"text/plain; charset=iso-8859-1", "text/html; charset=latin1", ""}) {
    SCOPED_TRACE(type);
    const bool html = absl::StrContains(type, "html");
    v1::SummarizeRequest request;
    const std::string body =
        "Le caf\xE9 est servi \xE0 la terrasse. L'\xE9t\xE9 est tr\xE8s chaud cette ann\xE9"
        "e.";
    request.set_document(html ? "<p>" + body + "</p>" : body);
    request.set_content_type(type);
    request.set_max_sentences(1);
    request.set_return_extracted_text(true);
    auto plan = PlanRequest(request, Config());
    ASSERT_TRUE(plan.ok()) << plan.status();
    ReadDocument read;
    ASSERT_TRUE(ReadInput({}, &*plan, &read).ok());
    EXPECT_EQ(read.encoding, "windows-1252");
    EXPECT_EQ(read.encoding_decided_by, *type != '\0' ? "content_type" : "detected");
    const test::WordTokenizer tok;
    auto doc = model::Prepare(plan->input, tok, {});
    ASSERT_TRUE(doc.ok()) << doc.status();
    ASSERT_EQ(doc->kept.size(), 2U);
    model::DocumentScores scores;
    scores.scores = {0.1f, 0.9f};
    v1::SummarizeResponse out;
    FillSummary(*plan, read, *doc, scores, SelectAsServed(*plan, read, *doc, scores), &out);
    ASSERT_EQ(out.sentences_size(), 1);
    EXPECT_EQ(out.encoding(), "windows-1252");
    const v1::Sentence& s = out.sentences(0);
    EXPECT_EQ(s.text(),
              "L'\xC3\xA9t\xC3\xA9 est tr\xC3\xA8s chaud cette ann\xC3\xA9"
              "e.");
    EXPECT_EQ(out.extracted_text().substr(s.begin(), s.end() - s.begin()), s.text());
    EXPECT_EQ(request.document().substr(s.source_begin(), s.source_end() - s.source_begin()),
              "L'\xE9t\xE9 est tr\xE8s chaud cette ann\xE9"
              "e.");
  }
}

// The outline: each section with its title, level, ranges and its own sentences.
TEST(FillSummary, OutlineSectionsWithLevelsRangesAndSentences) {
  std::string md = "# Cache\n\n";
  for (int i = 0; i < 4; ++i) {
    md += "The cache keeps page " + std::to_string(i) + " in **memory** for its many readers.\n\n";
  }
  md += "## Eviction\n\n";
  for (int i = 0; i < 4; ++i) {
    md += "The oldest page number " + std::to_string(i) + " leaves first when memory is full.\n\n";
  }
  v1::SummarizeRequest request;
  request.set_document(md);
  request.set_content_type("text/markdown");
  request.set_max_words(40);
  request.set_outline(true);
  auto plan = PlanRequest(request, Config());
  ASSERT_TRUE(plan.ok()) << plan.status();
  ReadDocument read;
  ASSERT_TRUE(ReadInput({}, &*plan, &read).ok());
  const test::WordTokenizer tok;
  auto doc = model::Prepare(plan->input, tok, {});
  ASSERT_TRUE(doc.ok()) << doc.status();
  model::DocumentScores scores;
  scores.scores.assign(doc->kept.size(), 0.5f);
  v1::SummarizeResponse out;
  FillSummary(*plan, read, *doc, scores, SelectAsServed(*plan, read, *doc, scores), &out);
  ASSERT_EQ(out.outline_size(), 2);
  const v1::OutlineSection& cache = out.outline(0);
  EXPECT_EQ(cache.title(), "Cache");
  EXPECT_EQ(cache.level(), 1U);
  EXPECT_EQ(cache.words(), 4U * 11);
  EXPECT_EQ(md.substr(cache.source_begin(), 5), "Cache");  // from its first word
  const v1::OutlineSection& eviction = out.outline(1);
  EXPECT_EQ(eviction.title(), "Eviction");
  EXPECT_EQ(eviction.level(), 2U);
  EXPECT_EQ(md.substr(eviction.source_begin(), 8), "Eviction");
  EXPECT_EQ(md.substr(eviction.source_end() - 5, 5), "full.");  // to its last
  // Each half of the 40 words: the sentences of each come from it.
  for (const v1::OutlineSection& s : out.outline()) {
    ASSERT_GT(s.sentences_size(), 0) << s.title();
    int words = 0;
    for (const v1::Sentence& sent : s.sentences()) {
      EXPECT_GE(sent.begin(), s.begin());
      EXPECT_LE(sent.end(), s.end());
      words += model::CountWords(sent.text());
    }
    EXPECT_LE(words, 20) << s.title();
  }
}

TEST(PlanRequest, UnsupportedContentTypeNamesTheSupportedOnes) {
  auto plan = PlanRequest(Parse(R"(document: "x" content_type: "application/msword")"), Config());
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(plan.status().message(), ::testing::HasSubstr("application/msword"));
  EXPECT_THAT(plan.status().message(), ::testing::HasSubstr("text/markdown, text/html"));
}

}  // namespace
}  // namespace rpsum::server
