// Internal to formats/: builds the extracted text line by line, a piece per word, with the
// word's place in the input. Shared by the Markdown, HTML and PDF readers.
#ifndef RPSUM_FORMATS_INTERNAL_BUILDER_H_
#define RPSUM_FORMATS_INTERNAL_BUILDER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "formats/formats.h"

namespace rpsum::formats::internal {

class TextBuilder {
 public:
  // `source` is the input the byte ranges refer to (empty for PDF).
  TextBuilder(std::string_view source, uint64_t max_text_bytes)
      : source_(source), max_bytes_(max_text_bytes) {}

  // Appends inline text: whitespace and control characters collapse to one space, and each
  // word is looked up in source[*cursor, limit) (advancing *cursor past it) for its source
  // range. A word not found there (an entity or escape changed it) gets an empty range.
  // `drop_bare_links`: bare URLs and e-mail addresses (GFM's autolinks: "https://...",
  // "www.x.org", "a@b.org") are left out, the punctuation around them kept.
  void AppendText(std::string_view text, uint64_t* cursor, uint64_t limit,
                  bool drop_bare_links = false);
  // Appends one PDF word (no spaces inside) with its page and box. `space_before`: a space
  // separates it from what the line holds.
  void AppendWord(std::string_view word, bool space_before, int32_t page, const Box& box);
  // Appends one word of a DOCX, ODT or EPUB block (1-based `block`, into Extracted::blocks)
  // with its source range there.
  void AppendMappedWord(std::string_view word, uint64_t source_begin, uint64_t source_end,
                        int32_t block) {
    AppendWordText(word, source_begin, source_end, block, Box{});
  }
  // Removes a trailing hyphen of the line ('-' or U+2010; a PDF line-end hyphen joined with
  // its next word): the last piece loses it (a lone hyphen piece touching the word before it
  // goes). False if the line ends in none, or in a dash (a lone hyphen apart from any word).
  bool DropTrailingHyphen();
  // A space before whatever comes next on this line (not at its start).
  void Space() { pending_space_ = line_bytes_ > 0; }
  // A wrapped line's break: a space, or nothing between two Chinese or Japanese characters
  // (model::JoinsWithoutSpace).
  void LineBreak() {
    Space();
    pending_break_ = pending_space_;
  }
  // Ends the current line if it holds anything.
  void EndBlock();
  // The next line is a heading of `level` (its first word marks it in Extracted::heading_levels;
  // a block that ends with no text marks nothing).
  void MarkHeading(int32_t level) { pending_level_ = level; }

  uint64_t line_bytes() const { return line_bytes_; }

  // The text so far exceeded max_text_bytes (everything after is ignored).
  bool overflowed() const { return overflowed_; }
  // InvalidArgument if overflowed or empty, else the result.
  absl::StatusOr<Extracted> Finish(std::string_view format) &&;

 private:
  void AppendWordText(std::string_view word, uint64_t src_b, uint64_t src_e, int32_t page,
                      const Box& box);
  void AppendSourceWord(std::string_view word, uint64_t* cursor, uint64_t limit);

  std::string_view source_;
  uint64_t max_bytes_;
  Extracted out_;
  uint64_t line_bytes_ = 0;
  bool pending_space_ = false;
  bool pending_break_ = false;  // the pending space is a line break
  int32_t pending_level_ = 0;   // MarkHeading's, until the line's first word
  bool overflowed_ = false;
  int misses_ = 0;  // words in a row not found in the source
};

// DeadlineExceeded naming `stage` once limits.deadline has passed.
absl::Status CheckDeadline(const ExtractLimits& limits, std::string_view stage);

// The HTML pre-scan (html_scan.cc): InvalidArgument when HTML5's tree of `html` would be
// deeper than max_html_depth; else OK, with `rewritten` a copy of `html` in which attributes past
// max_html_attributes of an element are spaces, or empty when nothing was dropped.
absl::Status ScanHtml(std::string_view html, const ExtractLimits& limits, std::string* rewritten);

// Gumbo's parse cannot be stopped once it starts (it is linear after the scan): DeadlineExceeded,
// saying both times, when what limits.deadline leaves is less than a parse of `page` may take
// (html.cc's time per byte), so that no parse runs far past a deadline; else OK.
absl::Status ParseFitsDeadline(std::string_view page, const ExtractLimits& limits);

// The Markdown pre-scan (markdown_scan.cc) of `doc` (a copy of the input, same length):
// InvalidArgument when block quotes and lists nest deeper than max_markdown_depth; else
// rewrites in place, byte for byte, what cmark-gfm reads in more than linear time (the '|' of a
// line with more than max_table_columns, unclosed brackets past a bound, raw-HTML openers with
// no closer near, inline markup denser than prose) so that it reads as text or not at all.
absl::Status ScanMarkdown(std::string* doc, const ExtractLimits& limits);

// A long Markdown document (markdown_scan.cc) in parts that cmark-gfm parses one at a time, so
// that its tree (some 200 bytes a node) is held for a part, not the whole: `starts` the parts'
// byte offsets (the first 0), each cut past 16 KB before a line that starts a block after a
// blank line or a bullet item at the left margin (outside an HTML block), never inside a fenced
// code block or an HTML block that blank lines do not end, and past 256 KB before any line (in
// a line longer than that, at a space). `references`: the one-line link reference definitions
// of the document, which every part is read after (so that a link finds its definition in
// another part), when there are parts and they fit in 16 KB; else empty. One part for a
// document under 16 KB.
struct MarkdownParts {
  std::vector<size_t> starts;
  std::string references;
};
MarkdownParts SplitMarkdown(std::string_view doc);
// Whether a part holds plain lines only (markdown.cc): paragraphs and bullet items of words at
// the left margin, blank lines between, and no inline markup; such a part is read without cmark.
bool IsPlainMarkdownPart(std::string_view part);
// The readers (markdown.cc, html.cc, pdf.cc); Extract validates and dispatches to them.
absl::StatusOr<Extracted> ExtractMarkdown(std::string_view input, const ExtractLimits& limits);
absl::StatusOr<Extracted> ExtractHtml(std::string_view input, const ExtractLimits& limits);
absl::StatusOr<Extracted> ExtractPdf(std::string_view input, const ExtractLimits& limits);
// DOCX, ODT and EPUB (office.cc, on package.cc's zip and XML readers).
absl::StatusOr<Extracted> ExtractOffice(std::string_view input, ContentType type,
                                        const ExtractLimits& limits);

}  // namespace rpsum::formats::internal

#endif  // RPSUM_FORMATS_INTERNAL_BUILDER_H_
