#include "formats/formats.h"

#include <cld2/public/compact_lang_det.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "absl/time/clock.h"
#include "formats/encoding.h"
#include "formats/internal/builder.h"
#include "model/document.h"

namespace rpsum::formats {
namespace {

constexpr std::string_view kSupported =
    "text/plain, text/markdown, text/html, application/pdf, "
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document (DOCX), "
    "application/vnd.oasis.opendocument.text (ODT), application/epub+zip";
constexpr std::string_view kDocxMime =
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
constexpr std::string_view kOdtMime = "application/vnd.oasis.opendocument.text";
constexpr std::string_view kEpubMime = "application/epub+zip";

// A byte the text form never holds: ASCII whitespace and control characters.
bool IsBlank(unsigned char c) { return c <= 0x20 || c == 0x7f; }

// Length of a UTF-8 no-break space (U+00A0) at `i`, else 0: &nbsp; is a space in the text form.
size_t NoBreakSpaceAt(std::string_view s, size_t i) {
  return i + 1 < s.size() && static_cast<unsigned char>(s[i]) == 0xC2 &&
                 static_cast<unsigned char>(s[i + 1]) == 0xA0
             ? 2
             : 0;
}

// Bytes searched past the cursor for a word's source: markup between two words (a link
// target, a tag) is rarely longer, and a bound keeps the search linear.
constexpr uint64_t kSearchWindow = 2048;
// After each word not found (an escape or entity changed it), the window halves, to this at
// least, until a word is found again: a run of such words costs little each.
constexpr uint64_t kMinSearchWindow = 64;

}  // namespace

std::string_view MimeName(ContentType type) {
  switch (type) {
    case ContentType::kMarkdown:
      return "text/markdown";
    case ContentType::kHtml:
      return "text/html";
    case ContentType::kPdf:
      return "application/pdf";
    case ContentType::kDocx:
      return kDocxMime;
    case ContentType::kOdt:
      return kOdtMime;
    case ContentType::kEpub:
      return kEpubMime;
    case ContentType::kText:
      break;
  }
  return "text/plain";
}

absl::StatusOr<MediaType> ParseMediaType(std::string_view mime) {
  const std::string full(mime);
  const size_t semi = full.find(';');
  const std::string type = absl::AsciiStrToLower(absl::StripAsciiWhitespace(full.substr(0, semi)));
  const std::string params =
      semi == std::string::npos ? "" : absl::AsciiStrToLower(full.substr(semi + 1));
  MediaType out;
  if (const size_t cs = params.find("charset="); cs != std::string::npos) {
    std::string charset = params.substr(cs + 8);
    charset = charset.substr(0, charset.find(';'));
    charset = std::string(absl::StripAsciiWhitespace(charset));
    if (charset.size() >= 2 && charset.front() == '"' && charset.back() == '"') {
      charset = charset.substr(1, charset.size() - 2);
    }
    if (absl::StatusOr<std::string> name = CharsetName(charset); !name.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("content type '", full, "': ", name.status().message()));
    }
    out.charset = charset;
  }
  if (type == "text/plain") {
    out.type = ContentType::kText;
  } else if (type == "text/markdown" || type == "text/x-markdown") {
    out.type = ContentType::kMarkdown;
  } else if (type == "text/html" || type == "application/xhtml+xml") {
    out.type = ContentType::kHtml;
  } else if (type == "application/pdf" || type == kDocxMime || type == kOdtMime ||
             type == kEpubMime) {
    out.type = type == kDocxMime   ? ContentType::kDocx
               : type == kOdtMime  ? ContentType::kOdt
               : type == kEpubMime ? ContentType::kEpub
                                   : ContentType::kPdf;
    out.charset.clear();  // binary formats carry their own encodings
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "content type '", full, "' is not supported; supported: ", std::string(kSupported),
        " (or none, to detect PDF, HTML and text)"));
  }
  return out;
}

ContentType Detect(std::string_view input) {
  const std::string head(input.substr(0, 1024));
  if (absl::StartsWith(head, "PK\x03\x04")) {
    // ODF and EPUB store their "mimetype" first, uncompressed; Word's first entries name it.
    if (head.find(kOdtMime) != std::string::npos) return ContentType::kOdt;
    if (head.find(kEpubMime) != std::string::npos) return ContentType::kEpub;
    if (absl::StrContains(head, "word/") || absl::StrContains(head, "[Content_Types].xml")) {
      return ContentType::kDocx;
    }
  }
  if (absl::StrContains(head, "%PDF-")) return ContentType::kPdf;
  size_t i = 0;
  if (absl::StartsWith(head, "\xEF\xBB\xBF")) i = 3;  // a UTF-8 byte order mark
  while (i < head.size() && IsBlank(static_cast<unsigned char>(head[i]))) ++i;
  std::string start = absl::AsciiStrToLower(head.substr(i));
  // XHTML: an XML declaration before the doctype or <html>.
  if (absl::StartsWith(start, "<?xml")) {
    const size_t close = start.find("?>");
    size_t j = close == std::string::npos ? start.size() : close + 2;
    while (j < start.size() && IsBlank(static_cast<unsigned char>(start[j]))) ++j;
    start = start.substr(j);
  }
  if (absl::StartsWith(start, "<!doctype html")) return ContentType::kHtml;
  if (absl::StartsWith(start, "<!--") &&
      (absl::StrContains(start, "<html") || absl::StrContains(start, "<!doctype html"))) {
    return ContentType::kHtml;
  }
  // A start tag of an element that begins pages and fragments: "<html", "<p>", "<div class=".
  for (const char* tag :
       {"html", "head", "body",    "meta",    "title", "p",      "div", "h1", "h2", "h3",   "h4",
        "h5",   "h6",   "article", "section", "main",  "header", "nav", "ul", "ol", "table"}) {
    const size_t n = std::strlen(tag);
    if (start.size() > n + 1 && start[0] == '<' && start.compare(1, n, tag) == 0 &&
        std::strchr("> \t\r\n/", start[n + 1]) != nullptr) {
      return ContentType::kHtml;
    }
  }
  return ContentType::kText;
}

absl::StatusOr<Extracted> Extract(std::string_view input, ContentType type,
                                  const ExtractLimits& limits) {
  if (input.size() >= UINT32_MAX || limits.max_text_bytes >= UINT32_MAX) {
    return absl::InvalidArgumentError(
        "this document is 4 GiB or more (or the extracted-text limit is); send less");
  }
  switch (type) {
    case ContentType::kMarkdown:
    case ContentType::kHtml:
      // Text formats: UTF-8 without NUL, checked as text/plain is (with the offset).
      if (absl::Status s = model::ValidateText(input, "document"); !s.ok()) return s;
      return type == ContentType::kHtml ? internal::ExtractHtml(input, limits)
                                        : internal::ExtractMarkdown(input, limits);
    case ContentType::kPdf:
      return internal::ExtractPdf(input, limits);
    case ContentType::kDocx:
    case ContentType::kOdt:
    case ContentType::kEpub:
      return internal::ExtractOffice(input, type, limits);
    case ContentType::kText:
      break;
  }
  return absl::InternalError("text/plain needs no extraction");
}

std::optional<SourceRange> SourceOf(const Extracted& doc, uint64_t begin, uint64_t end) {
  auto it = std::lower_bound(doc.pieces.begin(), doc.pieces.end(), begin,
                             [](const Piece& p, uint64_t b) { return p.end <= b; });
  std::optional<SourceRange> out;
  for (; it != doc.pieces.end() && it->begin < end; ++it) {
    if (it->source_end <= it->source_begin) continue;
    if (!out) out = SourceRange{it->source_begin, it->source_end};
    out->begin = std::min<uint64_t>(out->begin, it->source_begin);
    out->end = std::max<uint64_t>(out->end, it->source_end);
  }
  return out;
}

std::vector<PageBox> PageBoxesOf(const Extracted& doc, uint64_t begin, uint64_t end) {
  auto it = std::lower_bound(doc.pieces.begin(), doc.pieces.end(), begin,
                             [](const Piece& p, uint64_t b) { return p.end <= b; });
  std::vector<PageBox> out;
  for (; it != doc.pieces.end() && it->begin < end; ++it) {
    if (it->page <= 0) continue;
    const Box b{it->box.x0, it->box.y0, it->box.x1, it->box.y1};
    if (!out.empty()) {
      Box& last = out.back().box;
      // The same line: same page, overlapping vertically, and to the right of the last word.
      const double overlap = std::min(last.y1, b.y1) - std::max(last.y0, b.y0);
      if (out.back().page == it->page && overlap > 0.5 * (b.y1 - b.y0) && b.x0 >= last.x0) {
        last.x0 = std::min(last.x0, b.x0);
        last.y0 = std::min(last.y0, b.y0);
        last.x1 = std::max(last.x1, b.x1);
        last.y1 = std::max(last.y1, b.y1);
        continue;
      }
    }
    out.push_back(PageBox{it->page, b});
  }
  return out;
}

std::optional<PartRange> PartOf(const Extracted& doc, uint64_t begin, uint64_t end) {
  auto it = std::lower_bound(doc.pieces.begin(), doc.pieces.end(), begin,
                             [](const Piece& p, uint64_t b) { return p.end <= b; });
  std::optional<PartRange> out;
  int32_t block = 0;
  for (; it != doc.pieces.end() && it->begin < end; ++it) {
    if (it->page <= 0 || static_cast<size_t>(it->page) > doc.blocks.size()) continue;
    if (!out) {
      block = it->page;
      const Block& b = doc.blocks[block - 1];
      out = PartRange{doc.parts[b.part], b.paragraph, it->source_begin, it->source_end};
    }
    if (it->page != block) break;  // a unit lies in one block; its first block is its place
    out->begin = std::min<uint64_t>(out->begin, it->source_begin);
    out->end = std::max<uint64_t>(out->end, it->source_end);
  }
  return out;
}

std::string DetectLanguage(std::string_view text) {
  bool reliable = false;
  // The first 16 KB: CLD2 is sure of a language from a few hundred bytes, and it reads all it
  // is given (64 KB of text took 2.3 ms on every long request, 16 KB 0.4 ms).
  const std::string_view sample = text.substr(0, 16 << 10);
  int bytes = static_cast<int>(sample.size());
  // Do not cut a UTF-8 character.
  while (bytes > 0 && bytes < static_cast<int>(text.size()) &&
         (static_cast<unsigned char>(text[bytes]) & 0xC0) == 0x80) {
    --bytes;
  }
  const CLD2::Language lang = CLD2::DetectLanguage(sample.data(), bytes, true, &reliable);
  if (lang == CLD2::UNKNOWN_LANGUAGE || !reliable) return "und";
  std::string code = CLD2::LanguageCode(lang);
  return code.empty() || code == "un" ? "und" : code;
}

namespace internal {

absl::Status CheckDeadline(const ExtractLimits& limits, std::string_view stage) {
  if (limits.deadline == absl::InfiniteFuture() || absl::Now() <= limits.deadline) {
    return absl::OkStatus();
  }
  return absl::DeadlineExceededError(absl::StrCat("the request's deadline passed while ",
                                                  std::string(stage), "; send a smaller document ",
                                                  "or allow more time"));
}

void TextBuilder::AppendWordText(std::string_view word, uint64_t src_b, uint64_t src_e,
                                 int32_t page, const Box& box) {
  if (overflowed_ || word.empty()) return;
  std::string& t = out_.text;
  if (pending_space_ && line_bytes_ > 0 && !(pending_break_ && model::JoinsWithoutSpace(t, word))) {
    t.push_back(' ');
    ++line_bytes_;
  }
  pending_space_ = false;
  pending_break_ = false;
  if (t.size() + word.size() + 1 > max_bytes_) {
    overflowed_ = true;
    return;
  }
  if (pending_level_ > 0 && line_bytes_ == 0) {
    out_.heading_levels.push_back(HeadingLevel{static_cast<uint32_t>(t.size()), pending_level_});
  }
  pending_level_ = 0;
  Piece p;  // offsets fit: Extract refuses 4 GiB
  p.begin = static_cast<uint32_t>(t.size());
  t.append(word);
  p.end = static_cast<uint32_t>(t.size());
  p.source_begin = static_cast<uint32_t>(src_b);
  p.source_end = static_cast<uint32_t>(src_e);
  p.page = page;
  p.box = PieceBox{static_cast<float>(box.x0), static_cast<float>(box.y0),
                   static_cast<float>(box.x1), static_cast<float>(box.y1)};
  out_.pieces.push_back(p);
  line_bytes_ += word.size();
}

namespace {

bool IsLocalChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '+' || c == '-' ||
         c == '_';
}
bool IsDomainChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '-' || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}

// Where a bare link (GFM's extended autolink: a URL after http://, https:// or ftp://, a
// "www." domain, an e-mail address) lies in a whitespace-free `word`, as [begin, end); nullopt
// when there is none. Trailing punctuation and an unbalanced ')' stay outside, as in GFM.
std::optional<std::pair<size_t, size_t>> BareLink(std::string_view word) {
  size_t lead = 0;
  while (lead < word.size() && std::strchr("(*_~", word[lead]) != nullptr) ++lead;
  const std::string lower = absl::AsciiStrToLower(std::string(word.substr(lead, 8)));
  size_t begin = lead, end = 0;
  bool url = false;
  for (const char* scheme : {"http://", "https://", "ftp://", "www."}) {
    const size_t n = std::strlen(scheme);
    if (absl::StartsWith(lower, scheme) && word.size() > lead + n && IsDomainChar(word[lead + n])) {
      url = true;
      end = word.size();
      if (const size_t lt = word.find('<', lead); lt != std::string_view::npos) end = lt;
      break;
    }
  }
  if (!url) {
    const size_t at = word.find('@');
    if (at == std::string_view::npos || at == 0) return std::nullopt;
    begin = at;
    while (begin > 0 && IsLocalChar(word[begin - 1])) --begin;
    end = at + 1;
    while (end < word.size() && IsDomainChar(word[end])) ++end;
    if (begin == at) return std::nullopt;
  }
  // Trailing punctuation is not part of the link; nor is a ')' that closes nothing in it.
  while (end > begin) {
    const char c = word[end - 1];
    if (std::strchr("?!.,:*_~'\"", c) != nullptr) {
      --end;
      continue;
    }
    if (c == ')') {
      const std::string_view l = word.substr(begin, end - begin);
      if (std::count(l.begin(), l.end(), ')') > std::count(l.begin(), l.end(), '(')) {
        --end;
        continue;
      }
    }
    break;
  }
  if (!url) {  // an address: a dot in its domain, not ending in '-' or '_'
    const std::string_view l = word.substr(begin, end - begin);
    const size_t at = l.find('@');
    if (at == std::string_view::npos || l.find('.', at) == std::string_view::npos ||
        l.back() == '-' || l.back() == '_') {
      return std::nullopt;
    }
  }
  if (end <= begin) return std::nullopt;
  return std::make_pair(begin, end);
}

}  // namespace

void TextBuilder::AppendSourceWord(std::string_view word, uint64_t* cursor, uint64_t limit) {
  uint64_t sb = *cursor, se = *cursor;
  const uint64_t window = std::max(kMinSearchWindow, kSearchWindow >> std::min(misses_, 16));
  const uint64_t stop = std::min<uint64_t>({limit, source_.size(), *cursor + window + word.size()});
  if (*cursor < stop) {
    // glibc's memmem is linear in haystack and needle (two-way), where find() can cost their
    // product on a long word that nearly matches at every place.
    const void* at = memmem(source_.data() + *cursor, stop - *cursor, word.data(), word.size());
    if (at != nullptr) {
      sb = static_cast<uint64_t>(static_cast<const char*>(at) - source_.data());
      se = sb + word.size();
      *cursor = se;
    }
  }
  misses_ = se > sb ? 0 : misses_ + 1;
  AppendWordText(word, sb, se, 0, Box{});
}

void TextBuilder::AppendText(std::string_view text, uint64_t* cursor, uint64_t limit,
                             bool drop_bare_links) {
  size_t i = 0;
  while (i < text.size()) {
    if (IsBlank(static_cast<unsigned char>(text[i]))) {
      // A run of whitespace with a newline in it is a wrapped line's break (HTML source).
      if (text[i] == '\n' || text[i] == '\r') {
        LineBreak();
      } else if (!pending_break_) {
        Space();
      }
      ++i;
      continue;
    }
    if (const size_t nb = NoBreakSpaceAt(text, i); nb > 0) {
      Space();
      i += nb;
      continue;
    }
    size_t j = i;
    while (j < text.size() && !IsBlank(static_cast<unsigned char>(text[j])) &&
           NoBreakSpaceAt(text, j) == 0) {
      ++j;
    }
    const std::string_view word = text.substr(i, j - i);
    i = j;
    if (drop_bare_links) {
      if (const auto link = BareLink(word)) {
        // What stands before and after the link, without a space between (as GFM's
        // autolink node between two text nodes leaves them).
        if (link->first > 0) AppendSourceWord(word.substr(0, link->first), cursor, limit);
        if (link->second < word.size()) {
          AppendSourceWord(word.substr(link->second), cursor, limit);
        }
        continue;
      }
    }
    AppendSourceWord(word, cursor, limit);
  }
}

void TextBuilder::AppendWord(std::string_view word, bool space_before, int32_t page,
                             const Box& box) {
  if (space_before) Space();
  // Poppler's words hold no spaces, but a control character must not reach the text form, nor
  // what is not UTF-8: poppler writes a lone surrogate of a broken font's ToUnicode map (U+D800
  // to U+DFFF) as three bytes that no UTF-8 reader accepts. Each becomes U+FFFD.
  std::string clean;
  const auto* s = reinterpret_cast<const uint8_t*>(word.data());
  const auto n = static_cast<int32_t>(word.size());
  for (int32_t i = 0; i < n;) {
    const int32_t start = i;
    UChar32 c = 0;
    U8_NEXT(s, i, n, c);
    if (c < 0) {
      clean += "\xEF\xBF\xBD";
    } else if (c < 0x80 && IsBlank(static_cast<unsigned char>(c))) {
      clean.push_back('?');
    } else {
      clean.append(word.substr(static_cast<size_t>(start), static_cast<size_t>(i - start)));
    }
  }
  AppendWordText(clean, 0, 0, page, box);
}

bool TextBuilder::DropTrailingHyphen() {
  if (line_bytes_ == 0 || out_.pieces.empty()) return false;
  const Piece& last = out_.pieces.back();
  const absl::string_view word(out_.text.data() + last.begin, last.end - last.begin);
  size_t hyphen = 0;
  if (absl::EndsWith(word, "-")) hyphen = 1;
  if (absl::EndsWith(word, "\xE2\x80\x90")) hyphen = 3;  // U+2010 HYPHEN
  if (hyphen == 0) return false;
  // A lone hyphen is a dash, unless it touches the word before it on the line (a word and its
  // hyphen drawn apart).
  const bool lone = word.size() == hyphen;
  if (lone && (line_bytes_ == hyphen || out_.pieces.size() < 2 ||
               out_.pieces[out_.pieces.size() - 2].end != last.begin)) {
    return false;
  }
  out_.text.resize(out_.text.size() - hyphen);
  line_bytes_ -= hyphen;
  pending_space_ = false;
  if (lone) {
    out_.pieces.pop_back();
  } else {
    out_.pieces.back().end -= hyphen;
  }
  return true;
}

void TextBuilder::EndBlock() {
  pending_space_ = false;
  pending_break_ = false;
  pending_level_ = 0;  // a heading that ended with no text marks nothing
  if (line_bytes_ == 0 || overflowed_) return;
  out_.text.push_back('\n');
  line_bytes_ = 0;
}

absl::StatusOr<Extracted> TextBuilder::Finish(std::string_view format) && {
  if (overflowed_) {
    return absl::InvalidArgumentError(
        absl::StrCat("the text extracted from this ", std::string(format), " exceeds ", max_bytes_,
                     " bytes (the extracted-text limit); send a shorter document"));
  }
  if (!out_.text.empty() && out_.text.back() == '\n') out_.text.pop_back();
  if (out_.text.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("this ", std::string(format),
                     " has no text to summarize once markup, code and navigation are removed"));
  }
  return std::move(out_);
}

}  // namespace internal
}  // namespace rpsum::formats
