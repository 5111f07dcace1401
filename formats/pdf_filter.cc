// What the PDF reader leaves out of a document's text (formats/internal/pdf_layout.h): page
// furniture, preformatted lines, display formulas and the bibliography. None of them is
// sentences, and the authors' own text holds none of them (bench/results/pdf-readers.md).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/string_view.h"
#include "formats/internal/pdf_layout.h"

namespace rpsum::formats::internal {
namespace {

// Digits as '#': "Page 3 of 9" and "Page 4 of 9" are one running line.
std::string Shape(const std::string& text) {
  std::string s;
  for (char c : text) s += std::isdigit(static_cast<unsigned char>(c)) ? '#' : c;
  return s;
}

// "3", "- 3 -", "3/9", "3 of 9", "Page 3", "Page 3 of 9", "iv".
bool IsPageNumber(const std::string& text) {
  std::string t;
  for (char c : Shape(text)) {
    if (c != ' ' && c != '-') t += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (absl::StartsWith(t, "page")) t = t.substr(4);
  if (t.empty()) return false;
  if (t.find_first_not_of("ivxlc") == std::string::npos && t.size() <= 6) return true;
  size_t i = 0;
  while (i < t.size() && t[i] == '#') ++i;
  if (i == 0) return false;
  if (i == t.size()) return true;
  std::string rest = t.substr(i);
  if (absl::StartsWith(rest, "/")) {
    rest = rest.substr(1);
  } else if (absl::StartsWith(rest, "of")) {
    rest = rest.substr(2);
  } else {
    return false;
  }
  return !rest.empty() && rest.find_first_not_of('#') == std::string::npos;
}

// What a lone page's header or footer holds: a page number, a URL, a date or a time.
bool LooksLikeFurniture(const std::string& text) {
  const std::string shape = Shape(text);
  return IsPageNumber(text) || absl::StrContains(text, "://") || absl::StrContains(shape, "#/#") ||
         absl::StrContains(shape, "#:##") || absl::StrContains(shape, "#-##-#");
}

// Pages a running header or footer repeats on at least: a chapter's title over each of its
// pages ("How to use bzip2") is one, not only the document's over half of them.
constexpr size_t kRunningPages = 3;

// Whether a margin line stands apart from the page's body: no body line within one and a half
// of its height above or below it (a header or footer stands further off; a body line at the
// page's top or foot is spaced as its paragraph). `body` holds the page's other lines' tops,
// sorted, and `tallest` the tallest of them. A page's lines are bounded (its glyphs are), so is
// the scan.
bool StandsApart(const Line& l, const std::vector<std::pair<double, double>>& body,
                 double tallest) {
  const double reach = 1.5 * std::max(1.0, l.box.y1 - l.box.y0);
  // Body lines that may come within reach: from those whose top is a tallest line's height
  // above the reach above the line, to those whose top is within reach below it.
  auto it = std::lower_bound(body.begin(), body.end(),
                             std::make_pair(l.box.y0 - reach - tallest, -1e300));
  for (; it != body.end() && it->first <= l.box.y1 + reach; ++it) {
    const double gap = std::max(it->first - l.box.y1, l.box.y0 - it->second);
    if (gap < reach) return false;
  }
  return true;
}

// "(12)", "(3.1)", "(4a)": a formula's number, set beside it in the text font.
bool IsEquationNumber(std::string_view w) {
  if (w.size() < 3 || w.front() != '(' || w.back() != ')') return false;
  w = w.substr(1, w.size() - 2);
  if (std::isdigit(static_cast<unsigned char>(w.front())) == 0) return false;
  if (std::isalpha(static_cast<unsigned char>(w.back())) != 0) w.remove_suffix(1);
  return w.find_first_not_of("0123456789.") == std::string_view::npos;
}

// A line set for 30% of its characters or more in math fonts, with at most two words of prose
// (such as "if" and "otherwise" beside a formula, and its number) that hold no more characters
// than its math: a display formula, or a line of one. Inline math stays, as its line holds the
// sentence's words.
bool IsDisplayMath(const Line& l) {
  int chars = 0, math = 0, prose = 0, prose_chars = 0;
  for (const Word& w : l.words) {
    chars += w.chars;
    math += IsEquationNumber(w.text) ? w.chars : w.math_chars;
    if (2 * w.math_chars >= w.chars) continue;  // a word of math ("<" and ">" may be math's)
    int run = 0;                                // letters in a row: a word of prose has three
    for (char c : w.text) {
      run =
          std::isalpha(static_cast<unsigned char>(c)) != 0 || static_cast<unsigned char>(c) >= 0x80
              ? run + 1
              : 0;
      if (run == 3) {
        ++prose;
        prose_chars += w.chars;
        break;
      }
    }
  }
  return chars > 0 && 10 * math >= 3 * chars && prose <= 2 && math >= prose_chars;
}

// A number: digits, with the signs and marks numbers are written with ("0.25", "-3", "1,024",
// "10%", "(2)"), and no letter.
bool IsNumber(std::string_view w) {
  bool digit = false;
  for (char c : w) {
    if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      digit = true;
    } else if (!absl::StrContains(".,-+%()", c)) {
      return false;
    }
  }
  return digit;
}

// Numbers without prose (a plot's axis labels, a table of figures, a contents page's page
// numbers: at least four numbers, two thirds of the line's words), or a contents entry (dot
// leaders, ". . . . ." or ".....", before a page number): none of them is a sentence. A
// sentence's arithmetic ("12 + 43 + 62 = 117 bytes"), a line of operators and a sentence's
// list of numbers ("86919, 86988, 87917, 88156", "2, 4, 8 or 16 bytes.") stay.
bool IsFigureText(const Line& l) {
  int numbers = 0, dots = 0, leaders = 0;
  for (const Word& w : l.words) {
    numbers += IsNumber(w.text) && w.text.back() != ',' ? 1 : 0;  // "2, 4, 8 or 16" is prose
    dots = w.text == "." ? dots + 1 : 0;
    if (dots >= 5 || absl::StrContains(w.text, ".....")) leaders = 1;
  }
  const int n = static_cast<int>(l.words.size());
  const std::string& last = l.words.back().text;
  const bool page_number =
      !last.empty() && (IsNumber(last) || last.find_first_not_of("ivxlc") == std::string::npos);
  return (leaders > 0 && page_number && n >= 2) || (numbers >= 4 && 3 * numbers >= 2 * n);
}

// Where the cells of a line begin: its first word, and each word after a gap of an em or more
// (a space is a third of one).
std::vector<double> CellStarts(const Line& l) {
  std::vector<double> starts = {l.words.front().box.x0};
  for (size_t i = 1; i < l.words.size(); ++i) {
    const Word& w = l.words[i];
    if (w.box.x0 - l.words[i - 1].box.x1 >= std::max(1.0, w.font_size)) starts.push_back(w.box.x0);
  }
  return starts;
}

// How many of `a`'s cells begin where one of `b`'s does (within 2 points).
int SharedStarts(const std::vector<double>& a, const std::vector<double>& b) {
  int shared = 0;
  for (double x : a) {
    shared += std::any_of(b.begin(), b.end(), [x](double y) { return std::abs(x - y) <= 2; });
  }
  return shared;
}

// "References", "Bibliography" (any case), after a section number or not: a bibliography's
// heading.
bool IsBibliographyHeading(const Line& l) {
  if (l.words.empty() || l.words.size() > 2) return false;
  if (l.words.size() == 2) {
    const std::string& n = l.words.front().text;  // "7", "7.", "A.", "VIII."
    if (n.size() > 6 || n.find_first_not_of("0123456789.IVXLCABDEFGH") != std::string::npos) {
      return false;
    }
  }
  const std::string t = absl::AsciiStrToLower(l.words.back().text);
  return t == "references" || t == "bibliography";
}

// Removes the lines marked in `drop`, keeping the others' order.
void RemoveMarked(const std::vector<bool>& drop, std::vector<Line>* lines) {
  size_t kept = 0;
  for (size_t i = 0; i < lines->size(); ++i) {
    if (drop[i]) continue;
    if (kept != i) (*lines)[kept] = std::move((*lines)[i]);
    ++kept;
  }
  lines->resize(kept);
}

}  // namespace

bool IsCaption(const Line& l) {
  static const absl::flat_hash_set<std::string> kFloats = {
      "Figure", "Fig.", "FIGURE", "FIG.", "Table", "TABLE", "Listing", "Algorithm", "Chart"};
  if (l.words.size() < 2 || l.words[1].text.empty() || !kFloats.contains(l.words[0].text)) {
    return false;
  }
  std::string_view n = l.words[1].text;  // "1:", "2.", "3", "A.1:", "IV."
  const bool marked = n.back() == ':' || n.back() == '.';
  if (marked) n.remove_suffix(1);
  if (n.empty() || n.find_first_not_of("0123456789.-ABCDEFGHIVXL") != std::string_view::npos ||
      std::isdigit(static_cast<unsigned char>(n.back())) == 0 && n.find_first_of("IVXL") != 0) {
    return false;
  }
  if (marked || l.words.size() == 2) return true;
  // "Figure 3 The layers": a caption set without punctuation; "Figure 3 shows" is a sentence.
  const std::string& next = l.words[2].text;
  return next == ":" || next == "." || std::isupper(static_cast<unsigned char>(next[0])) != 0;
}

void DropPageFurniture(std::vector<std::vector<Line>>* pages) {
  absl::flat_hash_map<std::string, absl::flat_hash_set<int32_t>> seen;
  for (const auto& page : *pages) {
    for (const Line& l : page) {
      if (l.margin) seen[Shape(l.Text())].insert(l.page);
    }
  }
  const size_t n = pages->size();
  std::vector<std::pair<double, double>> body;  // the page's non-margin lines: top, bottom
  for (auto& page : *pages) {
    body.clear();
    double tallest = 0;
    for (const Line& l : page) {
      if (l.margin) continue;
      body.emplace_back(l.box.y0, l.box.y1);
      tallest = std::max(tallest, l.box.y1 - l.box.y0);
    }
    std::sort(body.begin(), body.end());
    for (Line& l : page) {
      if (!l.margin) continue;
      const std::string text = l.Text();
      const size_t repeats = seen[Shape(text)].size();
      l.dropped = (n >= 2 && (repeats >= kRunningPages || 2 * repeats >= n)) ||
                  IsPageNumber(text) || (LooksLikeFurniture(text) && StandsApart(l, body, tallest));
    }
  }
}

void DropPreformatted(std::vector<std::vector<Line>>* pages) {
  auto mono = [](const Line& l) {
    return std::all_of(l.words.begin(), l.words.end(), [](const Word& w) { return w.mono; });
  };
  size_t words = 0, monospaced = 0;  // words, not lines: a listing's lines hold few
  for (const auto& page : *pages) {
    for (const Line& l : page) {
      words += l.words.size();
      monospaced += mono(l) ? l.words.size() : 0;
    }
  }
  if (2 * monospaced >= words) return;
  for (auto& page : *pages) {
    for (Line& l : page) {
      if (mono(l)) l.dropped = true;
    }
  }
}

void DropFormulasAndFigures(std::vector<Line>* lines) {
  enum Kind : uint8_t { kText, kFormula, kFigure };
  std::vector<uint8_t> kind(lines->size(), kText);  // each line judged once
  size_t words = 0, dropped = 0;
  for (size_t i = 0; i < lines->size(); ++i) {
    const Line& l = (*lines)[i];
    kind[i] = IsDisplayMath(l) ? kFormula : IsFigureText(l) ? kFigure : kText;
    words += l.words.size();
    dropped += kind[i] != kText ? l.words.size() : 0;
  }
  if (2 * dropped >= words) return;  // a document of formulas: they are its text
  std::vector<bool> drop(lines->size(), false);
  bool after = false;
  const Line* last_kept = nullptr;
  for (size_t i = 0; i < lines->size(); ++i) {
    Line& l = (*lines)[i];
    drop[i] = kind[i] != kText;
    if (drop[i]) {
      after = after || kind[i] == kFormula;
      continue;
    }
    l.after_display = after && last_kept != nullptr && last_kept->page == l.page;
    after = false;
    last_kept = &l;
  }
  RemoveMarked(drop, lines);
}

void DropTables(std::vector<Line>* lines) {
  std::vector<bool> drop(lines->size(), false);
  for (size_t i = 0; i < lines->size();) {
    const Line& first = (*lines)[i];
    const std::vector<double> columns = CellStarts(first);
    if (columns.size() < 4) {
      ++i;
      continue;
    }
    // The table: rows whose cells begin where the first row's do (three at least: a justified
    // line's wide spaces fall anywhere), and the lines that go on in a row's last cell.
    double cell = columns.back();
    size_t end = i + 1, rows = 1;
    for (; end < lines->size(); ++end) {
      const Line& l = (*lines)[end];
      if (l.page != first.page) break;
      const std::vector<double> starts = CellStarts(l);
      if (starts.size() >= 4 && SharedStarts(starts, columns) >= 3) {
        ++rows;
        cell = starts.back();
      } else if (starts.size() >= 4 || l.box.x0 < cell - 2 ||
                 l.box.x0 < first.box.x0 + l.font_size) {
        break;
      }
    }
    if (rows >= 2) {
      std::fill(drop.begin() + static_cast<std::ptrdiff_t>(i),
                drop.begin() + static_cast<std::ptrdiff_t>(end), true);
    }
    i = rows >= 2 ? end : i + 1;
  }
  RemoveMarked(drop, lines);
}

void DropBibliography(std::vector<Line>* lines) {
  std::vector<bool> drop(lines->size(), false);
  bool in = false;
  uint32_t font = 0;  // the heading's font and size
  double size = 0;
  for (size_t i = 0; i < lines->size(); ++i) {
    const Line& l = (*lines)[i];
    if (in) {
      const Word& w = l.words.front();
      const bool same_style = w.font == font && std::abs(w.font_size - size) < 0.5;
      in = !(l.words.size() <= 12 && same_style) && l.font_size <= size + 0.5;
    }
    if (!in && IsBibliographyHeading(l)) {
      in = true;
      font = l.words.back().font;
      size = l.words.back().font_size;
    }
    drop[i] = in;
  }
  RemoveMarked(drop, lines);
}

}  // namespace rpsum::formats::internal
