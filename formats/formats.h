// Document formats (docs/design.md, "Formats and other scripts"): the content type of a request,
// and the extraction of Markdown, HTML and PDF input into the text form the model was trained on
// (one heading, paragraph or list item per line; no markup), with a map from the extracted text
// back to the original (byte ranges of Markdown and HTML, pages and word boxes of PDF).
// Torch-free and proto-free: the server's preparation pool runs it before model/document.h.
#ifndef RPSUM_FORMATS_FORMATS_H_
#define RPSUM_FORMATS_FORMATS_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace rpsum::formats {

enum class ContentType { kText, kMarkdown, kHtml, kPdf, kDocx, kOdt, kEpub };

// The MIME name of a type ("text/plain", "text/markdown", "text/html", "application/pdf").
std::string_view MimeName(ContentType type);

// A request's MIME type: the content type and the charset it declares.
struct MediaType {
  ContentType type = ContentType::kText;
  std::string charset;  // the charset parameter's label, lowercased; empty when none
};

// Parses a MIME type as a request gives it: case-insensitive, "text/x-markdown" is Markdown,
// "application/xhtml+xml" HTML; of the parameters only "charset" is read (formats/encoding.h
// reads the document in it). An unsupported type is InvalidArgument naming the supported
// ones; a charset ICU has no converter for too.
absl::StatusOr<MediaType> ParseMediaType(std::string_view mime);

// The type of a request that named none: "%PDF-" within its first 1,024 bytes is PDF; a
// document whose first non-blank characters (past an XML declaration) are "<!doctype html", a
// comment before <html>, or the start tag of an element pages and fragments begin with
// (<html>, <head>, <body>, <p>, <div>, <h1>..<h6>, <article>, <section>, <main>, <header>,
// <nav>, <ul>, <ol>, <table>, <meta>, <title>) is HTML; anything else text/plain (Markdown is
// never guessed: plain text reads it as before, so old clients see no change). Text in
// UTF-16 shows its tags once converted (formats/encoding.h): detect on the converted text.
ContentType Detect(std::string_view input);

// A box on a PDF page in points (1/72 inch), from the page's top-left corner.
struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

// A word's box as each piece keeps it: single precision (a hundredth of a point on a page
// of 10,000), half the memory of a Box.
struct PieceBox {
  float x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};
// A run of extracted text and where it came from: 36 bytes a word (a document's extraction
// holds one per word, so its size is most of the memory an extraction takes). Offsets fit in
// 32 bits: Extract refuses input and text of 4 GiB or more.
struct Piece {
  uint32_t begin = 0;  // byte range in Extracted::text
  uint32_t end = 0;
  // Byte range in the input (Markdown, HTML); empty when the word could not be found there
  // (an entity or escape changed it).
  uint32_t source_begin = 0;
  uint32_t source_end = 0;
  int32_t page = 0;  // PDF: 1-based page; 0 for the other formats
  PieceBox box;      // PDF: the word's box (poppler's)
};
// DOCX, ODT and EPUB: a place in the package a piece comes from (Piece::page is 1 + its index
// in Extracted::blocks). DOCX and ODT: a paragraph of a part, and the piece's source range the
// word's characters (code points) in that paragraph's text. EPUB: an XHTML file (paragraph 0),
// and the source range bytes of that file.
struct Block {
  int32_t part = 0;       // index in Extracted::parts
  int32_t paragraph = 0;  // 0-based, in document order, headings and list items included
};
// A heading line of the extracted text and the level its format gave it (Markdown's #s,
// HTML's h1-h6, Word's and OpenDocument's heading levels): 1 the highest.
struct HeadingLevel {
  uint32_t begin = 0;  // the line's first byte in Extracted::text
  int32_t level = 0;
};
struct Extracted {
  std::string text;           // valid UTF-8 without NUL, one block per line
  std::vector<Piece> pieces;  // ascending, non-overlapping, one per word
  int32_t pages = 0;          // PDF pages read
  // PDF: the pages (1-based) that drew no word: blank, or images only (scanned; OCR reads them).
  std::vector<int32_t> pages_without_text;
  std::vector<HeadingLevel> heading_levels;  // ascending
  // PDF: heading_levels come from the document's outline (its bookmarks), not from type sizes,
  // so they name its sections.
  bool outline_headings = false;
  std::vector<std::string> parts;  // DOCX, ODT, EPUB: the package's files read
  std::vector<Block> blocks;
};

struct ExtractLimits {
  uint64_t max_text_bytes = 16u << 20;  // extracted text (after the input's own byte limit)
  int32_t max_pdf_pages = 3000;
  int32_t max_html_depth = 512;  // element nesting, as HTML5 builds the tree
  // Attributes kept per HTML element; the rest are dropped (blanked before parsing).
  int32_t max_html_attributes = 64;
  // Markdown: block quotes and lists nested deeper are refused; a line with more '|' than this
  // has them read as spaces (the table extension's work per row grows with its cells squared).
  int32_t max_markdown_depth = 64;
  int32_t max_table_columns = 128;
  // PDF: runs (glyphs that follow one another on a baseline: a line of a column, a table cell)
  // a page may draw and still be read in poppler's reading order (TextPage::coalesce, whose time
  // grows with the square of the words standing in narrow columns); past it, or past 8,000
  // glyphs, the page is read in the order it is drawn (formats/pdf.cc).
  int64_t max_ordered_runs = 300;
  // And the words one run may hold (as poppler breaks words): coalesce's time grows with the
  // square of each line's words (about 11 ns times their sum here), and a 6.5-inch line of
  // 8-point prose holds some 25.
  int64_t max_ordered_run_words = 40;
  // And the characters (glyphs) a PDF may draw per byte of its own, past the first 262,144: a
  // PDF's work goes by what it draws, and its pages may share one content stream (or a form,
  // or a stream may inflate a hundredfold), so without this a 300 KB file could draw the whole
  // extracted-text limit. The densest real PDFs here draw 0.73 a byte (Debian's valgrind
  // manual; docs/design.md, "What each reader bounds"). 0: only the extracted-text limit.
  int64_t max_pdf_glyphs_per_byte = 4;
  // DOCX, ODT, EPUB: the bytes all the entries read may inflate to (a zip bomb stops here).
  uint64_t max_unpacked_bytes = 64u << 20;
  // The request's deadline, checked inside every reader (between Markdown chunks, HTML nodes,
  // PDF pages and layout steps): DeadlineExceeded names the stage it was in.
  absl::Time deadline = absl::InfiniteFuture();
};

// Extracts `input` of `type` (not kText, which needs none). InvalidArgument, with a message a
// person can act on, for input the parser cannot read: invalid UTF-8 in Markdown or HTML (with
// the offset), HTML nested deeper than max_html_depth, a damaged, encrypted or text-less
// (scanned) PDF, more than max_pdf_pages pages, extracted text over max_text_bytes, or nothing
// left to summarize; DeadlineExceeded when the deadline passes while a PDF is read. Never
// throws; thread-safe.
absl::StatusOr<Extracted> Extract(std::string_view input, ContentType type,
                                  const ExtractLimits& limits);

// The byte range of the input that [begin, end) of the extracted text came from: from the first
// known source byte of its first word to the last of its last word (markup between them
// included). nullopt when no piece in the range has a source range (PDF, or nothing mapped).
struct SourceRange {
  uint64_t begin = 0;
  uint64_t end = 0;
};
std::optional<SourceRange> SourceOf(const Extracted& doc, uint64_t begin, uint64_t end);

// PDF: where [begin, end) of the extracted text lies: one box per page line it touches (the
// union of its words' boxes on that line), in reading order.
struct PageBox {
  int32_t page = 0;
  Box box;
};
std::vector<PageBox> PageBoxesOf(const Extracted& doc, uint64_t begin, uint64_t end);

// DOCX, ODT and EPUB: where [begin, end) of the extracted text lies in the package: the part
// (file), the paragraph and the range (characters of the paragraph for DOCX and ODT, bytes of
// the file for EPUB) from its first word to its last in the block of its first word. nullopt for
// other formats.
struct PartRange {
  std::string part;
  int32_t paragraph = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
};
std::optional<PartRange> PartOf(const Extracted& doc, uint64_t begin, uint64_t end);

// Whether a type is read from a zip package (DOCX, ODT, EPUB).
constexpr bool IsPackage(ContentType type) {
  return type == ContentType::kDocx || type == ContentType::kOdt || type == ContentType::kEpub;
}

// The language of a text as an ISO 639-1 code ("en", "zh", "ja"; "zh-Hant" for traditional
// Chinese) by CLD2, or "und" when CLD2 cannot tell reliably (too little text, digits only).
// Thread-safe.
std::string DetectLanguage(std::string_view text);

// The languages the shipped model's training documents are written in.
inline constexpr std::string_view kTrainedLanguages[] = {"en"};

}  // namespace rpsum::formats

#endif  // RPSUM_FORMATS_FORMATS_H_
