#include "formats/formats.h"

#include <algorithm>
#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "testing/source_dir.h"

namespace rpsum::formats {
namespace {

using test::TestSourceDir;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

std::string ReadTestFile(const std::string& name) {
  std::ifstream in(TestSourceDir() + "/formats/testdata/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

// Every piece that found its source holds exactly the input bytes it came from, pieces ascend
// and do not overlap, and each line's source range starts with its first word's bytes and ends
// with its last word's.
void ExpectPiecesPointIntoSource(const Extracted& x, std::string_view input) {
  uint64_t last_end = 0;
  int mapped = 0;
  for (const Piece& p : x.pieces) {
    ASSERT_GE(p.begin, last_end);
    ASSERT_LT(p.begin, p.end);
    ASSERT_LE(p.end, x.text.size());
    last_end = p.end;
    if (p.source_end > p.source_begin) {
      ++mapped;
      ASSERT_LE(p.source_end, input.size());
      EXPECT_EQ(input.substr(p.source_begin, p.source_end - p.source_begin),
                x.text.substr(p.begin, p.end - p.begin));
    }
  }
  EXPECT_GT(mapped, 0);
  uint64_t line_begin = 0;
  for (const std::string& line : Lines(x.text)) {
    const uint64_t line_end = line_begin + line.size();
    const auto src = SourceOf(x, line_begin, line_end);
    ASSERT_TRUE(src.has_value()) << line;
    const std::string_view bytes = input.substr(src->begin, src->end - src->begin);
    std::string first, last;
    for (const Piece& p : x.pieces) {
      if (p.begin < line_begin || p.end > line_end || p.source_end <= p.source_begin) continue;
      if (first.empty()) first = x.text.substr(p.begin, p.end - p.begin);
      last = x.text.substr(p.begin, p.end - p.begin);
    }
    EXPECT_EQ(bytes.substr(0, first.size()), first) << line;
    EXPECT_EQ(bytes.substr(bytes.size() - std::min(bytes.size(), last.size())), last) << line;
    line_begin = line_end + 1;
  }
}

TEST(ContentType, ParsesTheSupportedTypesAndNamesThemWhenNot) {
  EXPECT_EQ(ParseMediaType("text/plain")->type, ContentType::kText);
  EXPECT_EQ(ParseMediaType("text/markdown; charset=UTF-8")->type, ContentType::kMarkdown);
  EXPECT_EQ(ParseMediaType("text/x-markdown")->type, ContentType::kMarkdown);
  EXPECT_EQ(ParseMediaType(" TEXT/HTML ;charset=\"utf-8\"")->type, ContentType::kHtml);
  EXPECT_EQ(ParseMediaType("application/pdf")->type, ContentType::kPdf);
  const auto word = ParseMediaType("application/msword");
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(word.status().message(),
              HasSubstr("supported: text/plain, text/markdown, text/html, application/pdf"));
  // A charset is kept for the reader (formats/encoding.h); one ICU cannot convert is refused.
  const auto latin1 = ParseMediaType("text/html; charset=ISO-8859-1");
  ASSERT_TRUE(latin1.ok());
  EXPECT_EQ(latin1->type, ContentType::kHtml);
  EXPECT_EQ(latin1->charset, "iso-8859-1");
  EXPECT_EQ(ParseMediaType("text/plain")->charset, "");
  const auto unknown = ParseMediaType("text/plain; charset=klingon-8");
  ASSERT_FALSE(unknown.ok());
  EXPECT_THAT(unknown.status().message(), HasSubstr("charset 'klingon-8' is not known"));
  for (ContentType t :
       {ContentType::kText, ContentType::kMarkdown, ContentType::kHtml, ContentType::kPdf}) {
    EXPECT_EQ(ParseMediaType(MimeName(t))->type, t);
  }
}

TEST(ContentType, DetectsPdfAndHtmlAndNeverGuessesMarkdown) {
  EXPECT_EQ(Detect("%PDF-1.7\n%\xE2\xE3\xCF\xD3\n1 0 obj"), ContentType::kPdf);
  EXPECT_EQ(Detect("\n  <!DOCTYPE html><html><body>x</body></html>"), ContentType::kHtml);
  EXPECT_EQ(Detect("\xEF\xBB\xBF<html lang=en>"), ContentType::kHtml);
  EXPECT_EQ(Detect("<p>A small page.</p><p>Two paragraphs.</p>"), ContentType::kHtml);
  EXPECT_EQ(Detect("<!-- saved --><html>"), ContentType::kHtml);
  EXPECT_EQ(Detect("<?xml version=\"1.0\" encoding=\"iso-8859-1\"?>\n<!DOCTYPE html>"),
            ContentType::kHtml);
  EXPECT_EQ(Detect("<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">"),
            ContentType::kHtml);
  EXPECT_EQ(Detect("<?xml version=\"1.0\"?><feed>"), ContentType::kText);
  EXPECT_EQ(Detect("# Title\n\nSome *Markdown* text."), ContentType::kText);
  EXPECT_EQ(Detect("x < y and <b> is a tag name."), ContentType::kText);
  EXPECT_EQ(Detect("<preamble> is not a tag we know."), ContentType::kText);
}

constexpr std::string_view kMarkdown = R"(---
title: Front matter
status: draft
---
# Design of the cache

Caches **miss** at *start*, see [the docs](https://example.com/docs.html). Next sentence
here, wrapped.

* First item with `code`
* Second item
  1. Nested item
- [ ] A task

```go
func main() {}
```

| a | b |
|---|---|
| 1 | 2 |

![diagram](img.png)

Visit https://example.com/bare for more. <span>Inline html</span> stays.

> Quoted text line.

Setext heading
--------------
)";

TEST(Markdown, ExtractsTheTrainedTextForm) {
  const auto x = Extract(kMarkdown, ContentType::kMarkdown, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text,
            "Design of the cache\n"
            "Caches miss at start, see the docs. Next sentence here, wrapped.\n"
            "First item with code\n"
            "Second item\n"
            "Nested item\n"
            "A task\n"
            "Visit for more. Inline html stays.\n"
            "Quoted text line.\n"
            "Setext heading");
  ExpectPiecesPointIntoSource(*x, kMarkdown);
  // The link's text maps to the link text, not into its target.
  const size_t docs = x->text.find("docs.");
  const auto src = SourceOf(*x, docs, docs + 5);
  ASSERT_TRUE(src.has_value());
  EXPECT_EQ(kMarkdown.substr(src->begin, src->end - src->begin),
            "docs](https://example.com/docs.html).");
}

// The sample document scripts/run summarizes first is Markdown as people write it: each heading
// reads as a line of its own, never glued to the sentence after it (as the corpus's text form
// read as Markdown was: "Goals Keep the latency of short requests ...").
TEST(Markdown, TheSampleDocumentsHeadingsStandAlone) {
  std::ifstream in(TestSourceDir() + "/docs/sample.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto x = Extract(doc, ContentType::kMarkdown, {});
  ASSERT_TRUE(x.ok()) << x.status();
  std::vector<std::string> lines;
  std::istringstream text(x->text);
  for (std::string l; std::getline(text, l);) lines.push_back(l);
  int headings = 0;
  std::istringstream source(doc);
  for (std::string l; std::getline(source, l);) {
    if (l.empty() || l[0] != '#') continue;
    ++headings;
    const std::string title = l.substr(l.find_first_not_of("# "));
    EXPECT_NE(std::find(lines.begin(), lines.end(), title), lines.end()) << title;
  }
  EXPECT_GE(headings, 5);
}

TEST(Markdown, KeepsNoMarkupAtAll) {
  const auto x = Extract(kMarkdown, ContentType::kMarkdown, {});
  ASSERT_TRUE(x.ok());
  for (const std::string& line : Lines(x->text)) {
    EXPECT_THAT(line, Not(HasSubstr("](")));
    EXPECT_THAT(line, Not(HasSubstr("<")));
    EXPECT_THAT(line, Not(HasSubstr("|")));
    EXPECT_THAT(line, Not(HasSubstr("**")));
    EXPECT_NE(line[0], '#');
    EXPECT_NE(line[0], '*');
  }
}

TEST(Markdown, RefusesInvalidUtf8AndEmptyDocuments) {
  const auto bad = Extract("# Title\n\nbad \xC3\x28 byte", ContentType::kMarkdown, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("not valid UTF-8"));
  EXPECT_THAT(bad.status().message(), HasSubstr("byte offset 13"));
  const auto code = Extract("```\nonly code\n```\n", ContentType::kMarkdown, {});
  ASSERT_FALSE(code.ok());
  EXPECT_EQ(code.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(code.status().message(), HasSubstr("no text to summarize"));
}

TEST(Markdown, DeepNestingIsRefusedBeforeParsingAndDeepBracketsRead) {
  std::string deep(100000, '>');
  deep += " quoted\n";
  const auto refused = Extract(deep, ContentType::kMarkdown, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("the Markdown nesting limit"));
  const auto x = Extract(std::string(20000, '[') + "text", ContentType::kMarkdown, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_THAT(x->text, HasSubstr("text"));
}

constexpr std::string_view kHtml = R"(<!doctype html>
<html><head><title>T</title><style>p { color: red }</style>
<script>var x = "<p>not text</p>";</script></head>
<body><header><nav><a href="/">Home</a> <a href="/about">About</a></nav></header>
<div class="sidebar" role="navigation">Sidebar links</div>
<main><article><header><h1>Cache design</h1></header>
<p>Caches <b>miss</b> at start &amp; warm
   up. We keep a <a href="/pool">pool</a>.</p>
<ul><li>First item</li><li>Second <i>item</i></li></ul>
<pre>int x = 1;</pre><table><tr><td>cell</td></tr></table>
<div hidden>Hidden text</div><p aria-hidden="true">Also hidden</p>
<p>Last&nbsp;paragraph here.</p></article></main>
<footer>Copyright 2026 Example</footer><script>track()</script></body></html>
)";

TEST(Html, ExtractsTheMainContentInTheTrainedForm) {
  const auto x = Extract(kHtml, ContentType::kHtml, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text,
            "Cache design\n"
            "Caches miss at start & warm up. We keep a pool.\n"
            "First item\n"
            "Second item\n"
            "Last paragraph here.");
  ExpectPiecesPointIntoSource(*x, kHtml);
}

TEST(Html, WithoutMainDropsPageChrome) {
  constexpr std::string_view kPage =
      "<html><body><nav>Home | About</nav><header>Site name</header>"
      "<h2>Title</h2><p>First paragraph.<br>Second line.</p><aside>Related</aside>"
      "<footer>Contact</footer></body></html>";
  const auto x = Extract(kPage, ContentType::kHtml, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text, "Title\nFirst paragraph.\nSecond line.");
}

// Pages of the 2000s (libxslt's manual in /usr/share/doc) set their columns in tables: a table
// whose cells hold headings, paragraphs or lists is read as blocks; a data table is not.
TEST(Html, LayoutTablesAreReadAndDataTablesDropped) {
  constexpr std::string_view kOld =
      "<html><body><table width=100%><tr><td><table><tr><td><h1>The XSLT library</h1>"
      "</td></tr></table></td></tr><tr><td valign=top><ul><li><a href=a>Home</a></li></ul></td>"
      "<td><p>Libxslt is the XSLT C library.</p><table border=1><tr><th>Option</th>"
      "<th>Meaning</th></tr><tr><td>-o</td><td>output file</td></tr></table>"
      "<p>It is based on libxml2.</p></td></tr></table>"
      "<table role=presentation><tr><td>Laid out with a role.</td></tr></table></body></html>";
  const auto x = Extract(kOld, ContentType::kHtml, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text,
            "The XSLT library\nHome\nLibxslt is the XSLT C library.\nIt is based on libxml2.\n"
            "Laid out with a role.");
  ExpectPiecesPointIntoSource(*x, kOld);
}

// A wrapped line of Chinese or Japanese joins its next without a space; other scripts keep it.
TEST(Formats, WrappedChineseLinesJoinWithoutASpace) {
  const std::string md = "第一句话很\n重要。Latin\nwords 和\n中文\n\n- 列表项目\n  继续。\n";
  const auto m = Extract(md, ContentType::kMarkdown, {});
  ASSERT_TRUE(m.ok()) << m.status();
  EXPECT_EQ(m->text, "第一句话很重要。Latin words 和中文\n列表项目继续。");
  ExpectPiecesPointIntoSource(*m, md);
  const std::string page =
      "<p>第一句话很\n   重要。キャッシュを\n使う。Plain\nEnglish 中文 空格</p>";
  const auto h = Extract(page, ContentType::kHtml, {});
  ASSERT_TRUE(h.ok()) << h.status();
  EXPECT_EQ(h->text, "第一句话很重要。キャッシュを使う。Plain English 中文 空格");
}

// Headings keep their format's level (the outline reads them): Markdown's #s, HTML's h1-h6.
TEST(Formats, HeadingLevelsOfMarkdownAndHtml) {
  const auto md = Extract("# Title\n\nText here.\n\n### Deep\n\nMore text.\n\n##\n\nEnd.\n",
                          ContentType::kMarkdown, {});
  ASSERT_TRUE(md.ok()) << md.status();
  ASSERT_EQ(md->text, "Title\nText here.\nDeep\nMore text.\nEnd.");
  ASSERT_EQ(md->heading_levels.size(), 2U);  // the empty "##" marks nothing
  EXPECT_EQ(md->heading_levels[0].begin, 0U);
  EXPECT_EQ(md->heading_levels[0].level, 1);
  EXPECT_EQ(md->heading_levels[1].begin, 17U);
  EXPECT_EQ(md->heading_levels[1].level, 3);
  const auto html =
      Extract("<body><h2>Two</h2><p>Text.</p><h4>Four</h4></body>", ContentType::kHtml, {});
  ASSERT_TRUE(html.ok());
  ASSERT_EQ(html->heading_levels.size(), 2U);
  EXPECT_EQ(html->heading_levels[0].level, 2);
  EXPECT_EQ(html->heading_levels[1].begin, 10U);
  EXPECT_EQ(html->heading_levels[1].level, 4);
}

TEST(Html, DepthOverTheLimitIsRefusedAndHugeDepthDoesNotCrash) {
  std::string deep;
  for (int i = 0; i < 600; ++i) deep += "<div>";
  deep += "text";
  const auto x = Extract(deep, ContentType::kHtml, {});
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(x.status().message(), HasSubstr("deeper than 512 levels"));
  std::string deeper;
  for (int i = 0; i < 200000; ++i) deeper += "<div>";
  EXPECT_FALSE(Extract(deeper + "text", ContentType::kHtml, {}).ok());
  ExtractLimits shallow;
  shallow.max_html_depth = 8;
  EXPECT_TRUE(Extract("<p>one <b>two</b></p>", ContentType::kHtml, shallow).ok());
}

TEST(Html, RefusesPagesWithoutTextAndOverTheTextLimit) {
  const auto empty = Extract("<html><body><script>x()</script><nav>Menu</nav></body></html>",
                             ContentType::kHtml, {});
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("no text to summarize"));
  ExtractLimits small;
  small.max_text_bytes = 64;
  std::string big = "<p>";
  for (int i = 0; i < 100; ++i) big += "word ";
  const auto over = Extract(big, ContentType::kHtml, small);
  ASSERT_FALSE(over.ok());
  EXPECT_THAT(over.status().message(), HasSubstr("exceeds 64 bytes"));
}

// two-column.pdf: Chromium's print of two-column.html (formats/testdata/make-pdfs.sh), with its
// header (date, title) and footer (URL, page numbers) on every page.
TEST(Pdf, ReadsColumnsInOrderJoinsHyphensAndDropsPageFurniture) {
  const std::string pdf = ReadTestFile("two-column.pdf");
  ASSERT_FALSE(pdf.empty());
  EXPECT_EQ(Detect(pdf), ContentType::kPdf);
  const auto x = Extract(pdf, ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_GE(x->pages, 2);
  // Paragraphs come in document order (both columns of each page, then the next page).
  size_t last = 0;
  for (int i = 1; i <= 24; ++i) {
    const size_t at = x->text.find("aragraph" + std::to_string(i) + " sentence0");
    ASSERT_NE(at, std::string::npos) << i;
    EXPECT_GT(at, last) << i;
    last = at;
  }
  // Each paragraph is one line of the text form; headings are their own lines.
  const std::vector<std::string> lines = Lines(x->text);
  EXPECT_EQ(lines.front(), "Two column report");
  EXPECT_THAT(lines, ::testing::Contains("Section 2 heading"));
  EXPECT_EQ(lines.size(), 1U + 4U + 24U);
  // Words broken at a line end are whole again.
  size_t whole = 0;
  for (size_t at = 0; (at = x->text.find("reproducibility", at)) != std::string::npos; ++at) {
    ++whole;
  }
  EXPECT_EQ(whole, 24U);
  EXPECT_THAT(x->text, Not(HasSubstr("- ")));
  // Running header and footer and page numbers are gone.
  EXPECT_THAT(x->text, Not(HasSubstr("Formats test report")));
  EXPECT_THAT(x->text, Not(HasSubstr("file:")));
  EXPECT_THAT(x->text, Not(HasSubstr("/" + std::to_string(x->pages))));
}

// A diagonal watermark is not the document's text (its glyphs joined the words they crossed:
// "soDthat a crashRlosesA"), and a page without text is reported (watermark.html).
TEST(Pdf, WatermarksAreLeftOutAndPagesWithoutTextReported) {
  const auto x = Extract(ReadTestFile("watermark.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(Lines(x->text),
            (std::vector<std::string>{
                "Cache design",
                "The cache keeps the most recent pages in memory so that readers find them "
                "quickly. Each page carries the time it was last read, and the oldest page "
                "leaves first when the memory is full.",
                "Writers update a page in place and mark it dirty, and a background task writes "
                "dirty pages back to the disk every few seconds, so that a crash loses little "
                "work.",
                "The third page explains how the cache warms up after a restart: it reads the list "
                "of pages that were hot before the restart and loads them in the background."}));
  EXPECT_EQ(x->pages, 3);
  EXPECT_EQ(x->pages_without_text, std::vector<int32_t>{2});
  // The h1, set larger than the body, is a heading of level 1.
  ASSERT_EQ(x->heading_levels.size(), 1U);
  EXPECT_EQ(x->heading_levels[0].begin, 0U);
  EXPECT_EQ(x->heading_levels[0].level, 1);
}

// A PDF's outline (its bookmarks) gives its headings' levels where their type sizes cannot
// (outline.html: h1 and h3 set in one size), and its titles find their lines with the section
// numbers printed before them ("1.1 Compaction" for "Compaction"); a later line with a title's
// text ("Compaction" as a paragraph) is not a heading. Without an outline, type sizes do.
TEST(Pdf, TheOutlineGivesHeadingLevels) {
  const auto x = Extract(ReadTestFile("outline.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_TRUE(x->outline_headings);
  std::vector<std::pair<std::string, int32_t>> got;
  for (const HeadingLevel& h : x->heading_levels) {
    const size_t end = x->text.find('\n', h.begin);
    got.emplace_back(x->text.substr(h.begin, end - h.begin), h.level);
  }
  EXPECT_EQ(got, (std::vector<std::pair<std::string, int32_t>>{
                     {"The log store", 1}, {"1.1 Compaction", 2}, {"1.2 Recovery", 2}}));
  EXPECT_THAT(Lines(x->text), Contains("Compaction"));  // the paragraph, unmarked
  const auto plain = Extract(ReadTestFile("watermark.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_FALSE(plain->outline_headings);
  // An outline that loops (outline-loop.in: each entry its own child, the last one's next the
  // first) is read once: its first entry heads its line, and the reading ends.
  const auto loop = Extract(ReadTestFile("outline-loop.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(loop.ok()) << loop.status();
  EXPECT_TRUE(loop->outline_headings);
  ASSERT_EQ(loop->heading_levels.size(), 1U);
  EXPECT_EQ(loop->heading_levels[0].level, 1);
}

// A preformatted table and code (monospaced lines) are left out as in the other formats; a
// document set in a monospaced font is its text (preformatted.html, monospaced.html).
TEST(Pdf, PreformattedLinesAreLeftOutUnlessTheyAreTheDocument) {
  const auto x = Extract(ReadTestFile("preformatted.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(Lines(x->text),
            (std::vector<std::string>{
                "The configuration file names the fonts to use. Each property below has a type "
                "and a meaning, and the library reads them when it starts.",
                "A program that wants a font asks for a pattern and the library returns the "
                "closest match it knows, with its file name."}));
  const auto mono = Extract(ReadTestFile("monospaced.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(mono.ok()) << mono.status();
  EXPECT_THAT(mono->text, HasSubstr("This memo describes how the cache keeps recent pages"));
}

// What a paper holds besides its sentences is left out (paper.in, written by hand: a body in
// Times, headings in Times-Bold, a formula in TeX's math italic CMMI10): a contents line's dot
// leaders, a display formula and its number (the sentence around it stays one paragraph), a
// plot's axis labels, its caption (a block of its own, though it follows a footnote in its size:
// not a sentence that names the figure), the bibliography up to the next heading of its style,
// and a table in the body's font (its rows' cells begin at the same places; a description
// wrapped in its last cell goes with it). two-column.pdf's justified lines, whose spaces are
// sometimes as wide as a table's, are no table (ReadsColumnsInOrder...).
TEST(Pdf, FormulasFiguresTablesContentsAndTheBibliographyAreLeftOut) {
  const auto x = Extract(ReadTestFile("paper.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  const std::string first =
      "The model scores each sentence of a document and keeps the best ones for the summary.";
  EXPECT_EQ(Lines(x->text),
            (std::vector<std::string>{
                "1 Introduction", first,
                "The loss over a batch is where a is the first term and b the second.",
                "1 The loss is measured on documents held out.", "A Proofs",
                "Figure 1 shows that the loss falls as the model learns."}));
  EXPECT_EQ(x->heading_levels.size(), 2U);
}

// A page shown turned (/Rotate 90) is read upright, and its boxes are where the words are shown.
TEST(Pdf, RotatedPagesAreReadUprightWithBoxesAsShown) {
  const auto x = Extract(ReadTestFile("rotated.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  const std::vector<std::string> lines = Lines(x->text);
  ASSERT_EQ(lines.size(), 2U);
  EXPECT_EQ(lines[0],
            "The configuration file names the fonts to use. Each property below has a type and a "
            "meaning, and the library reads them when it starts.");
  // The upright page's first line is at its top; turned clockwise, it stands at the right.
  const std::vector<PageBox> boxes = PageBoxesOf(*x, 0, 3);
  ASSERT_FALSE(boxes.empty());
  EXPECT_GT(boxes[0].box.x0, 500);  // the page is shown 792 points wide
  EXPECT_LT(boxes[0].box.y0, 200);
  EXPECT_GT(boxes[0].box.y1 - boxes[0].box.y0, boxes[0].box.x1 - boxes[0].box.x0);  // upright
}

TEST(Pdf, BoxesHoldTheirWordsOnTheirPages) {
  const auto x = Extract(ReadTestFile("two-column.pdf"), ContentType::kPdf, {});
  ASSERT_TRUE(x.ok()) << x.status();
  uint64_t begin = 0;
  for (const std::string& line : Lines(x->text)) {
    const uint64_t end = begin + line.size();
    const std::vector<PageBox> boxes = PageBoxesOf(*x, begin, end);
    ASSERT_FALSE(boxes.empty()) << line;
    for (const Piece& p : x->pieces) {
      if (p.begin < begin || p.end > end) continue;
      ASSERT_GE(p.page, 1);
      ASSERT_LE(p.page, x->pages);
      bool held = false;
      for (const PageBox& b : boxes) {
        held |= b.page == p.page && b.box.x0 <= p.box.x0 && b.box.y0 <= p.box.y0 &&
                b.box.x1 >= p.box.x1 && b.box.y1 >= p.box.y1;
      }
      EXPECT_TRUE(held) << x->text.substr(p.begin, p.end - p.begin);
    }
    EXPECT_FALSE(SourceOf(*x, begin, end).has_value());  // a PDF has no byte ranges
    begin = end + 1;
  }
}

TEST(Pdf, BadPdfsGetAStatusAPersonCanActOn) {
  const std::string pdf = ReadTestFile("two-column.pdf");
  auto message = [](std::string_view input, const ExtractLimits& limits) {
    const auto x = Extract(input, ContentType::kPdf, limits);
    EXPECT_FALSE(x.ok());
    EXPECT_EQ(x.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(x.status().message().data(), x.status().message().size());
  };
  EXPECT_THAT(message("%PDF-1.4\nnot really a pdf", {}), HasSubstr("damaged or not a PDF"));
  EXPECT_THAT(message(pdf.substr(0, pdf.size() / 3), {}), HasSubstr("PDF"));
  EXPECT_THAT(message(ReadTestFile("scanned.pdf"), {}), HasSubstr("no text layer"));
  EXPECT_THAT(message(ReadTestFile("encrypted.pdf"), {}), HasSubstr("encrypted"));
  ExtractLimits one_page;
  one_page.max_pdf_pages = 1;
  EXPECT_THAT(message(pdf, one_page), HasSubstr("the limit is 1 (max_pdf_pages)"));
  ExtractLimits small;
  small.max_text_bytes = 500;
  EXPECT_THAT(message(pdf, small), HasSubstr("exceeds 500 bytes"));
}

TEST(Pdf, StopsAtTheDeadlineBetweenPages) {
  ExtractLimits past;
  past.deadline = absl::Now() - absl::Seconds(1);
  const auto x = Extract(ReadTestFile("two-column.pdf"), ContentType::kPdf, past);
  ASSERT_FALSE(x.ok());
  EXPECT_EQ(x.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(x.status().message(), HasSubstr("page 1 of"));
}

// The preparation pool reads documents on several threads at once: every reader gives each
// thread the same answer as one thread alone.
TEST(Formats, ConcurrentExtractionsAgree) {
  const std::string pdf = ReadTestFile("two-column.pdf");
  const std::string md(kMarkdown), page(kHtml);
  struct Input {
    const std::string* data;
    ContentType type;
  };
  const std::vector<Input> inputs = {
      {&pdf, ContentType::kPdf}, {&md, ContentType::kMarkdown}, {&page, ContentType::kHtml}};
  std::vector<std::string> want;
  want.reserve(inputs.size());
  for (const Input& in : inputs) want.push_back(Extract(*in.data, in.type, {})->text);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 6; ++i) {
        const size_t k = static_cast<size_t>(t + i) % inputs.size();
        const auto x = Extract(*inputs[k].data, inputs[k].type, {});
        if (!x.ok() || x->text != want[k]) ++wrong;
      }
    });
  }
  for (std::thread& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(Language, DetectsEnglishChineseAndJapanese) {
  EXPECT_EQ(DetectLanguage("The cache keeps recently used pages in memory so that a second "
                           "read of the same page does not go to the disk again."),
            "en");
  EXPECT_EQ(
      DetectLanguage("缓存把最近使用的页面保存在内存中，这样第二次读取同一页面时就不必再访问磁盘。"
                     "我们在启动时预热缓存。"),
      "zh");
  EXPECT_EQ(
      DetectLanguage("キャッシュは最近使ったページをメモリに保持するので、同じページを二度目に"
                     "読むときにディスクへ行かなくてよい。"),
      "ja");
  EXPECT_EQ(DetectLanguage("1234 5678"), "und");
}

}  // namespace
}  // namespace rpsum::formats
