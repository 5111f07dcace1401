// DOCX, ODT and EPUB: packages written here (libzip) with each structure the readers handle,
// the real documents of ../shared/data/realdocs, and packages that must be refused.
#include <zip.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "formats/formats.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "model/document.h"
#include "testing/source_dir.h"
#include "testing/zip.h"

namespace rpsum::formats {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using Entries = test::ZipEntries;
using test::Zip;

constexpr std::string_view kDocxMime =
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document";

std::string Docx(const std::string& body, const std::string& styles = "") {
  const std::string doc =
      "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>"
      "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/main\">"
      "<w:body>" +
      body + "<w:sectPr/></w:body></w:document>";
  Entries e = {{"[Content_Types].xml", "<Types/>"}, {"word/document.xml", doc}};
  if (!styles.empty()) {
    e.emplace_back("word/styles.xml",
                   "<w:styles xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/2006/"
                   "main\">" +
                       styles + "</w:styles>");
  }
  return Zip(e);
}

std::string P(const std::string& runs, const std::string& props = "") {
  return "<w:p>" + (props.empty() ? "" : "<w:pPr>" + props + "</w:pPr>") + runs + "</w:p>";
}
std::string R(const std::string& text) {
  return "<w:r><w:t xml:space=\"preserve\">" + text + "</w:t></w:r>";
}

// The line of `text` that holds `needle`, and its PartOf.
std::optional<PartRange> PartOfLine(const Extracted& x, std::string_view line) {
  const size_t at = x.text.find(line);
  if (at == std::string::npos) return std::nullopt;
  return PartOf(x, at, at + line.size());
}

TEST(Docx, ParagraphsTrackedChangesAndWhereEachComesFrom) {
  const std::string body =
      P(R("Design"), "<w:pStyle w:val=\"Heading1\"/>") +
      P(R("The cache ") + "<w:del><w:r><w:delText>never </w:delText></w:r></w:del>" +
        "<w:ins><w:r><w:t xml:space=\"preserve\">always </w:t></w:r></w:ins>" + R("warms") +
        "<w:r><w:tab/></w:r>" + R("up.") +
        "<w:r><w:footnoteReference w:id=\"1\"/></w:r><w:r><w:commentReference w:id=\"0\"/></w:r>") +
      "<w:tbl><w:tr><w:tc>" + P(R("A cell of a table.")) + "</w:tc></w:tr></w:tbl>" +
      "<w:sdt><w:sdtPr><w:docPartObj><w:docPartGallery w:val=\"Table of Contents\"/>"
      "</w:docPartObj></w:sdtPr><w:sdtContent>" +
      P(R("Contents")) + "</w:sdtContent></w:sdt>" +
      P(R("Design 3"), "<w:pStyle w:val=\"TOC1\"/>") +
      P(R("Caf\xC3\xA9 ouvre t\xC3\xB4t le matin."), "<w:numPr><w:numId w:val=\"1\"/></w:numPr>") +
      P("<w:r><w:fldChar w:fldCharType=\"begin\"/></w:r><w:r><w:instrText> PAGE </w:instrText>"
        "</w:r><w:r><w:fldChar w:fldCharType=\"separate\"/></w:r>" +
        R("Page 7 of the report.") + "<w:r><w:fldChar w:fldCharType=\"end\"/></w:r>") +
      P("<w:r><w:drawing><wp:inline xmlns:wp=\"x\"><w:txbxContent>" + P(R("In a text box.")) +
        "</w:txbxContent></wp:inline></w:drawing></w:r>" + R("After the drawing."));
  const std::string styles =
      "<w:style w:styleId=\"Heading1\"><w:name w:val=\"heading 1\"/></w:style>"
      "<w:style w:styleId=\"TOC1\"><w:name w:val=\"toc 1\"/></w:style>";
  const std::string docx = Docx(body, styles);
  EXPECT_EQ(Detect(docx), ContentType::kDocx);
  EXPECT_EQ(ParseMediaType(kDocxMime)->type, ContentType::kDocx);
  const absl::StatusOr<Extracted> x = Extract(docx, ContentType::kDocx, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text,
            "Design\nThe cache always warms up.\nCaf\xC3\xA9 ouvre t\xC3\xB4t le matin.\n"
            "Page 7 of the report.\nAfter the drawing.");
  ASSERT_EQ(x->parts, std::vector<std::string>{"word/document.xml"});
  // Paragraphs count every w:p of the part in order: the table's, the contents' and the text
  // box's included.
  const auto cache = PartOfLine(*x, "The cache always warms up.");
  ASSERT_TRUE(cache.has_value());
  EXPECT_EQ(cache->part, "word/document.xml");
  EXPECT_EQ(cache->paragraph, 1);
  EXPECT_EQ(cache->begin, 0u);
  EXPECT_EQ(cache->end, 26u);  // "The cache always warms\tup." in characters
  const size_t at = x->text.find("ouvre");
  const auto ouvre = PartOf(*x, at, at + 5);
  ASSERT_TRUE(ouvre.has_value());
  EXPECT_EQ(ouvre->paragraph, 5);
  EXPECT_EQ(ouvre->begin, 5u);  // "Café " is five characters
  EXPECT_EQ(ouvre->end, 10u);
  EXPECT_EQ(PartOfLine(*x, "After the drawing.")->paragraph, 7);
  // "Design" is a heading 1 by its style.
  ASSERT_EQ(x->heading_levels.size(), 1U);
  EXPECT_EQ(x->heading_levels[0].begin, 0U);
  EXPECT_EQ(x->heading_levels[0].level, 1);
}

TEST(Odt, HeadingsListsNotesCommentsAndTrackedChanges) {
  const std::string content =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?><office:document-content "
      "xmlns:office=\"o\" xmlns:text=\"t\" xmlns:table=\"b\" xmlns:draw=\"d\"><office:body>"
      "<office:text><text:tracked-changes><text:changed-region><text:deletion>"
      "<text:p>Old words that were deleted.</text:p></text:deletion></text:changed-region>"
      "</text:tracked-changes><text:h text:outline-level=\"1\">Overview</text:h>"
      "<text:p>The queue<text:s text:c=\"3\"/>holds requests.<text:note><text:note-citation>1"
      "</text:note-citation><text:note-body><text:p>A footnote.</text:p></text:note-body>"
      "</text:note><office:annotation><text:p>A comment.</text:p></office:annotation>"
      " Workers <text:span>take</text:span> the oldest.</text:p>"
      "<table:table><table:table-row><table:table-cell><text:p>A cell.</text:p>"
      "</table:table-cell></table:table-row></table:table>"
      "<text:list><text:list-item><text:p>One item of a list.</text:p></text:list-item>"
      "</text:list></office:text></office:body></office:document-content>";
  const std::string odt =
      Zip({{"mimetype", "application/vnd.oasis.opendocument.text"}, {"content.xml", content}});
  EXPECT_EQ(Detect(odt), ContentType::kOdt);
  const absl::StatusOr<Extracted> x = Extract(odt, ContentType::kOdt, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text,
            "Overview\nThe queue holds requests. Workers take the oldest.\nOne item of a list.");
  const auto item = PartOfLine(*x, "One item of a list.");
  ASSERT_TRUE(item.has_value());
  EXPECT_EQ(item->part, "content.xml");
  EXPECT_EQ(item->paragraph, 6);  // the deleted, note's, comment's and cell's paragraphs count
  ASSERT_EQ(x->heading_levels.size(), 1U);  // Overview, an outline level 1 heading
  EXPECT_EQ(x->heading_levels[0].level, 1);
  const auto holds = PartOfLine(*x, "holds requests.");
  EXPECT_EQ(holds->begin, 12u);  // "The queue" and three spaces
}

TEST(Epub, TheSpineInOrderEachSentenceInItsFile) {
  const std::string ch1 =
      "<?xml version=\"1.0\"?><html xmlns=\"http://www.w3.org/1999/xhtml\">"
      "<body><h1>One</h1><p>The first chapter opens here.</p></body></html>";
  const std::string ch2 = "<html><body><p>The second chapter follows it.</p></body></html>";
  const std::string nav =
      "<html><body><nav><ol><li>One</li></ol></nav><p>Contents page.</p>"
      "</body></html>";
  const std::string epub =
      Zip({{"mimetype", "application/epub+zip"},
           {"META-INF/container.xml",
            "<container><rootfiles><rootfile full-path=\"OEBPS/content.opf\"/></rootfiles>"
            "</container>"},
           {"OEBPS/content.opf",
            "<package><manifest><item id=\"nav\" href=\"nav.xhtml\" properties=\"nav\" "
            "media-type=\"application/xhtml+xml\"/><item id=\"c1\" href=\"text/ch%201.xhtml\" "
            "media-type=\"application/xhtml+xml\"/><item id=\"c2\" href=\"text/ch2.xhtml\" "
            "media-type=\"application/xhtml+xml\"/></manifest><spine><itemref idref=\"nav\"/>"
            "<itemref idref=\"c2\"/><itemref idref=\"c1\"/></spine></package>"},
           {"OEBPS/nav.xhtml", nav},
           {"OEBPS/text/ch 1.xhtml", ch1},
           {"OEBPS/text/ch2.xhtml", ch2}});
  EXPECT_EQ(Detect(epub), ContentType::kEpub);
  const absl::StatusOr<Extracted> x = Extract(epub, ContentType::kEpub, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text, "The second chapter follows it.\nOne\nThe first chapter opens here.");
  const auto first = PartOfLine(*x, "The first chapter opens here.");
  ASSERT_TRUE(first.has_value());
  EXPECT_EQ(first->part, "OEBPS/text/ch 1.xhtml");
  EXPECT_EQ(ch1.substr(first->begin, first->end - first->begin), "The first chapter opens here.");
}

// A spine that names a chapter again (thousands of times, in testing/hostile_inputs.h's
// epub/repeated-spine) reads it once, where it first stands.
TEST(Epub, AChapterTheSpineNamesAgainIsReadOnce) {
  const std::string epub = test::Epub({"<p>The first chapter.</p>", "<p>The second.</p>"},
                                      /*store=*/true, /*repeat=*/0);
  const std::string twice =
      Zip({{"mimetype", "application/epub+zip"},
           {"META-INF/container.xml",
            "<container><rootfiles><rootfile full-path=\"content.opf\"/></rootfiles></container>"},
           {"content.opf",
            "<package><manifest><item id=\"a\" href=\"a.xhtml\" media-type=\"application/"
            "xhtml+xml\"/><item id=\"b\" href=\"b.xhtml\" media-type=\"application/xhtml+xml\"/>"
            "<item id=\"a2\" href=\"a.xhtml\" media-type=\"application/xhtml+xml\"/></manifest>"
            "<spine><itemref idref=\"a\"/><itemref idref=\"b\"/><itemref idref=\"a\"/>"
            "<itemref idref=\"a2\"/><itemref idref=\"b\"/></spine></package>"},
           {"a.xhtml", "<html><body><p>The first chapter.</p></body></html>"},
           {"b.xhtml", "<html><body><p>The second.</p></body></html>"}});
  const absl::StatusOr<Extracted> x = Extract(twice, ContentType::kEpub, {});
  ASSERT_TRUE(x.ok()) << x.status();
  EXPECT_EQ(x->text, "The first chapter.\nThe second.");
  const absl::StatusOr<Extracted> y = Extract(epub, ContentType::kEpub, {});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->text, x->text);
}

TEST(Packages, BombsDeepXmlDtdsAndDamageAreRefused) {
  ExtractLimits small;
  small.max_unpacked_bytes = 1 << 20;
  const std::string bomb = Docx(P(R(std::string(4 << 20, 'a'))));
  EXPECT_LT(bomb.size(), 64u << 10);
  const absl::StatusOr<Extracted> b = Extract(bomb, ContentType::kDocx, small);
  ASSERT_FALSE(b.ok());
  EXPECT_EQ(b.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(b.status().message(), HasSubstr("unpacks past 1048576 bytes (max_unpacked_bytes)"));
  std::string deep;
  for (int i = 0; i < 400; ++i) deep += "<w:sdt>";
  for (int i = 0; i < 400; ++i) deep += "</w:sdt>";
  const absl::StatusOr<Extracted> d = Extract(Docx(deep), ContentType::kDocx, {});
  ASSERT_FALSE(d.ok());
  EXPECT_THAT(d.status().message(), HasSubstr("deeper than 256 levels"));
  const std::string dtd = Zip({{"content.xml",
                                "<?xml version=\"1.0\"?><!DOCTYPE x [<!ENTITY a \"aaaa\">]>"
                                "<x>&a;</x>"}});
  const absl::StatusOr<Extracted> t = Extract(dtd, ContentType::kOdt, {});
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(t.status().message(), HasSubstr("DTD"));
  const absl::StatusOr<Extracted> n = Extract("not a zip at all", ContentType::kDocx, {});
  ASSERT_FALSE(n.ok());
  EXPECT_THAT(n.status().message(), HasSubstr("is not a readable zip package"));
  const absl::StatusOr<Extracted> m = Extract(Zip({{"x", "y"}}), ContentType::kDocx, {});
  ASSERT_FALSE(m.ok());
  EXPECT_THAT(m.status().message(), HasSubstr("has no readable word/document.xml"));
  const absl::StatusOr<Extracted> bad = Extract(Docx("<w:p><w:r>"), ContentType::kDocx, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(bad.status().message(), HasSubstr("not well-formed"));
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream s(text);
  for (std::string line; std::getline(s, line);) out.push_back(line);
  return out;
}

std::string ReadRealDoc(const std::string& name) {
  std::ifstream in(test::TestSourceDir() + "/../shared/data/realdocs/" + name, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The real documents: each read as its kind, without the comments, footnotes and deleted text
// they hold, with their own heading styles' lines as headings.
TEST(RealDocuments, AreReadWithoutCommentsFootnotesOrDeletedText) {
  struct Doc {
    const char* name;
    ContentType type;
    size_t min_words;
  };
  for (const Doc& d :
       {Doc{"01.docx", ContentType::kDocx, 60000}, Doc{"04.docx", ContentType::kDocx, 1500},
        Doc{"07.docx", ContentType::kDocx, 9000}, Doc{"09.docx", ContentType::kDocx, 7500},
        Doc{"10.docx", ContentType::kDocx, 6500}, Doc{"12.docx", ContentType::kDocx, 2500},
        Doc{"15.odt", ContentType::kOdt, 8000}, Doc{"17.odt", ContentType::kOdt, 7500},
        Doc{"20.odt", ContentType::kOdt, 2000}, Doc{"25.epub", ContentType::kEpub, 55000}}) {
    SCOPED_TRACE(d.name);
    const std::string bytes = ReadRealDoc(d.name);
    ASSERT_FALSE(bytes.empty()) << "../shared/data/realdocs is missing";
    EXPECT_EQ(Detect(bytes), d.type);
    const absl::StatusOr<Extracted> x = Extract(bytes, d.type, {});
    ASSERT_TRUE(x.ok()) << x.status();
    EXPECT_GE(x->pieces.size(), d.min_words);
    EXPECT_TRUE(model::ValidateText(x->text, "text").ok());
    // Every word has its place.
    for (const Piece& p : x->pieces) {
      ASSERT_GT(p.page, 0);
      ASSERT_LE(static_cast<size_t>(p.page), x->blocks.size());
    }
    const std::string& t = x->text;
    if (std::string(d.name) == "01.docx") {
      EXPECT_THAT(t, HasSubstr("The description of every GUID-valued property will state"));
      EXPECT_THAT(t, Not(HasSubstr("syllable")));  // the footnote
    }
    if (std::string(d.name) == "07.docx") {
      EXPECT_THAT(t, Not(HasSubstr("prefer to stick with A1")));  // a comment
    }
    if (std::string(d.name) == "17.odt") {
      EXPECT_THAT(t, Not(HasSubstr("concernant la construction")));  // a footnote
    }
    if (std::string(d.name) == "09.docx") {  // custom heading styles HeadA, HeadB, HeadC
      for (const char* h : {"Authentication", "Common web authentication techniques",
                            "Forms based authentication", "How to protect yourself"}) {
        EXPECT_THAT(Lines(t), ::testing::Contains(h));
        EXPECT_TRUE(model::IsHeadingLine(h));
      }
    }
  }
}

}  // namespace
}  // namespace rpsum::formats
