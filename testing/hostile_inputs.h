// The catalogue of hostile inputs (docs/design.md, "What each reader bounds"): per reader, the
// families of documents that cost a parser more than linear time or memory, each a generator at
// any size, and a well-formed document of each format to compare them with. Shared by the
// growth tests (formats/hostile_test.cc) and the benchmark (bench/hostile.cc).
#ifndef RPSUM_TESTING_HOSTILE_INPUTS_H_
#define RPSUM_TESTING_HOSTILE_INPUTS_H_

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "formats/formats.h"
#include "testing/zip.h"

namespace rpsum::test {

// `unit` repeated until the result holds at least `bytes` bytes.
inline std::string Repeat(std::string_view unit, size_t bytes) {
  std::string out;
  out.reserve(bytes + unit.size());
  while (out.size() < bytes) out.append(unit);
  return out;
}

// Numbered units ("<b id=0>x", "<b id=1>x", ...) until `bytes`: `before` + number + `after`.
inline std::string Numbered(std::string_view before, std::string_view after, size_t bytes) {
  std::string out;
  out.reserve(bytes + 64);
  for (size_t i = 0; out.size() < bytes; ++i) {
    out.append(before);
    out.append(std::to_string(i));
    out.append(after);
  }
  return out;
}

// A PDF of `pages` pages (width x height points), page i's content stream made by
// `content(i)`, with one Helvetica font (/F1) and a correct cross-reference table.
template <typename Content>
std::string MinimalPdf(int pages, double width, double height, Content content) {
  std::string pdf = "%PDF-1.4\n";
  std::vector<size_t> offsets;
  auto object = [&](const std::string& body) {
    offsets.push_back(pdf.size());
    pdf += std::to_string(offsets.size()) + " 0 obj\n" + body + "\nendobj\n";
  };
  // 1 catalog, 2 pages, 3 font, then per page: page object, content stream.
  object("<< /Type /Catalog /Pages 2 0 R >>");
  std::string kids;
  for (int i = 0; i < pages; ++i) kids += std::to_string(4 + 2 * i) + " 0 R ";
  object("<< /Type /Pages /Kids [" + kids + "] /Count " + std::to_string(pages) + " >>");
  object("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>");
  char box[96];
  std::snprintf(box, sizeof box, "[0 0 %.0f %.0f]", width, height);
  for (int i = 0; i < pages; ++i) {
    object("<< /Type /Page /Parent 2 0 R /MediaBox " + std::string(box) +
           " /Resources << /Font << /F1 3 0 R >> >> /Contents " + std::to_string(5 + 2 * i) +
           " 0 R >>");
    const std::string stream = content(i);
    object("<< /Length " + std::to_string(stream.size()) + " >>\nstream\n" + stream +
           "\nendstream");
  }
  const size_t xref = pdf.size();
  pdf += "xref\n0 " + std::to_string(offsets.size() + 1) + "\n0000000000 65535 f \n";
  for (size_t o : offsets) {
    char line[32];
    std::snprintf(line, sizeof line, "%010zu 00000 n \n", o);
    pdf += line;
  }
  pdf += "trailer\n<< /Size " + std::to_string(offsets.size() + 1) +
         " /Root 1 0 R >>\nstartxref\n" + std::to_string(xref) + "\n%%EOF\n";
  return pdf;
}

// Words of `size` points placed with `per_line` to a line from the page's top-left corner.
inline std::string PdfWords(int words, int per_line, double size, double advance,
                            std::string_view word, double page_height) {
  std::string s = "BT\n";
  char op[160];
  std::snprintf(op, sizeof op, "/F1 %.2f Tf\n", size);
  s += op;
  for (int w = 0; w < words; ++w) {
    const double x = 36 + advance * (w % per_line);
    const int row = w / per_line + 1;
    const double y = page_height - 36 - 1.3 * size * row;
    std::snprintf(op, sizeof op, "1 0 0 1 %.2f %.2f Tm (%.*s) Tj\n", x, y,
                  static_cast<int>(word.size()), word.data());
    s += op;
  }
  return s + "ET";
}

// Words "a" of `size` points in rows of `per_line`, `advance` points apart, the first row at
// `top` points from the page's bottom, drawn compactly: one TJ array a row (8 bytes a word).
inline std::string PdfGrid(int words, int per_line, double size, double advance, double top,
                           std::string_view word = "a") {
  std::string s = "BT\n";
  char op[96];
  std::snprintf(op, sizeof op, "/F1 %.2f Tf\n", size);
  s += op;
  const int kern = -static_cast<int>(1000 * advance / size);
  for (int row = 0; row * per_line < words; ++row) {
    std::snprintf(op, sizeof op, "1 0 0 1 36 %.2f Tm [", top - 1.3 * size * row);
    s += op;
    for (int w = row * per_line; w < std::min(words, (row + 1) * per_line); ++w) {
      std::snprintf(op, sizeof op, "(%.*s)%d", static_cast<int>(word.size()), word.data(), kern);
      s += op;
    }
    s += "] TJ\n";
  }
  return s + "ET";
}

// `lines` lines of `text` in a 1-point font, `spacing` points apart from y = 700 down, after
// the text state operators `setup` (as "0.3 Tc").
inline std::string PdfLines(int lines, const std::string& text, double spacing,
                            std::string_view setup) {
  std::string s = "BT\n/F1 1 Tf\n";
  if (!setup.empty()) s += std::string(setup) + "\n";
  char op[64];
  for (int l = 0; l < lines; ++l) {
    std::snprintf(op, sizeof op, "1 0 0 1 36 %.2f Tm (", 700 - spacing * l);
    s += op + text + ") Tj\n";
  }
  return s + "ET";
}

// A well-formed PDF of about `bytes`: pages of 40 lines of prose.
inline std::string ProsePdf(size_t bytes) {
  static constexpr std::string_view kLine =
      "The cache keeps recent pages in memory and evicts the least recently used ones.";
  const int per_page = 40;
  const size_t page_bytes = per_page * (kLine.size() + 40);
  const int pages = static_cast<int>(std::max<size_t>(1, bytes / page_bytes));
  return MinimalPdf(pages, 612, 792, [&](int) {
    std::string s = "BT\n/F1 10 Tf\n";
    char op[64];
    for (int l = 0; l < per_page; ++l) {
      std::snprintf(op, sizeof op, "1 0 0 1 36 %d Tm (", 740 - 17 * l);
      s += op;
      s += kLine;
      s += ") Tj\n";
    }
    return s + "ET";
  });
}

// A stored package of about `bytes`: `first`, an entry of one byte per 120 bytes named
// `picture` + its number + ".png", then `content` (one paragraph).
inline std::string ManyEntries(std::pair<std::string, std::string> first,
                               const std::string& picture,
                               std::pair<std::string, std::string> content, size_t bytes) {
  ZipEntries e = {std::move(first)};
  for (size_t i = 0; i < bytes / 120; ++i) {
    e.emplace_back(picture + std::to_string(i) + ".png", "x");
  }
  e.push_back(std::move(content));
  return Zip(e, /*store=*/true);
}

struct HostileFamily {
  const char* name;
  formats::ContentType type;
  std::string (*make)(size_t bytes);
  // Its work is set by what it draws, not by its bytes (a PDF's pages sharing one content
  // stream): bounded by the characters a PDF may draw per byte of its own past a floor
  // (ExtractLimits::max_pdf_glyphs_per_byte), so small sizes cost more per byte than large
  // ones; left out of the growth tests, measured by the benchmark.
  bool amplified = false;
};

// Every family, each `make(bytes)` about `bytes` long.
inline const std::vector<HostileFamily>& HostileFamilies() {
  using formats::ContentType;
  static const auto* families = new std::vector<HostileFamily>{
      // HTML (gumbo): depth that HTML5's rules build while a naive tag count sees none, the
      // reopening of formatting elements, attributes, and text.
      {"html/self-closed-div", ContentType::kHtml, [](size_t n) { return Repeat("<div/>", n); }},
      {"html/unmatched-end-tags", ContentType::kHtml,
       [](size_t n) { return Repeat("<div></span>", n); }},
      {"html/reopened-formatting", ContentType::kHtml,
       [](size_t n) { return Numbered("<p><b id=", ">x", n); }},
      {"html/reopened-formatting-shallow", ContentType::kHtml,
       [](size_t n) {
         // (Slow-input fuzzing) as above, under the depth limit: 480 elements reopened again
         // and again, then text.
         return Numbered("<p><b id=", ">x", std::min<size_t>(n, 6000)) + Repeat("<p>y</p>", n);
       }},
      {"html/misnested-formatting", ContentType::kHtml,
       [](size_t n) { return Repeat("<b><div>x</b>", n); }},
      {"html/unclosed-font", ContentType::kHtml,
       [](size_t n) { return Numbered("<font color=", "><p>x</p>", n); }},
      {"html/nested-lists", ContentType::kHtml, [](size_t n) { return Repeat("<li><ul>", n); }},
      {"html/nested-tables", ContentType::kHtml,
       [](size_t n) { return Repeat("<table><tr><td>", n); }},
      {"html/deep-div", ContentType::kHtml, [](size_t n) { return Repeat("<div>", n) + "x"; }},
      {"html/many-attributes", ContentType::kHtml,
       [](size_t n) { return "<p " + Numbered("a", "=x ", n) + ">text</p>"; }},
      {"html/unclosed-a", ContentType::kHtml, [](size_t n) { return Repeat("<a href=x>y ", n); }},
      {"html/unclosed-comment", ContentType::kHtml,
       [](size_t n) { return "<p>x</p>" + Repeat("<!-", n); }},
      {"html/long-word-entity", ContentType::kHtml,
       [](size_t n) { return "<p>" + std::string(n, 'a') + "&amp;b</p>"; }},
      // Markdown (cmark-gfm 0.29.0.gfm.6): nesting and lazy lines, tables, brackets, raw HTML,
      // links, emphasis.
      {"md/nested-quote-lazy-lines", ContentType::kMarkdown,
       [](size_t n) { return Repeat("> ", n / 2) + "a\n" + Repeat("b\n", n / 2); }},
      {"md/nested-list-lazy-lines", ContentType::kMarkdown,
       [](size_t n) { return Repeat("- ", n / 2) + "a\n" + Repeat("b\n", n / 2); }},
      {"md/quote-markers", ContentType::kMarkdown, [](size_t n) { return Repeat(">", n) + "a"; }},
      {"md/wide-table", ContentType::kMarkdown,
       [](size_t n) {
         return Repeat("|a", n / 3) + "\n" + Repeat("|-", n / 3) + "\n" + Repeat("|b", n / 3);
       }},
      {"md/wide-table-rows", ContentType::kMarkdown,
       [](size_t n) { return "|a|\n|-|\n" + Repeat("|x", n); }},
      {"md/wide-header-rows", ContentType::kMarkdown,
       [](size_t n) {
         // (Slow-input fuzzing) a header and a delimiter row of unequal widths past the column
         // limit, and short rows: cut at the limit, they made a table padding every row.
         return Repeat("|a", 400) + "\n" + Repeat("|-", 1200) + "\n" + Repeat("a\n", n);
       }},
      {"md/pipeless-table-rows", ContentType::kMarkdown,
       [](size_t n) {
         // (Slow-input fuzzing) a one-column table whose header and rows hold no '|': cmark-gfm
         // reads every following line as a row, at 19x a prose document per byte unblanked.
         return "a\n|-|\n" + Repeat("a\n", n);
       }},
      {"md/paragraph-then-delimiter", ContentType::kMarkdown,
       [](size_t n) {
         // (Slow-input fuzzing) a long paragraph, then a delimiter row of another width:
         // cmark-gfm parses the whole paragraph as one header row, appending each line's cell
         // to a list it walks from its head (the square of the lines).
         return Repeat("a\n", n) + "-|-|-\n";
       }},
      {"md/long-table", ContentType::kMarkdown,
       [](size_t n) { return "words before\n\n|a|b|\n|-|-|\n" + Repeat("|x|y|\n", n); }},
      {"md/image-brackets", ContentType::kMarkdown, [](size_t n) { return Repeat("![[]()", n); }},
      {"md/open-brackets", ContentType::kMarkdown, [](size_t n) { return Repeat("[a", n); }},
      {"md/nested-brackets", ContentType::kMarkdown,
       [](size_t n) { return Repeat("[", n / 2) + "a" + Repeat("]", n / 2); }},
      {"md/unclosed-declarations", ContentType::kMarkdown,
       [](size_t n) { return "a" + Repeat("<!A ", n); }},
      {"md/unclosed-instructions", ContentType::kMarkdown,
       [](size_t n) { return "a" + Repeat("<? ", n); }},
      {"md/unclosed-cdata", ContentType::kMarkdown,
       [](size_t n) { return "a" + Repeat("a <![CDATA[", n); }},
      {"md/unclosed-comments", ContentType::kMarkdown,
       [](size_t n) { return "a" + Repeat("<!--", n); }},
      {"md/www-autolinks", ContentType::kMarkdown, [](size_t n) { return Repeat("www.a_", n); }},
      {"md/email-autolinks", ContentType::kMarkdown, [](size_t n) { return Repeat("a@", n); }},
      {"md/nested-emphasis", ContentType::kMarkdown,
       [](size_t n) { return Repeat("*a **a ", n / 2) + "b" + Repeat(" a** a*", n / 2); }},
      // The most nodes a byte makes: matched emphasis, escapes, strikethrough, short lines,
      // list items, paragraphs.
      {"md/emphasis-runs", ContentType::kMarkdown, [](size_t n) { return Repeat("*a* ", n); }},
      {"md/escapes", ContentType::kMarkdown, [](size_t n) { return Repeat("a\\* ", n); }},
      {"md/strikethrough-runs", ContentType::kMarkdown,
       [](size_t n) { return Repeat("a~b~ ", n); }},
      {"md/short-lines", ContentType::kMarkdown, [](size_t n) { return Repeat("a\n", n); }},
      {"md/list-items", ContentType::kMarkdown, [](size_t n) { return Repeat("- a\n", n); }},
      {"md/paragraphs", ContentType::kMarkdown, [](size_t n) { return Repeat("a\n\n", n); }},
      {"md/link-openers-emphasis", ContentType::kMarkdown,
       [](size_t n) { return Repeat("[ a_", n); }},
      {"md/unclosed-links", ContentType::kMarkdown, [](size_t n) { return Repeat("[a](<b", n); }},
      {"md/backtick-runs", ContentType::kMarkdown,
       [](size_t n) {
         std::string s;
         for (size_t k = 1; s.size() < n; ++k) s += "e" + std::string(k % 4096, '`');
         return s;
       }},
      {"md/references", ContentType::kMarkdown,
       [](size_t n) { return Numbered("[", "]: u\n", n / 2) + Repeat("[0] ", n / 2); }},
      // PDF (poppler and the layout): tiny words, wide pages, many pages, huge fonts, a broken
      // cross-reference table.
      {"pdf/tiny-words", ContentType::kPdf,
       [](size_t n) {
         const int words = static_cast<int>(n / 40);
         const int pages = std::max(1, words / 20000);
         return MinimalPdf(pages, 612, 792,
                           [&](int) { return PdfWords(words / pages, 150, 1, 3.6, "a", 792); });
       }},
      {"pdf/ordered-grid", ContentType::kPdf,
       [](size_t n) {
         // The most work poppler's reading order takes: just under the runs a page may hold
         // for it (formats.h, max_ordered_runs), each one tiny word, sixty a row (of eight
         // letters, so that 4 MB fits in 1,000 pages).
         const int pages = static_cast<int>(std::max<size_t>(1, n / 4400));
         return MinimalPdf(pages, 612, 792,
                           [&](int) { return PdfGrid(290, 60, 1, 8, 400, "abcdefgh"); });
       }},
      {"pdf/long-lines", ContentType::kPdf,
       [](size_t n) {
         // Ten lines a page of 390 one-letter words (set 0.3 points apart: one run, a word each
         // for poppler), under the runs and glyphs a page may hold for poppler's reading order,
         // whose time grows with the square of each line's words: 21x a prose PDF before such
         // a page was read as drawn (formats.h, max_ordered_run_words).
         const int pages = static_cast<int>(std::max<size_t>(1, n / 4400));
         return MinimalPdf(pages, 612, 792,
                           [](int) { return PdfLines(10, std::string(390, 'a'), 1.3, "0.3 Tc"); });
       }},
      {"pdf/overfull-page", ContentType::kPdf,
       [](size_t n) {
         // 110 overlapping lines of 38 words, past the glyphs a page may draw for poppler's
         // reading order: the 8,000 it took were still ordered, for nothing (26x prose before).
         const int pages = static_cast<int>(std::max<size_t>(1, n / 11800));
         return MinimalPdf(pages, 612, 792,
                           [](int) { return PdfLines(110, Repeat("a ", 76), 0.3, ""); });
       }},
      {"pdf/shared-contents", ContentType::kPdf,
       [](size_t n) {
         // Every page draws the first page's content stream (a page costs some 100 bytes), a
         // grid of 7,800 one-letter words, as many times as the page limit allows.
         const int pages = static_cast<int>(std::min<size_t>(1000, std::max<size_t>(1, n / 100)));
         std::string pdf = MinimalPdf(pages, 612, 792, [&](int page) {
           return page == 0 ? PdfGrid(7800, 27, 1, 0.956, 400) : std::string();
         });
         for (size_t at = pdf.find("/Contents "); at != std::string::npos;
              at = pdf.find("/Contents ", at + 1)) {
           const size_t end = pdf.find(" 0 R", at);
           pdf.replace(at + 10, end - at - 10, std::string(end - at - 11, ' ') + "5");
         }
         return pdf;
       },
       /*amplified=*/true},
      {"pdf/dense-grid", ContentType::kPdf,
       [](size_t n) {
         // Past that: 2,400 tiny words a page in a hundred columns, read in drawing order.
         const int pages = static_cast<int>(std::max<size_t>(1, n / 20000));
         return MinimalPdf(pages, 612, 792, [&](int) { return PdfGrid(2400, 100, 1, 3.6, 400); });
       }},
      {"pdf/wide-sparse-lines", ContentType::kPdf,
       [](size_t n) {
         // Two words a line, 89,000 points apart, 600 lines a page: the column search's bins.
         const int lines = static_cast<int>(std::max<size_t>(6, n / 70));
         const int pages = (lines + 599) / 600;
         return MinimalPdf(pages, 90000, 792, [&](int page) {
           std::string s = "BT\n/F1 1 Tf\n";
           char op[96];
           for (int l = 0; l < std::min(600, lines - 600 * page); ++l) {
             std::snprintf(op, sizeof op,
                           "1 0 0 1 36 %.1f Tm (a) Tj 1 0 0 1 89000 %.1f Tm (b) Tj\n",
                           780 - 1.3 * l, 780 - 1.3 * l);
             s += op;
           }
           return s + "ET";
         });
       }},
      {"pdf/one-word-pages", ContentType::kPdf,
       [](size_t n) {
         const int pages = static_cast<int>(std::min<size_t>(1000, std::max<size_t>(1, n / 200)));
         return MinimalPdf(pages, 612, 792,
                           [&](int) { return PdfWords(1, 1, 10, 0, "word", 792); });
       }},
      {"pdf/huge-font", ContentType::kPdf,
       [](size_t n) {
         const int pages = static_cast<int>(std::max<size_t>(1, n / 4000));
         return MinimalPdf(pages, 612, 792,
                           [&](int) { return PdfWords(60, 3, 4000, 200, "Huge", 792); });
       }},
      {"pdf/broken-xref", ContentType::kPdf,
       [](size_t n) {
         std::string pdf = ProsePdf(n);
         const size_t at = pdf.rfind("xref\n");
         for (size_t i = at + 5; i < pdf.size() && i < at + 400; ++i) {
           if (pdf[i] >= '0' && pdf[i] <= '9') pdf[i] = '7';
         }
         return pdf;
       }},
      // DOCX (libzip, libxml2's reader), every entry stored so that a family's bytes are its
      // XML's: runs and paragraphs of one letter (a word and a piece each), elements nested
      // past the XML depth limit, a package of many entries, and a bomb (amplified: it inflates
      // to the unpacked-bytes limit whatever its size).
      {"docx/one-letter-runs", ContentType::kDocx,
       [](size_t n) {
         return StoredDocx(Repeat("<w:p>" + Repeat("<w:r><w:t>a</w:t></w:r>", 2200) + "</w:p>", n));
       }},
      {"docx/one-letter-paragraphs", ContentType::kDocx,
       [](size_t n) { return StoredDocx(Repeat("<w:p><w:r><w:t>a</w:t></w:r></w:p>", n)); }},
      {"docx/deep-nesting", ContentType::kDocx,
       [](size_t n) {
         return StoredDocx(Repeat("<w:sdt><w:sdtContent>", n / 2) + "<w:p/>" +
                           Repeat("</w:sdtContent></w:sdt>", n / 2));
       }},
      {"docx/many-entries", ContentType::kDocx,
       [](size_t n) {
         return ManyEntries({"[Content_Types].xml", "<Types/>"}, "word/media/image",
                            {"word/document.xml",
                             "<w:document xmlns:w=\"http://schemas.openxmlformats.org/"
                             "wordprocessingml/2006/main\"><w:body><w:p><w:r><w:t>One "
                             "paragraph.</w:t></w:r></w:p></w:body></w:document>"},
                            n);
       }},
      {"docx/bomb", ContentType::kDocx,
       [](size_t n) {
         // Deflate packs a run of one byte about a thousandfold; past 72 MB the reader has
         // stopped at its unpacked-bytes limit (64 MiB), so no larger bomb is built.
         return Zip({{"[Content_Types].xml", "<Types/>"},
                     {"word/document.xml",
                      "<w:document xmlns:w=\"http://schemas.openxmlformats.org/wordprocessingml/"
                      "2006/main\"><w:body><w:p><w:r><w:t>" +
                          std::string(std::min<size_t>(n * 1000, size_t{72} << 20), 'a') +
                          "</w:t></w:r></w:p></w:body></w:document>"}});
       },
       /*amplified=*/true},
      // ODT (the same package and XML readers, OpenDocument's elements), stored: spans and
      // paragraphs of one letter, sections nested past the XML depth limit, many entries, a
      // bomb.
      {"odt/one-letter-spans", ContentType::kOdt,
       [](size_t n) {
         return Odt(Repeat("<text:p>" + Repeat("<text:span>a</text:span>", 2200) + "</text:p>", n),
                    /*store=*/true);
       }},
      {"odt/one-letter-paragraphs", ContentType::kOdt,
       [](size_t n) { return Odt(Repeat("<text:p>a</text:p>", n), /*store=*/true); }},
      {"odt/deep-nesting", ContentType::kOdt,
       [](size_t n) {
         return Odt(
             Repeat("<text:section>", n / 2) + "<text:p/>" + Repeat("</text:section>", n / 2),
             /*store=*/true);
       }},
      {"odt/many-entries", ContentType::kOdt,
       [](size_t n) {
         return ManyEntries({"mimetype", "application/vnd.oasis.opendocument.text"},
                            "Pictures/image",
                            {"content.xml",
                             "<office:document-content xmlns:office=\"o\" xmlns:text=\"t\">"
                             "<office:body><office:text><text:p>One paragraph.</text:p>"
                             "</office:text></office:body></office:document-content>"},
                            n);
       }},
      {"odt/bomb", ContentType::kOdt,
       [](size_t n) {
         return Odt("<text:p>" + std::string(std::min<size_t>(n * 1000, size_t{72} << 20), 'a') +
                        "</text:p>",
                    /*store=*/false);
       },
       /*amplified=*/true},
      // EPUB (the package reader, the OPF's spine, each chapter's XHTML), stored: a chapter of
      // one-letter paragraphs, thousands of one-paragraph chapters, a chapter nested past the
      // XML depth limit, a spine that names one chapter over and over, a bomb.
      {"epub/one-letter-paragraphs", ContentType::kEpub,
       [](size_t n) { return Epub({Repeat("<p>a</p>", n)}, /*store=*/true); }},
      {"epub/many-chapters", ContentType::kEpub,
       [](size_t n) {
         std::vector<std::string> chapters(n / 300 + 1, "<p>A chapter of one sentence.</p>");
         return Epub(chapters, /*store=*/true);
       }},
      {"epub/deep-nesting", ContentType::kEpub,
       [](size_t n) {
         return Epub({Repeat("<div>", n / 2) + "<p>x</p>" + Repeat("</div>", n / 2)},
                     /*store=*/true);
       }},
      {"epub/repeated-spine", ContentType::kEpub,
       [](size_t n) {
         return Epub({Repeat("<p>The cache keeps recent pages in memory.</p>", 2000)},
                     /*store=*/true, n / 20);
       }},
      {"epub/bomb", ContentType::kEpub,
       [](size_t n) {
         return Epub(
             {"<p>" + std::string(std::min<size_t>(n * 1000, size_t{72} << 20), 'a') + "</p>"},
             /*store=*/false);
       },
       /*amplified=*/true},
  };
  return *families;
}

// About `xml` bytes of prose markup: paragraphs of pseudo-random words (a fixed seed) in
// `para` (its open and close tags), every eighth a heading of three words in `heading`, so that
// it packs about as much as prose does, not the thousandfold of a repeated paragraph.
struct Tags {
  std::string_view open, close;
};
inline std::string ProseXml(size_t xml, Tags heading, Tags para) {
  std::string body;
  uint32_t seed = 12345;
  const auto next = [&seed] { return seed = seed * 1103515245u + 12345u; };
  for (int p = 0; body.size() < xml; ++p) {
    const Tags& tags = p % 8 == 0 ? heading : para;
    body += tags.open;
    for (int w = 0; w < (p % 8 == 0 ? 3 : 24); ++w) {
      const int letters = 2 + static_cast<int>((next() >> 16) % 8);
      for (int l = 0; l < letters; ++l) body += static_cast<char>('a' + (next() >> 16) % 26);
      body += w % 12 == 11 ? ". " : " ";
    }
    body += tags.close;
  }
  return body;
}

// A well-formed package of about `bytes`, deflated as word processors write it: `make` of the
// prose markup, grown until the package is `bytes` long.
template <typename Make>
std::string DeflatedPackage(size_t bytes, Make make) {
  std::string package;
  for (size_t xml = 3 * bytes; package.size() < bytes; xml += xml / 4 + 1) package = make(xml);
  return package;
}

inline std::string DeflatedDocx(size_t bytes) {
  return DeflatedPackage(bytes, [](size_t xml) {
    return Docx(ProseXml(xml,
                         {"<w:p><w:pPr><w:pStyle w:val=\"Heading2\"/></w:pPr><w:r><w:t>",
                          "</w:t></w:r></w:p>"},
                         {"<w:p><w:r><w:t xml:space=\"preserve\">", "</w:t></w:r></w:p>"}),
                /*store=*/false);
  });
}

inline std::string DeflatedOdt(size_t bytes) {
  return DeflatedPackage(bytes, [](size_t xml) {
    return Odt(ProseXml(xml, {"<text:h text:outline-level=\"2\">", "</text:h>"},
                        {"<text:p>", "</text:p>"}),
               /*store=*/false);
  });
}

// Chapters of about 64 KB of prose each, as books are split.
inline std::string DeflatedEpub(size_t bytes) {
  return DeflatedPackage(bytes, [](size_t xml) {
    std::vector<std::string> chapters;
    for (size_t done = 0; done < xml; done += 64 << 10) {
      chapters.push_back(
          ProseXml(std::min<size_t>(64 << 10, xml - done), {"<h2>", "</h2>"}, {"<p>", "</p>"}));
    }
    return Epub(chapters, /*store=*/false);
  });
}

// A well-formed document of `type` of about `bytes`, to time the families against.
inline std::string WellFormed(formats::ContentType type, size_t bytes) {
  using formats::ContentType;
  switch (type) {
    case ContentType::kHtml:
      return "<!doctype html><html><body><main>" +
             Repeat(
                 "<h2>Caching</h2>\n<p>The cache keeps <b>recent</b> pages in memory and "
                 "evicts the <a href=\"/lru\">least recently used</a> ones.</p>\n"
                 "<ul><li>First point of the list.</li><li>Second point.</li></ul>\n",
                 bytes) +
             "</main></body></html>";
    case ContentType::kMarkdown:
      return Repeat(
          "## Caching\n\nThe cache keeps **recent** pages in memory and evicts the "
          "[least recently used](https://example.org/lru) ones.\n\n"
          "- First point of the list.\n- Second point with `code`.\n\n",
          bytes);
    case ContentType::kPdf:
      return ProsePdf(bytes);
    case ContentType::kDocx:
      return DeflatedDocx(bytes);
    case ContentType::kOdt:
      return DeflatedOdt(bytes);
    case ContentType::kEpub:
      return DeflatedEpub(bytes);
    case ContentType::kText:
      break;
  }
  return Repeat("The cache keeps recent pages in memory. ", bytes);
}

}  // namespace rpsum::test

#endif  // RPSUM_TESTING_HOSTILE_INPUTS_H_
