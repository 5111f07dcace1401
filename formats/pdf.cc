// PDF (poppler) into the text form. Poppler gives each page's words in reading order (columns
// one after the other) with their boxes, font sizes and fonts; here words become lines, lines
// become blocks (a paragraph, heading or list item: one line of the text form each), and what is
// not the document's sentences goes (formats/pdf_filter.cc): page furniture (running headers
// and footers, page numbers, dates and URLs apart from the body), preformatted lines, display
// formulas and the bibliography. A hyphen at a line end joins the word across the break when
// the next line goes on in lowercase.
#include <Error.h>
#include <GlobalParams.h>
#include <PDFDoc.h>
#include <Page.h>
#include <Stream.h>
#include <TextOutputDev.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "formats/internal/builder.h"
#include "formats/internal/pdf_layout.h"

namespace rpsum::formats::internal {
namespace {

double Height(const Box& b) { return b.y1 - b.y0; }

bool StartsListItem(const Line& line) {
  const std::string& w = line.words.front().text;
  if (w == "\xE2\x80\xA2" || w == "\xE2\x97\xA6" || w == "\xE2\x96\xAA" || w == "-" ||
      w == "\xE2\x80\x93" || w == "*") {
    return true;
  }
  size_t i = 0;
  while (i < w.size() && i < 3 && std::isdigit(static_cast<unsigned char>(w[i]))) ++i;
  return i > 0 && i + 1 == w.size() && (w[i] == '.' || w[i] == ')');
}

// Poppler's core library: its parameters made once per process, and its reports of problems
// in a PDF (stderr by default) silenced; a server does not print them.
void InitPoppler() {
  static std::once_flag once;
  std::call_once(once, [] {
    if (globalParams == nullptr) globalParams = std::make_unique<GlobalParams>();
    setErrorCallback([](ErrorCategory, Goffset, const char*) {});
  });
}

// Soft hyphens (U+00AD) leave the word; one at its end marks a hyphenation point.
// Whether a font is monospaced: its descriptor says so, or its name does (TeX's typewriter
// fonts do not set the flag).
bool IsMonospaced(const TextFontInfo* font) {
  if (font == nullptr) return false;
  if (font->isFixedWidth()) return true;
  const GooString* name = font->getFontName();
  if (name == nullptr) return false;
  const std::string lower = absl::AsciiStrToLower(name->toStr());
  for (const char* mono : {"mono", "courier", "cmtt", "sftt", "typewriter", "consol", "menlo",
                           "inconsolata", "fixed"}) {
    if (absl::StrContains(lower, mono)) return true;
  }
  return false;
}

// A font's name less its subset tag ("ABCDEF+CMMI10": "CMMI10"), lowercased.
std::string FontName(const TextFontInfo* font) {
  const GooString* name = font == nullptr ? nullptr : font->getFontName();
  if (name == nullptr) return "";
  std::string n = absl::AsciiStrToLower(name->toStr());
  if (n.size() > 7 && n[6] == '+') n.erase(0, 7);
  return n;
}

// Whether a font is one formulas are set in: TeX's math italic, symbols and extensions (cmmi,
// cmsy, cmex and their bold forms), the AMS symbols (msam, msbm), and the fonts that say so
// (Latin Modern Math, STIX Math, Cambria Math, txfonts' and newtx's math fonts).
bool IsMathFont(const std::string& name) {
  for (const char* math : {"cmmi", "cmsy", "cmex", "cmbsy", "msam", "msbm", "math", "txmi", "txsy",
                           "txex", "rsfs", "eufm", "stmary"}) {
    if (absl::StrContains(name, math)) return true;
  }
  return false;
}

struct FontFacts {
  bool mono = false, math = false;
  uint32_t key = 0;  // a hash of the name
};

Word MakeWord(std::string text, const Box& box, double font_size) {
  static constexpr std::string_view kSoftHyphen = "\xC2\xAD";
  Word w;
  w.box = box;
  w.font_size = font_size;
  w.soft_hyphen_end = text.size() >= 2 && text.compare(text.size() - 2, 2, kSoftHyphen) == 0;
  for (size_t at; (at = text.find(kSoftHyphen)) != std::string::npos;) text.erase(at, 2);
  w.text = std::move(text);
  return w;
}

// Glyphs a page may draw and still be read in poppler's order, whatever its runs.
constexpr int64_t kMaxOrderedGlyphs = 8000;

// Poppler's text device, counting the glyphs of a page: past `max_glyphs` it takes no more.
class GlyphCountingDev final : public TextOutputDev {
 public:
  // Full past `max_glyphs` glyphs, `max_runs` runs or a run of `max_run_words` words.
  GlyphCountingDev(bool raw_order, int64_t max_glyphs, int64_t max_runs, int64_t max_run_words)
      : TextOutputDev(nullptr, false, 0, raw_order, false),
        max_glyphs_(max_glyphs),
        max_runs_(max_runs),
        max_run_words_(max_run_words) {}
  void drawChar(GfxState* state, double x, double y, double dx, double dy, double origin_x,
                double origin_y, CharCode code, int bytes, const Unicode* u, int u_len) override {
    if (++glyphs_ > max_glyphs_ || full()) return;
    // Diagonal text is a watermark ("DRAFT" across the page), not the document's: its glyphs
    // would join the words they cross. A baseline more than about 11 degrees off the page's
    // axes is diagonal (rotated pages and vertical text keep theirs).
    double ux = 0, uy = 0, bx = 0, by = 0;
    state->textTransformDelta(1, 0, &ux, &uy);
    state->transformDelta(ux, uy, &bx, &by);
    const double along = std::hypot(bx, by);
    if (along > 0 && std::fabs(bx) > 0.2 * along && std::fabs(by) > 0.2 * along) return;
    // A run: glyphs that follow one another on a baseline (a line of a column, a table cell);
    // a glyph drawn back over the one before (by more than kerning does) starts another, or
    // glyphs drawn on one spot would be one run (slow-input fuzzing found it: poppler compares
    // overlapping words pairwise).
    double tx = 0, ty = 0, w = 0, h = 0;
    state->transform(x, y, &tx, &ty);
    state->transformDelta(dx, dy, &w, &h);
    // The glyph's own width, as poppler measures words: without character and word spacing.
    double spacing = state->getCharSpace();
    if (code == 0x20) spacing += state->getWordSpace();
    double sx = 0, sy = 0, gw = 0, gh = 0;
    state->textTransformDelta(spacing * state->getHorizScaling(), 0, &sx, &sy);
    state->transformDelta(dx - sx, dy - sy, &gw, &gh);
    const double size = std::max(0.1, state->getTransformedFontSize());
    if (std::fabs(ty - run_y_) > 0.5 * size || tx < run_end_ - 0.3 * size ||
        tx > run_end_ + 0.7 * size) {
      if (++runs_ > max_runs_) return;
      run_words_ = 0;
      word_open_ = false;
    } else if (tx > word_end_ + 0.1 * size || tx < word_end_ - 0.2 * size) {
      word_open_ = false;  // poppler starts a word here (minWordBreakSpace, minDupBreakOverlap)
    }
    // Poppler's reading order costs about the square of the words on each line: a page with a
    // longer line than prose has is read as drawn (ExtractLimits::max_ordered_run_words).
    if (u_len == 1 && u[0] == ' ') {
      word_open_ = false;
    } else if (!word_open_) {
      word_open_ = true;
      if (++run_words_ > max_run_words_) {
        long_run_ = true;
        return;
      }
    }
    run_y_ = ty;
    run_end_ = tx + w;
    word_end_ = tx + gw;
    TextOutputDev::drawChar(state, x, y, dx, dy, origin_x, origin_y, code, bytes, u, u_len);
  }
  // A full device's page is read again: what it took is dropped unread, since poppler's
  // reading order of it (TextPage::coalesce) could cost more than the page is worth (slow-input
  // fuzzing found a page of 8,000 glyphs that cost 45x a prose PDF per byte).
  void endPage() override {
    if (full()) TextOutputDev::startPage(0, nullptr, nullptr);
    TextOutputDev::endPage();
  }
  bool full() const { return glyphs_ > max_glyphs_ || runs_ > max_runs_ || long_run_; }
  int64_t glyphs() const { return glyphs_; }

 private:
  int64_t max_glyphs_;
  int64_t max_runs_;
  int64_t max_run_words_;
  int64_t glyphs_ = 0;
  int64_t runs_ = 0;
  int64_t run_words_ = 0;  // words of the current run, as poppler breaks them
  bool word_open_ = false;
  bool long_run_ = false;
  double run_y_ = -1e30, run_end_ = -1e30, word_end_ = -1e30;
};

struct DisplayCheck {
  const GlyphCountingDev* dev;
  absl::Time deadline;
};

// Poppler asks this every few operators of a page's content: stop when the device is full or
// the deadline has passed.
bool StopDisplay(void* data) {
  const auto* check = static_cast<const DisplayCheck*>(data);
  return check->dev->full() || absl::Now() > check->deadline;
}

// The words of page `page` (1-based) through `dev`: empty if the device filled up.
absl::StatusOr<std::vector<Word>> DisplayWords(PDFDoc* doc, int page, GlyphCountingDev* dev,
                                               const ExtractLimits& limits) {
  DisplayCheck check{dev, limits.deadline};
  // Drawn upright: a page turned by its /Rotate is turned back, so that its lines run across
  // (AppendLine gives boxes back in the page's shown orientation).
  const int rotate = (360 - (doc->getPageRotate(page) % 360 + 360) % 360) % 360;
  doc->displayPage(dev, page, 72, 72, rotate, false, false, false, &StopDisplay, &check);
  if (absl::Now() > limits.deadline) {
    return absl::DeadlineExceededError(
        absl::StrCat("the deadline passed while reading this PDF (page ", page, " of ",
                     doc->getNumPages(), ")"));
  }
  std::vector<Word> words;
  if (dev->full()) return words;
  const std::unique_ptr<TextWordList> list = dev->makeWordList();
  words.reserve(static_cast<size_t>(list->getLength()));
  absl::flat_hash_map<const TextFontInfo*, FontFacts> fonts;  // each font's facts, once
  const TextFontInfo* last_font = nullptr;  // a run of glyphs shares its font: look up once
  FontFacts last_facts;
  auto facts = [&](const TextFontInfo* font) {
    if (font == last_font && last_font != nullptr) return last_facts;
    auto [at, added] = fonts.try_emplace(font);
    if (added) {
      const std::string name = FontName(font);
      at->second = {IsMonospaced(font), IsMathFont(name),
                    static_cast<uint32_t>(std::hash<std::string>{}(name))};
    }
    last_font = font;
    last_facts = at->second;
    return last_facts;
  };
  for (int i = 0; i < list->getLength(); ++i) {
    const TextWord* w = list->get(i);
    const std::unique_ptr<GooString> text(w->getText());
    Box box;
    w->getBBox(&box.x0, &box.y0, &box.x1, &box.y1);
    Word& word = words.emplace_back(MakeWord(text->toStr(), box, w->getFontSize()));
    const FontFacts first = facts(w->getFontInfo(0));
    word.mono = first.mono;
    word.font = first.key;
    const int n = std::min(w->getLength(), 65535);
    word.chars = static_cast<uint16_t>(n);
    for (int c = 0; c < n; ++c) {
      // TeX sets the "<" and ">" of running text in its math italic too: they count as text.
      const Unicode u = *w->getChar(c);
      word.math_chars += facts(w->getFontInfo(c)).math && u != '<' && u != '>' ? 1 : 0;
    }
  }
  return words;
}

// A page's words: in poppler's reading order (TextPage::coalesce, which groups them into blocks
// in time that grows with the square of the words standing in narrow columns), or past
// limits.max_ordered_runs runs (or kMaxOrderedGlyphs glyphs) in the order the content stream
// draws them, which costs linear time (the layout here orders the words itself).
// `glyphs_left`: what the document may still draw (GlyphBudget); InvalidArgument past it, saying
// `over` around the page.
absl::StatusOr<std::vector<Word>> PageWords(PDFDoc* doc, int page, const ExtractLimits& limits,
                                            int64_t* glyphs_left,
                                            const std::pair<std::string, std::string>& over) {
  GlyphCountingDev ordered(/*raw_order=*/false, std::min(kMaxOrderedGlyphs, *glyphs_left),
                           limits.max_ordered_runs, limits.max_ordered_run_words);
  absl::StatusOr<std::vector<Word>> words = DisplayWords(doc, page, &ordered, limits);
  if (!words.ok()) return words;
  if (!ordered.full()) {
    *glyphs_left -= ordered.glyphs();
    return words;
  }
  GlyphCountingDev drawn(/*raw_order=*/true, *glyphs_left, INT64_MAX, INT64_MAX);
  words = DisplayWords(doc, page, &drawn, limits);
  if (words.ok() && drawn.full()) {
    return absl::InvalidArgumentError(absl::StrCat(over.first, " by page ", page, over.second));
  }
  *glyphs_left -= drawn.glyphs();
  return words;
}

// The glyphs a PDF of `input_bytes` may draw, and what a refusal says ran out: twice the
// extracted-text limit (each glyph is at least a byte of text or a space), or fewer by the
// glyphs per input byte (ExtractLimits::max_pdf_glyphs_per_byte).
int64_t GlyphBudget(const ExtractLimits& limits, uint64_t input_bytes,
                    std::pair<std::string, std::string>* over) {
  const auto text = static_cast<int64_t>(std::min<uint64_t>(2 * limits.max_text_bytes, 1ULL << 60));
  constexpr int64_t kAnyPdf = 1 << 18;  // a small PDF may draw this many whatever its size
  const int64_t per_byte = limits.max_pdf_glyphs_per_byte;
  if (per_byte > 0 && input_bytes < (1ULL << 40)) {
    const int64_t by_bytes = std::max(kAnyPdf, per_byte * static_cast<int64_t>(input_bytes));
    if (by_bytes < text) {
      *over = {
          absl::StrCat("this PDF of ", input_bytes, " bytes draws over ", by_bytes, " characters"),
          absl::StrCat(" (max_pdf_glyphs_per_byte ", per_byte,
                       "; real PDFs draw under 1 a byte): its pages repeat or inflate their "
                       "content; send its text instead")};
      return by_bytes;
    }
  }
  *over = {
      absl::StrCat("the text extracted from this PDF exceeds ", limits.max_text_bytes, " bytes"),
      absl::StrCat(" (it draws over ", text,
                   " characters; the extracted-text limit); send fewer pages")};
  return text;
}

// Every page's lines in reading order, page furniture left out.
// `empty` gets the pages that drew no word (blank, or images only: scanned).
absl::StatusOr<std::vector<Line>> ReadLines(PDFDoc* doc, int pages, const ExtractLimits& limits,
                                            uint64_t input_bytes, std::vector<int32_t>* empty) {
  const uint64_t max_text_bytes = limits.max_text_bytes;
  std::vector<std::vector<Line>> by_page;
  uint64_t bytes = 0;
  std::pair<std::string, std::string> over;
  int64_t glyphs_left = GlyphBudget(limits, input_bytes, &over);
  for (int p = 0; p < pages; ++p) {
    if (absl::Now() > limits.deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the deadline passed while reading this PDF (page ", p + 1, " of ", pages, ")"));
    }
    absl::StatusOr<std::vector<Word>> words = PageWords(doc, p + 1, limits, &glyphs_left, over);
    if (!words.ok()) return words.status();
    for (const Word& w : *words) {
      bytes += w.text.size() + 1;
      if (bytes > max_text_bytes) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the text extracted from this PDF exceeds ", max_text_bytes, " bytes by page ", p + 1,
            " (the extracted-text limit); send fewer pages"));
      }
    }
    if (words->empty()) empty->push_back(p + 1);
    by_page.push_back(PageLines(*std::move(words), p + 1));
    const double height = doc->getPageCropHeight(p + 1);
    for (Line& l : by_page.back()) {
      const double mid = (l.box.y0 + l.box.y1) / 2;
      l.margin = height > 0 && (mid < 0.1 * height || mid > 0.9 * height);
    }
  }
  if (absl::Status s = CheckDeadline(limits, "laying out the PDF's pages"); !s.ok()) return s;
  DropPageFurniture(&by_page);
  DropPreformatted(&by_page);
  std::vector<Line> lines;
  for (auto& page : by_page) {
    if (absl::Status s = CheckDeadline(limits, "laying out the PDF's pages"); !s.ok()) return s;
    std::vector<Line*> kept;
    for (Line& l : page) {
      if (!l.dropped) kept.push_back(&l);
    }
    ColumnsInReadingOrder(kept, &lines);
    std::vector<Line>().swap(page);  // its words are in `lines` now
  }
  DropFormulasAndFigures(&lines);  // in reading order: a line of one column at a time
  DropTables(&lines);
  DropBibliography(&lines);
  return lines;
}

bool StartsSentence(const Line& line) {
  const auto c = static_cast<unsigned char>(line.words.front().text[0]);
  return std::isupper(c) || std::isdigit(c) || c >= 0x80;
}

// Whether `line` starts a new block after `prev` in a block whose lines so far span `block`:
// a paragraph's gap, another font size or a list marker; or the previous line ended short of
// the block's right edge and this one starts like a sentence. A paragraph goes on across a
// column or page break.
bool StartsBlock(const Line& prev, const Line& line, const Box& block, int block_lines) {
  const bool short_prev = block_lines >= 2 && prev.box.x1 < block.x1 - 0.15 * (block.x1 - block.x0);
  const double h = Height(prev.box);
  const bool moved = line.page != prev.page || line.box.y0 < prev.box.y0 - 0.5 * h;
  // After a display formula left out, a line in lowercase goes on with the sentence before it.
  if (line.after_display) {
    return std::islower(static_cast<unsigned char>(line.words.front().text[0])) == 0;
  }
  if (IsCaption(line)) return true;  // a caption is a block of its own, wherever it stands
  if (moved) return block_lines < 2 || (short_prev && StartsSentence(line));
  if (line.box.y0 - prev.box.y1 > 0.6 * h) return true;
  if (std::fabs(line.font_size - prev.font_size) > 0.1 * prev.font_size) return true;
  if (StartsListItem(line)) return true;
  return short_prev && StartsSentence(line);
}

// A page's rotation (/Rotate, clockwise) and its upright size: where a box of the upright page
// lies on the page as shown.
struct PageFrame {
  int rotate = 0;
  double width = 0, height = 0;
  Box Shown(const Box& b) const {
    switch (rotate) {
      case 90:
        return Box{height - b.y1, b.x0, height - b.y0, b.x1};
      case 180:
        return Box{width - b.x1, height - b.y1, width - b.x0, height - b.y0};
      case 270:
        return Box{b.y0, width - b.x1, b.y1, width - b.x0};
      default:
        return b;
    }
  }
};

void AppendLine(const Line& line, bool first_in_block, const PageFrame& frame, TextBuilder* b,
                bool* join_next) {
  // A word broken at a line end goes on without a space: at a soft hyphen ("interna-" +
  // "tionalization"), or at a hyphen before a lowercase letter ("exam-" + "ple").
  const bool joins =
      !first_in_block &&
      (*join_next || (std::islower(static_cast<unsigned char>(line.words.front().text[0])) != 0 &&
                      b->DropTrailingHyphen()));
  bool space = false;
  if (!first_in_block && !joins) b->LineBreak();  // a space, or none between CJK characters
  const Word* prev = nullptr;
  for (const Word& w : line.words) {
    if (prev != nullptr) space = w.box.x0 - prev->box.x1 > 0.2 * w.font_size;
    b->AppendWord(w.text, space, line.page, frame.Shown(w.box));
    prev = &w;
  }
  *join_next = line.words.back().soft_hyphen_end;
}

}  // namespace

absl::StatusOr<Extracted> ExtractPdf(std::string_view input, const ExtractLimits& limits) {
  InitPoppler();
  // The stream reads `input` in place (no copy); the document lives only inside this call.
  auto* stream =
      new MemStream(input.data(), 0, static_cast<Goffset>(input.size()), Object(objNull));
  auto doc = std::make_unique<PDFDoc>(stream);
  if (!doc->isOk() && doc->getErrorCode() == errEncrypted) {
    return absl::InvalidArgumentError(
        "this PDF is encrypted with a password; send an unencrypted copy");
  }
  if (!doc->isOk()) {
    return absl::InvalidArgumentError(
        "this PDF cannot be read: it is damaged or not a PDF (poppler could not open it); "
        "check that the whole file was sent");
  }
  const int pages = doc->getNumPages();
  if (pages > limits.max_pdf_pages) {
    return absl::InvalidArgumentError(absl::StrCat("this PDF has ", pages, " pages; the limit is ",
                                                   limits.max_pdf_pages,
                                                   " (max_pdf_pages); send fewer pages"));
  }
  std::vector<int32_t> empty;
  absl::StatusOr<std::vector<Line>> lines =
      ReadLines(doc.get(), pages, limits, input.size(), &empty);
  if (!lines.ok()) return lines.status();
  if (lines->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("this PDF (", pages, pages == 1 ? " page" : " pages",
                     ") has no text layer: it is probably scanned images; run OCR on it first"));
  }
  std::vector<PageFrame> frames(static_cast<size_t>(pages));
  for (int p = 0; p < pages; ++p) {
    frames[p] = PageFrame{(doc->getPageRotate(p + 1) % 360 + 360) % 360,
                          doc->getPageCropWidth(p + 1), doc->getPageCropHeight(p + 1)};
  }
  const HeadingSizes heading_sizes(*lines);
  // The document's own outline, where it has one that names its headings, gives their levels;
  // else the type sizes do.
  const std::vector<int32_t> outline = OutlineLevels(doc.get(), *lines);
  TextBuilder b({}, limits.max_text_bytes);
  const Line* prev = nullptr;
  Box block;
  int block_lines = 0;
  bool join_next = false;
  bool caption = false;  // the block is a figure's or a table's caption
  uint64_t steps = 0;
  for (const Line& line : *lines) {
    if (++steps % 4096 == 0) {
      if (absl::Status s = CheckDeadline(limits, "joining the PDF's lines"); !s.ok()) return s;
    }
    const bool starts = prev == nullptr || StartsBlock(*prev, line, block, block_lines);
    if (starts) {
      b.EndBlock();
      block = line.box;
      block_lines = 0;
      caption = IsCaption(line);  // left out to the block's end
      const int32_t level = outline.empty() ? heading_sizes.LevelOf(line)
                                            : outline[static_cast<size_t>(&line - lines->data())];
      if (level > 0 && !caption) b.MarkHeading(level);
    } else if (line.page != prev->page || line.box.y0 < prev->box.y0) {
      block = line.box;  // the paragraph goes on in the next column: measure lines there
    } else {
      Extend(&block, line.box);
    }
    if (!caption) AppendLine(line, starts, frames[line.page - 1], &b, &join_next);
    ++block_lines;
    prev = &line;
  }
  absl::StatusOr<Extracted> result = std::move(b).Finish("PDF");
  if (result.ok()) {
    result->pages = pages;
    result->pages_without_text = std::move(empty);
    result->outline_headings = !outline.empty();
  }
  return result;
}

}  // namespace rpsum::formats::internal
