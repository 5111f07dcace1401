// The PDF reader's lines and their layout (formats/pdf.cc, pdf_layout.cc); internal to
// formats/.
#ifndef RPSUM_FORMATS_INTERNAL_PDF_LAYOUT_H_
#define RPSUM_FORMATS_INTERNAL_PDF_LAYOUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "formats/formats.h"

class PDFDoc;  // poppler's

namespace rpsum::formats::internal {

struct Word {
  std::string text;
  Box box;
  double font_size = 0;
  bool soft_hyphen_end = false;  // ended in U+00AD: a hyphenation point, shown at a line end
  bool mono = false;             // in a monospaced font (code, preformatted tables)
  uint16_t chars = 0;            // characters (poppler's), at most 65,535 counted
  uint16_t math_chars = 0;       // of those, set in a math font (TeX's cmmi, cmsy, ...)
  uint32_t font = 0;             // the first character's font: a hash of its name
};

struct Line {
  std::vector<Word> words;  // left to right
  Box box;
  double font_size = 0;  // the largest of its words'
  int32_t page = 0;      // 1-based
  bool margin = false;   // in the top or bottom tenth of its page
  bool dropped = false;
  bool after_display = false;  // the first line after a display formula left out, same page
  std::string Text() const {
    std::string t;
    for (const Word& w : words) {
      if (!t.empty()) t += ' ';
      t += w.text;
    }
    return t;
  }
};

// Headings by their type size: a block's first line of at most 12 words set 15% larger than the
// body (the size most words are set in) is a heading, its level the rank of its size among such
// lines' sizes (the largest 1, at most 6). Sizes count in half points.
class HeadingSizes {
 public:
  explicit HeadingSizes(const std::vector<Line>& lines);
  // The line's heading level, or 0.
  int32_t LevelOf(const Line& l) const;

 private:
  bool IsHeadingSize(const Line& l) const;
  int body_ = 0;
  std::vector<int> sizes_;  // descending
};

// Marks running headers and footers and page numbers: margin lines that repeat (digits aside)
// on three pages or more (or on half the pages of a short document), and margin lines that
// stand apart from the body and look like a page number, a URL, a date or a time. A body line at
// a page's top or foot that holds a URL or a date stays. `pages`: each page's lines.
void DropPageFurniture(std::vector<std::vector<Line>>* pages);

// Code listings and preformatted tables: lines set wholly in a monospaced font are left out,
// as code blocks and tables are in the other formats (a listing's lines are not sentences, and
// a preformatted table read as text made a summary sentence of its header and rows). Unless
// most of the document's words are monospaced: then it is its text (a page printed from plain
// text).
void DropPreformatted(std::vector<std::vector<Line>>* pages);

// Display formulas and the text of figures: lines (in reading order, columns apart) set mostly
// in math fonts with at most two words of prose, lines of numbers (four or more, two thirds of
// the words: axis labels, tables of figures, a contents page's page numbers) and contents
// entries (dot leaders before a page number) are left out, and the line after a formula is
// marked after_display (a sentence that goes on after its formula, "where x is ...", stays in
// its paragraph). Unless most of the document's words are in such lines.
void DropFormulasAndFigures(std::vector<Line>* lines);

// Tables set in a proportional font: runs of lines in reading order, on one page, of which at
// least two are rows of four cells or more (runs of words apart by an em or more) that begin
// three of their cells where the first row does, with the lines between and after them that go
// on in a row's last cell (a description wrapped in its column), are left out, as tables are
// in the other formats.
void DropTables(std::vector<Line>* lines);

// The bibliography: from a line that is only "References" or "Bibliography" (after a section
// number or not) to the next line set in its font and size with at most 12 words (the next
// heading of its level, "Appendix A"), or set larger; to the end when there is none. Citations
// are not sentences of the document, and a summary should not quote one.
void DropBibliography(std::vector<Line>* lines);

// Whether a block that begins with `l` is a caption: "Figure 1:", "Fig. 2.", "Table 3:",
// "TABLE IV.", "Listing 2:", "Algorithm 1:", or such a label without punctuation before a
// capital ("Figure 3 The layers", not "Figure 3 shows"). The authors' text leaves captions out,
// and a caption read as a sentence is not one of the document's.
bool IsCaption(const Line& l);

// Grows `a` to hold `b`.
void Extend(Box* a, const Box& b);

// A line of `words` (left to right) on `page`: their box and largest font size.
Line LineOf(std::vector<Word> words, int32_t page);

// A page's words as lines across the whole page, top to bottom, each left to right (words of
// two columns at the same height share a line here; ColumnsInReadingOrder splits them); a soft
// hyphen given as a word of its own joins the word before it.
std::vector<Line> PageLines(std::vector<Word> words, int32_t page);

// A page's kept lines in reading order: between lines that cross a column gutter (a title over
// both columns), each column top to bottom, then the next column. The lines are moved from, not
// copied (a word is held once while the document is laid out). Linear in the page's words and
// width; more than 7 gutters read the page as one column.
void ColumnsInReadingOrder(const std::vector<Line*>& lines, std::vector<Line>* out);

// The PDF's own outline (its bookmarks, formats/pdf_outline.cc) as heading levels per line of
// `lines`: a line whose text (ASCII case and runs of spaces aside), or its text after a section
// number ("7.1", "A.2", "Chapter 3."), is an entry's title, on the page the entry goes to, gets
// the entry's depth (1 for the top level); each entry heads one line at most. Empty when the
// document has no outline or fewer than half its entries were found. At most 10,000 entries,
// 16 levels deep, are read.
std::vector<int32_t> OutlineLevels(PDFDoc* doc, const std::vector<Line>& lines);

}  // namespace rpsum::formats::internal

#endif  // RPSUM_FORMATS_INTERNAL_PDF_LAYOUT_H_
