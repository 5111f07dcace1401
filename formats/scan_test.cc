// The rules of the readers' pre-scans (docs/design.md, "What each reader bounds"): which
// HTML nests as HTML5 builds it and which does not, attributes past the limit, Markdown's
// nesting limit and rewrites, bare links, and the deadline inside each reader. The growth of
// every hostile family: hostile_test.cc.
#include <algorithm>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "formats/formats.h"
#include "formats/internal/builder.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/hostile_inputs.h"

namespace rpsum::formats {
namespace {

using ::testing::HasSubstr;

// HTML5's tree, not a count of tags: what nests and what does not.
TEST(HtmlScan, CountsDepthAsHtml5BuildsIt) {
  auto depth_refused = [](const std::string& page) {
    const auto x = Extract(page, ContentType::kHtml, {});
    return !x.ok() && absl::StrContains(x.status().message(), "the HTML depth limit");
  };
  // Nested: "/>" does not close a div, an end tag with no open element closes nothing,
  // formatting elements closed by a paragraph's end are reopened in the next.
  EXPECT_TRUE(depth_refused(test::Repeat("<div/>", 6000)));
  EXPECT_TRUE(depth_refused(test::Repeat("<div></span>", 12000)));
  // (Refused earlier for the elements it reopens: below.)
  EXPECT_FALSE(Extract(test::Numbered("<p><b id=", ">x", 12000), ContentType::kHtml, {}).ok());
  EXPECT_TRUE(depth_refused(test::Repeat("<b><div>x</b>", 12000)));
  // Not nested: unclosed paragraphs, list items, cells, options and links close as HTML5
  // closes them; void elements; "/>" inside SVG; the same formatting element three times at
  // most (Noah's Ark).
  for (const std::string& page :
       {test::Repeat("<p>text ", 20000), test::Repeat("<li>item ", 20000),
        "<table>" + test::Repeat("<tr><td>a<td>b ", 20000),
        "<select>" + test::Repeat("<option>o ", 20000), test::Repeat("<a href=x>link ", 20000),
        "<p>" + test::Repeat("word<br><img src=x> ", 20000),
        "<svg>" + test::Repeat("<path d=\"M0 0\"/>", 20000) + "</svg><p>text</p>",
        test::Repeat("<p><b>bold ", 20000), test::Repeat("<h2>a<h3>b ", 20000),
        test::Repeat("<dl><dt>t<dd>d</dl> ", 20000)}) {
    const auto x = Extract(page, ContentType::kHtml, {});  // (tables and selects hold no text)
    EXPECT_TRUE(x.ok() || absl::StrContains(x.status().message(), "no text to summarize"))
        << page.substr(0, 40) << x.status();
  }
}

// Formatting elements HTML5 reopens in every block cost gumbo their number each time: past
// 2,048 reopened and four per start tag, refused, well under the depth limit.
TEST(HtmlScan, ReopeningFormattingElementsIsBounded) {
  const auto x = Extract(test::Numbered("<p><b id=", ">x", 6000), ContentType::kHtml, {});
  ASSERT_FALSE(x.ok());
  EXPECT_THAT(x.status().message(), HasSubstr("formatting elements by byte"));
  // A sloppy page: a bold left open in each of 4,000 paragraphs (three alike stay active).
  EXPECT_TRUE(Extract(test::Repeat("<p><b>bold text ", 64000), ContentType::kHtml, {}).ok());
}

TEST(HtmlScan, AttributesPastTheLimitAreDroppedAndTheTextKept) {
  const std::string page =
      "<p " + test::Numbered("a", "=\"x>y\" ", 5000) + "hidden>Kept text.</p><p>More.</p>";
  const auto x = Extract(page, ContentType::kHtml, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text, "Kept text.\nMore.");  // "hidden", past the limit, was dropped
  ASSERT_FALSE(x->pieces.empty());
  EXPECT_EQ(page.substr(x->pieces[0].source_begin, 4), "Kept");
  ExtractLimits few;
  few.max_html_attributes = 100000;
  const auto all = Extract(page, ContentType::kHtml, few);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->text, "More.");  // within the limit, "hidden" hides the paragraph
}

TEST(MarkdownScan, NestingPastTheLimitIsRefusedWithTheLine) {
  const auto x =
      Extract("# Title\n\n" + test::Repeat("> ", 200) + "quoted\n", ContentType::kMarkdown, {});
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(x.status().message(), HasSubstr("levels deep at line 3; the limit is 64"));
  // Deep but within the limit; and deep indentation in a fenced code block is not nesting.
  EXPECT_TRUE(Extract(test::Repeat("> ", 30) + "quoted\n", ContentType::kMarkdown, {}).ok());
  EXPECT_TRUE(Extract("Text.\n\n```\n" + std::string(400, ' ') + "- item\n```\n",
                      ContentType::kMarkdown, {})
                  .ok());
}

TEST(MarkdownScan, RewritesWhatCmarkReadsSlowlyAndKeepsTheText) {
  // A table row wider than the limit is cut; the table is still dropped and the text after it
  // read.
  const std::string table = test::Repeat("|a", 600) + "\n" + test::Repeat("|-", 600) + "\n" +
                            test::Repeat("|b", 600) + "\n\nAfter the table.\n";
  const auto t = Extract(table, ContentType::kMarkdown, {});
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->text, "After the table.");
  // Links still read after many open brackets; raw HTML with a closer is still markup.
  const auto b = Extract(test::Repeat("[", 100) + " text [link](https://x.org) and <!-- c --> end",
                         ContentType::kMarkdown, {});
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_THAT(b->text, HasSubstr("text link and end"));
  // An unclosed declaration is text.
  const auto d = Extract("Compare <!A with that.", ContentType::kMarkdown, {});
  ASSERT_TRUE(d.ok());
  EXPECT_EQ(d->text, "Compare !A with that.");
}

// Inline markup denser than text written to be read reads as spaces; ordinary emphasis stays
// markup.
TEST(MarkdownScan, DenseInlineMarkupReadsAsSpaces) {
  const auto dense = Extract("Intro " + test::Repeat("*a* ", 20000), ContentType::kMarkdown, {});
  ASSERT_TRUE(dense.ok()) << dense.status();
  EXPECT_EQ(dense->text.find('*'), std::string::npos);
  EXPECT_TRUE(absl::StartsWith(dense->text, "Intro a a a"));
  const auto normal =
      Extract(test::Repeat("A *fast* path and a_b_c names. ", 400), ContentType::kMarkdown, {});
  ASSERT_TRUE(normal.ok()) << normal.status();
  EXPECT_TRUE(absl::StartsWith(normal->text, "A fast path and a_b_c names."));
}

// A long document is parsed in parts (formats/internal/builder.h, SplitMarkdown) and reads as one:
// no cut inside a fenced code block (a line of inline code opens none) or an HTML comment with
// blank lines, links and footnotes find their definitions in other parts, every paragraph once
// and in order, every word mapped.
TEST(MarkdownScan, LongDocumentsReadInPartsAsOne) {
  std::string doc = "# Title\n\n";
  for (int i = 0; i < 3000; ++i) {
    doc += "Paragraph " + std::to_string(i) + " cites [the design][d" + std::to_string(i % 7) +
           "] and ends.\n\n";
    if (i % 500 == 499) doc += "```\n" + test::Repeat("code\n\n", 200000) + "```\n\n";
    if (i % 500 == 250) doc += "<!--\n" + test::Repeat("hidden\n\n", 100000) + "-->\n\n";
    if (i % 500 == 100) doc += "```inline, not a fence```\n\n- an item[^n]\n\n";
  }
  for (int d = 0; d < 7; ++d) {
    doc += "[d" + std::to_string(d) + "]: https://x.org/" + std::to_string(d) + "\n";
  }
  doc += "\n[^n]: A footnote, defined in another part than its references.\n";
  const auto x = Extract(doc, ContentType::kMarkdown, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text.find("code"), std::string::npos);
  EXPECT_EQ(x->text.find("hidden"), std::string::npos);
  EXPECT_EQ(x->text.find("footnote"), std::string::npos);
  EXPECT_EQ(x->text.find('['), std::string::npos);
  size_t last = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string line = "Paragraph " + std::to_string(i) + " cites the design and ends.";
    const size_t at = x->text.find(line, last);
    ASSERT_NE(at, std::string::npos) << i;
    last = at + line.size();
  }
  for (const Piece& p : x->pieces) {
    ASSERT_LT(p.source_begin, p.source_end);
    EXPECT_EQ(doc.substr(p.source_begin, p.source_end - p.source_begin),
              x->text.substr(p.begin, p.end - p.begin));
  }
}

// A part of plain lines is read without cmark (formats/internal/builder.h, IsPlainMarkdownPart) and
// reads as cmark reads it: random documents of plain lines and of lines that only look plain
// (ordered items, rules, headings' underlines, indented code, markup) read the same as the same
// document with an HTML comment after it, which sends it through cmark; text and every piece.
TEST(MarkdownScan, PlainPartsReadAsCmarkReadsThem) {
  const std::vector<std::string> lines = {
      "", "", "", "Plain words here.", "- an item", "* another item", "+ third one",
      "9 lives, 10 ways", "Caf\xc3\xa9 na\xc3\xafve \xe2\x80\x94 words", "\u00dcber alles",
      "see http://example.org/ab or ops@example.org.", "trailing spaces  ", "a", "- a",
      "(quoted) \"words\" ok?", "x;y:z, 42% done!", "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e",
      "\xc2\xa0nbsp", "   ",
      // Lines that are not plain: each read otherwise by cmark.
      "1. numbered", "2) numbered", "- 1. nested", "-  two spaces", "# Heading", "===", "---",
      "- - -", "    indented code", " one space", "\ttab", "a | b", "> quote", "&amp; entity",
      "*emphasis*", "- ", "-"};
  std::mt19937 rng(62);
  int plain = 0;
  for (int d = 0; d < 3000; ++d) {
    std::string doc;
    const int n = 1 + static_cast<int>(rng() % 12);
    for (int l = 0; l < n; ++l) {
      // Mostly plain lines, a line that only looks plain now and then.
      const size_t k = rng() % 5 == 0 ? rng() % lines.size() : rng() % 19;
      doc += lines[k] + (l + 1 < n || rng() % 2 == 0 ? "\n" : "");
    }
    const std::string twin = doc + "\n\n<!-- through cmark -->\n";
    ASSERT_FALSE(internal::IsPlainMarkdownPart(twin));
    plain += internal::IsPlainMarkdownPart(doc) ? 1 : 0;
    const auto x = Extract(doc, ContentType::kMarkdown, {});
    const auto y = Extract(twin, ContentType::kMarkdown, {});
    ASSERT_EQ(x.ok(), y.ok()) << doc;
    if (!x.ok()) continue;
    ASSERT_EQ(x->text, y->text) << doc;
    ASSERT_EQ(x->pieces.size(), y->pieces.size()) << doc;
    for (size_t i = 0; i < x->pieces.size(); ++i) {
      EXPECT_EQ(x->pieces[i].begin, y->pieces[i].begin) << doc;
      EXPECT_EQ(x->pieces[i].source_begin, y->pieces[i].source_begin) << doc;
      EXPECT_EQ(x->pieces[i].source_end, y->pieces[i].source_end) << doc;
    }
  }
  EXPECT_GT(plain, 1200);  // the plain path was taken, often
}

TEST(MarkdownScan, BareLinksAreDroppedAsGfmAutolinksWere) {
  const std::string doc =
      "See www.example.org. Mail ops@example.org, or (https://example.org/a_(b)) now.\n\n"
      "Keep `www.example.org` in code and [named links](https://x.org).\n";
  const auto x = Extract(doc, ContentType::kMarkdown, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text,
            "See . Mail , or () now.\n"
            "Keep www.example.org in code and named links.");
}

// Gumbo's parse cannot be interrupted, so a page the deadline leaves too little time for is
// refused before the parse (DEADLINE_EXCEEDED saying why), not after it. The rule is read
// without a clock race: a 4 MiB page may take 419 ms to parse, and 150 ms is not enough.
TEST(HtmlScan, APageTheDeadlineCannotCoverIsRefusedBeforeItsParse) {
  const std::string page(4U << 20, 'x');
  ExtractLimits limits;
  EXPECT_TRUE(internal::ParseFitsDeadline(page, limits).ok());  // no deadline
  limits.deadline = absl::Now() + absl::Milliseconds(150);
  const absl::Status refused = internal::ParseFitsDeadline(page, limits);
  EXPECT_EQ(refused.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(refused.message(), HasSubstr("page of 4194304 bytes takes up to 419 ms"));
  EXPECT_THAT(refused.message(), HasSubstr("ms its deadline leaves"));
  limits.deadline = absl::Now() + absl::Seconds(60);
  EXPECT_TRUE(internal::ParseFitsDeadline(page, limits).ok());
}

// And Extract asks it: a 4 MiB page (its parse estimated at 419 ms) is refused before gumbo
// runs. The scan before the parse is timed here first (the best of three), and the deadline
// leaves four times that, at least 100 ms: where that is under 300 ms, the refusal must be the
// parse's, and only a scan four times slower than its best (more than a busy core makes it)
// would refuse first; on a slower build (sanitizers) the scan's own deadline check may refuse
// first, also DEADLINE_EXCEEDED.
TEST(HtmlScan, ExtractRefusesThePageBeforeItsParse) {
  std::string page = "<html><body>";
  while (page.size() < (4U << 20)) page += "<p>The cache keeps the pages it read last.</p>\n";
  absl::Duration scan = absl::InfiniteDuration();
  for (int i = 0; i < 3; ++i) {
    std::string rewritten;
    const absl::Time before = absl::Now();
    ASSERT_TRUE(internal::ScanHtml(page, {}, &rewritten).ok());
    scan = std::min(scan, absl::Now() - before);
  }
  const absl::Duration left = std::max(4 * scan, absl::Milliseconds(100));
  ExtractLimits limits;
  limits.deadline = absl::Now() + left;
  const auto x = Extract(page, ContentType::kHtml, limits);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.status().code(), absl::StatusCode::kDeadlineExceeded) << x.status();
  if (left < absl::Milliseconds(300)) {
    EXPECT_THAT(x.status().message(), HasSubstr("ms its deadline leaves")) << x.status();
  }
  limits.deadline = absl::Now() + absl::Seconds(60);
  EXPECT_TRUE(Extract(page, ContentType::kHtml, limits).ok());
}

// A PDF may draw at most max_pdf_glyphs_per_byte characters per byte of its own past the first
// 262,144: 40 pages sharing one content stream of 7,800 words draw 312,000 from 72 KB and are
// refused, naming the limit; with the limit off the same file is read whole.
TEST(PdfAmplification, IsRefusedByGlyphsPerByte) {
  std::string pdf;
  for (const auto& f : test::HostileFamilies()) {
    if (std::string_view(f.name) == "pdf/shared-contents") pdf = f.make(4000);
  }
  ASSERT_GT(pdf.size(), 60000U);
  ASSERT_LT(pdf.size(), 75000U);  // 4 a byte: under 300,000
  const auto refused = Extract(pdf, ContentType::kPdf, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("(max_pdf_glyphs_per_byte 4;"));
  ExtractLimits off;
  off.max_pdf_glyphs_per_byte = 0;
  const auto read = Extract(pdf, ContentType::kPdf, off);
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(read->pages, 40);
}

// A page of more runs than poppler's reading order is given (formats.h, max_ordered_runs) is
// read in the order it is drawn, and laid out here: every word kept, lines top to bottom.
// Drawing more characters than twice the extracted-text limit is refused as text over it.
TEST(PdfDensePages, AreReadInDrawingOrderWithEveryLine) {
  // 70 lines of six words set 50 points apart (420 runs), drawn bottom line first.
  std::string content = "BT\n/F1 8 Tf\n";
  for (int l = 69; l >= 0; --l) {
    char op[160];
    std::snprintf(op, sizeof op, "1 0 0 1 36 %d Tm (line%02d) Tj\n", 740 - 9 * l, l);
    content += op;
    for (int k = 1; k <= 5; ++k) {
      std::snprintf(op, sizeof op, "1 0 0 1 %d %d Tm (word%d) Tj\n", 36 + 80 * k, 740 - 9 * l, k);
      content += op;
    }
  }
  content += "ET";
  const std::string pdf = test::MinimalPdf(1, 612, 792, [&](int) { return content; });
  const auto x = Extract(pdf, ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  size_t last = 0;
  for (int l = 0; l < 70; ++l) {
    char word[16];
    std::snprintf(word, sizeof word, "line%02d", l);
    const size_t at = x->text.find(word);
    ASSERT_NE(at, std::string::npos) << word;
    EXPECT_TRUE(l == 0 || at > last) << word;
    last = at;
  }
  size_t words = 0;
  for (size_t at = 0; (at = x->text.find("word3", at)) != std::string::npos; ++at) ++words;
  EXPECT_EQ(words, 70U);
  ExtractLimits small;
  small.max_text_bytes = 1500;
  const auto over = Extract(pdf, ContentType::kPdf, small);
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(over.status().message(), HasSubstr("exceeds 1500 bytes by page 1"));
}

// Each reader stops at the deadline and says where it was.
TEST(HostileDeadline, EveryReaderHonoursTheDeadline) {
  ExtractLimits past;
  past.deadline = absl::Now() - absl::Seconds(1);
  for (ContentType type : {ContentType::kHtml, ContentType::kMarkdown, ContentType::kPdf}) {
    const auto x = Extract(test::WellFormed(type, 64 << 10), type, past);
    ASSERT_FALSE(x.ok());
    EXPECT_EQ(x.status().code(), absl::StatusCode::kDeadlineExceeded) << x.status();
  }
}

}  // namespace
}  // namespace rpsum::formats
