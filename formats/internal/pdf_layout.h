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
};

struct Line {
  std::vector<Word> words;  // left to right
  Box box;
  double font_size = 0;  // the largest of its words'
  int32_t page = 0;      // 1-based
  bool margin = false;   // in the top or bottom tenth of its page
  bool dropped = false;
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
