#include "formats/encoding.h"

#include <unicode/uchar.h>
#include <unicode/ucnv.h>
#include <unicode/ucsdet.h>
#include <unicode/utf16.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <array>
#include <memory>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "model/document.h"

namespace rpsum::formats {
namespace {

// A mark every this many characters: a lookup walks at most this many lengths.
constexpr uint64_t kStride = 64;
// Input converted per call to ICU: the deadline is checked between them.
constexpr size_t kChunkBytes = 64 << 10;
// Bytes of an undeclared document the detector reads (its confidence settles within a few KB).
constexpr size_t kDetectBytes = 64 << 10;
// The bytes HTML5's prescan reads for a <meta> charset.
constexpr size_t kPrescanBytes = 1024;

absl::Status Invalid(const std::string& message) { return absl::InvalidArgumentError(message); }

// Abseil's string_view (Debian's Abseil predates its aliasing std::string_view).
absl::string_view A(std::string_view s) { return {s.data(), s.size()}; }

// The bytes of the UTF-8 character whose lead byte is `c`.
uint32_t Utf8Length(unsigned char c) {
  if (c < 0x80) return 1;
  if ((c >> 5) == 0x6) return 2;
  if ((c >> 4) == 0xE) return 3;
  return 4;
}

std::string Lower(std::string_view s) {
  return absl::AsciiStrToLower(absl::StripAsciiWhitespace(A(s)));
}

// A byte-order mark: its encoding and length, or {"", 0}.
std::pair<std::string, size_t> ByteOrderMark(std::string_view in) {
  auto starts = [&](std::string_view bom) { return absl::StartsWith(A(in), A(bom)); };
  if (starts("\xEF\xBB\xBF")) return {"UTF-8", 3};
  if (starts(std::string_view("\xFF\xFE\0\0", 4))) return {"UTF-32LE", 4};
  if (starts(std::string_view("\0\0\xFE\xFF", 4))) return {"UTF-32BE", 4};
  if (starts("\xFF\xFE")) return {"UTF-16LE", 2};
  if (starts("\xFE\xFF")) return {"UTF-16BE", 2};
  return {"", 0};
}

// The value of a `key=value` in `s` from `from` (quoted or not), lowercased; "" if none.
std::string ValueAfter(std::string_view s, size_t from) {
  size_t i = from;
  while (i < s.size() && absl::ascii_isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (i >= s.size() || s[i] != '=') return "";
  ++i;
  while (i < s.size() && absl::ascii_isspace(static_cast<unsigned char>(s[i]))) ++i;
  if (i < s.size() && (s[i] == '"' || s[i] == '\'')) {
    const size_t close = s.find(s[i], i + 1);
    if (close == std::string_view::npos) return "";
    return Lower(s.substr(i + 1, close - i - 1));
  }
  size_t e = i;
  while (e < s.size() && !absl::ascii_isspace(static_cast<unsigned char>(s[e])) && s[e] != ';' &&
         s[e] != '>' && s[e] != '"' && s[e] != '\'') {
    ++e;
  }
  return Lower(s.substr(i, e - i));
}

// HTML5's "extract a character encoding from a meta element": the charset in a content value.
std::string CharsetInContent(std::string_view content) {
  for (size_t at = content.find("charset"); at != std::string_view::npos;
       at = content.find("charset", at + 7)) {
    std::string v = ValueAfter(content, at + 7);
    if (!v.empty()) return v;
  }
  return "";
}

// One <meta>'s attributes from `i` (past "<meta") to its '>': the charset it declares, if any;
// *i is left past the tag.
std::string MetaTagCharset(std::string_view s, size_t* i) {
  std::string charset, http_equiv, content;
  size_t p = *i;
  while (p < s.size() && s[p] != '>') {
    const unsigned char c = static_cast<unsigned char>(s[p]);
    if (absl::ascii_isspace(c) || c == '/') {
      ++p;
      continue;
    }
    size_t e = p;
    while (e < s.size() && s[e] != '=' && s[e] != '>' && s[e] != '/' &&
           !absl::ascii_isspace(static_cast<unsigned char>(s[e]))) {
      ++e;
    }
    const std::string name = Lower(s.substr(p, e - p));
    size_t v = e;
    while (v < s.size() && absl::ascii_isspace(static_cast<unsigned char>(s[v]))) ++v;
    std::string value;
    if (v < s.size() && s[v] == '=') {
      value = ValueAfter(s, v);
      ++v;
      while (v < s.size() && absl::ascii_isspace(static_cast<unsigned char>(s[v]))) ++v;
      if (v < s.size() && (s[v] == '"' || s[v] == '\'')) {
        const size_t close = s.find(s[v], v + 1);
        v = close == std::string_view::npos ? s.size() : close + 1;
      } else {
        while (v < s.size() && !absl::ascii_isspace(static_cast<unsigned char>(s[v])) &&
               s[v] != '>') {
          ++v;
        }
      }
    }
    if (name == "charset") charset = value;
    if (name == "http-equiv") http_equiv = value;
    if (name == "content") content = value;
    p = std::max(v, e + 1);
  }
  *i = p;
  if (!charset.empty()) return charset;
  if (http_equiv == "content-type") return CharsetInContent(content);
  return "";
}

// HTML5's prescan of the first 1,024 bytes: the first <meta> that declares a charset (comments
// skipped), or an XML declaration's encoding at the start. {label, decided_by}.
std::pair<std::string, std::string> DeclaredInDocument(std::string_view in) {
  const std::string_view s = in.substr(0, kPrescanBytes);
  if (absl::StartsWith(A(s), "<?xml")) {
    const std::string_view decl = s.substr(0, s.find("?>"));
    if (const size_t at = decl.find("encoding"); at != std::string_view::npos) {
      std::string v = ValueAfter(decl, at + 8);
      if (!v.empty()) return {v, "xml_declaration"};
    }
  }
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 4, "<!--") == 0) {
      const size_t close = s.find("-->", i + 4);
      i = close == std::string_view::npos ? s.size() : close + 3;
    } else if (i + 5 < s.size() && absl::EqualsIgnoreCase(A(s.substr(i, 5)), "<meta") &&
               (absl::ascii_isspace(static_cast<unsigned char>(s[i + 5])) || s[i + 5] == '/')) {
      i += 5;
      std::string charset = MetaTagCharset(s, &i);
      if (!charset.empty()) return {charset, "meta"};
    } else {
      ++i;
    }
  }
  return {"", ""};
}

// ICU's standard name for an encoding it opened: the MIME name, else the IANA one.
std::string StandardName(const char* icu_name, std::string_view label) {
  UErrorCode err = U_ZERO_ERROR;
  for (const char* standard : {"MIME", "IANA"}) {
    const char* name = ucnv_getStandardName(icu_name, standard, &err);
    if (U_SUCCESS(err) && name != nullptr) return name;
    err = U_ZERO_ERROR;
  }
  return std::string(label);
}

struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};
using Converter = std::unique_ptr<UConverter, ConverterCloser>;

// Appends converted characters to the text as UTF-8, and each one's original bytes to the map
// (a character's bytes end where the next one's begin).
class Appender {
 public:
  Appender(std::string_view input, Decoded* out) : input_(input), out_(out) {}

  absl::Status Add(UChar32 c, uint64_t source_begin) {
    if (c == 0) {
      return Invalid(absl::StrCat("document contains a NUL character (U+0000) at byte offset ",
                                  source_begin, " (", out_->encoding, ")"));
    }
    Flush(source_begin);
    std::array<uint8_t, 4> buf{};
    int32_t n = 0;
    U8_APPEND_UNSAFE(buf.data(), n, c);
    out_->text.append(reinterpret_cast<const char*>(buf.data()), n);
    pending_ = true;
    pending_begin_ = source_begin;
    pending_bytes_ = static_cast<uint32_t>(n);
    return absl::OkStatus();
  }
  // The last character's bytes end where the next begins (or the input ends).
  void Flush(uint64_t next_begin) {
    if (!pending_) return;
    out_->map.Add(pending_begin_, pending_bytes_, next_begin - pending_begin_);
    pending_ = false;
  }
  void Finish() { Flush(input_.size()); }

 private:
  std::string_view input_;
  Decoded* out_;
  bool pending_ = false;
  uint64_t pending_begin_ = 0;
  uint32_t pending_bytes_ = 0;
};

absl::Status InvalidBytes(std::string_view input, const Decoded& d, UConverter* conv,
                          uint64_t after) {
  std::array<char, 32> bad{};
  int8_t len = static_cast<int8_t>(bad.size());
  UErrorCode err = U_ZERO_ERROR;
  ucnv_getInvalidChars(conv, bad.data(), &len, &err);
  if (U_FAILURE(err) || len < 1) len = 1;
  const uint64_t at = after >= static_cast<uint64_t>(len) ? after - len : 0;
  return Invalid(absl::StrFormat(
      "document is not valid %s (%s): byte 0x%02x at byte offset %d has no character in it; "
      "declare the document's charset (for example 'text/html; charset=windows-1252') or send "
      "UTF-8",
      d.encoding, d.decided_by, static_cast<unsigned char>(input[std::min(at, input.size() - 1)]),
      at));
}

// Converts input[skip..] from `encoding` into UTF-8.
absl::StatusOr<Decoded> Convert(std::string_view input, size_t skip, std::string encoding,
                                std::string decided_by, absl::Time deadline) {
  Decoded d;
  d.encoding = std::move(encoding);
  d.decided_by = std::move(decided_by);
  d.converted = true;
  UErrorCode err = U_ZERO_ERROR;
  Converter conv(ucnv_open(d.encoding.c_str(), &err));
  if (U_FAILURE(err)) return Invalid(absl::StrCat("no converter for charset ", d.encoding));
  ucnv_setToUCallBack(conv.get(), UCNV_TO_U_CALLBACK_STOP, nullptr, nullptr, nullptr, &err);
  d.text.reserve(input.size() + input.size() / 8);
  Appender out(input, &d);
  // Twice the units a chunk can make: ICU never has to hold output back between calls.
  std::vector<UChar> units(2 * kChunkBytes + 64);
  std::vector<int32_t> offsets(units.size());
  const char* src = input.data() + skip;
  const char* const end = input.data() + input.size();
  UChar lead = 0;
  uint64_t lead_begin = 0;
  do {
    if (deadline != absl::InfiniteFuture() && absl::Now() > deadline) {
      return absl::DeadlineExceededError(
          "the request's deadline passed while converting the document to UTF-8; send a "
          "smaller document or allow more time");
    }
    const uint64_t base = src - input.data();
    err = U_ZERO_ERROR;
    const uint64_t held =
        static_cast<uint64_t>(std::max(0, ucnv_toUCountPending(conv.get(), &err)));
    const char* limit = end - src > static_cast<ptrdiff_t>(kChunkBytes) ? src + kChunkBytes : end;
    UChar* target = units.data();
    err = U_ZERO_ERROR;
    ucnv_toUnicode(conv.get(), &target, units.data() + units.size(), &src, limit, offsets.data(),
                   limit == end, &err);
    if (U_FAILURE(err) && err != U_BUFFER_OVERFLOW_ERROR) {
      return InvalidBytes(input, d, conv.get(), src - input.data());
    }
    for (int32_t j = 0; j < target - units.data(); ++j) {
      // -1: a character whose bytes began in the previous chunk.
      const uint64_t at = offsets[j] >= 0 ? base + offsets[j] : base - std::min(base, held);
      const UChar u = units[j];
      if (lead != 0) {
        const UChar first = lead;
        lead = 0;
        if (U16_IS_TRAIL(u)) {
          if (auto s = out.Add(U16_GET_SUPPLEMENTARY(first, u), lead_begin); !s.ok()) return s;
          continue;
        }
      }
      if (U16_IS_LEAD(u)) {
        lead = u;
        lead_begin = at;
        continue;
      }
      if (U16_IS_SURROGATE(u)) continue;  // the converters never make an unpaired one
      if (auto s = out.Add(u, at); !s.ok()) return s;
    }
  } while (src < end || err == U_BUFFER_OVERFLOW_ERROR);
  out.Finish();
  d.text.shrink_to_fit();
  d.map.Finish(input.size());
  return d;
}

// A document read in place as UTF-8: checked, with the encoding named in the error.
absl::StatusOr<Decoded> InPlace(std::string_view input, std::string decided_by) {
  Decoded d;
  d.encoding = "UTF-8";
  d.decided_by = std::move(decided_by);
  if (d.decided_by != "utf8") {
    if (absl::Status s = model::ValidateText(input, "document"); !s.ok()) {
      return Invalid(absl::StrCat(s.message(), " (UTF-8 by ", d.decided_by,
                                  "); declare the document's charset or send UTF-8"));
    }
  }
  return d;
}

bool IsUtf8Text(std::string_view input) { return model::ValidateText(input, "").ok(); }

// Reads `input` in the encoding a label names (decided by `how`).
absl::StatusOr<Decoded> ReadAs(std::string_view input, size_t skip, std::string_view label,
                               std::string how, absl::Time deadline) {
  const absl::StatusOr<std::string> name = CharsetName(label);
  if (!name.ok()) return name.status();
  if (*name == "UTF-8") return InPlace(input, std::move(how));
  // Declared ISO-8859-1, US-ASCII or windows-1252, and valid UTF-8: ASCII reads the same either
  // way (in place); UTF-8 characters are what the author wrote (a stale template or server
  // default declared Latin-1; Latin-1 text almost never forms them), read as UTF-8.
  if (*name == "windows-1252" && IsUtf8Text(input.substr(skip))) {
    const bool ascii = std::all_of(input.begin(), input.end(),
                                   [](char c) { return static_cast<unsigned char>(c) < 0x80; });
    absl::StatusOr<Decoded> d = InPlace(input, ascii ? how : "utf8");
    if (d.ok() && ascii) d->encoding = *name;
    return d;
  }
  return Convert(input, skip, *name, std::move(how), deadline);
}

// True when a quarter or more of the first kDetectBytes of a decoded text's visible characters
// (all but whitespace) are characters no reader sees: format (Cf), control, private-use,
// unassigned or surrogate code points. A detected encoding that reads so is a misreading: the
// bytes "a\0b " read as UTF-16LE are an 'a' and U+2062 INVISIBLE TIMES over and over.
bool MostlyInvisible(std::string_view text) {
  const auto n = static_cast<int32_t>(std::min(text.size(), kDetectBytes));
  int64_t hidden = 0;
  int64_t shown = 0;
  for (int32_t i = 0; i < n;) {
    UChar32 c = 0;
    U8_NEXT(text.data(), i, n, c);
    if (c >= 0 && u_isUWhiteSpace(c)) continue;
    const int8_t type = c < 0 ? U_UNASSIGNED : u_charType(c);
    const bool invisible = type == U_FORMAT_CHAR || type == U_CONTROL_CHAR ||
                           type == U_PRIVATE_USE_CHAR || type == U_UNASSIGNED ||
                           type == U_SURROGATE;
    if (invisible) {
      ++hidden;
    } else {
      ++shown;
    }
  }
  return hidden > 0 && 4 * hidden >= hidden + shown;
}

absl::StatusOr<Decoded> DetectAndRead(std::string_view input, const DecodeOptions& options) {
  UErrorCode err = U_ZERO_ERROR;
  std::unique_ptr<UCharsetDetector, void (*)(UCharsetDetector*)> det(ucsdet_open(&err),
                                                                     ucsdet_close);
  const std::string_view sample = input.substr(0, kDetectBytes);
  ucsdet_setText(det.get(), sample.data(), static_cast<int32_t>(sample.size()), &err);
  ucsdet_enableInputFilter(det.get(), options.html ? 1 : 0);
  int32_t found = 0;
  const UCharsetMatch** matches = ucsdet_detectAll(det.get(), &found, &err);
  if (U_FAILURE(err)) found = 0;
  // The best few: a candidate that meets a byte it does not define, or reads the text as mostly
  // invisible characters, gives way to the next.
  for (int32_t k = 0; k < std::min(found, 4); ++k) {
    err = U_ZERO_ERROR;
    const char* label = ucsdet_getName(matches[k], &err);
    if (U_FAILURE(err) || label == nullptr) continue;
    const absl::StatusOr<std::string> name = CharsetName(label);
    if (!name.ok() || *name == "UTF-8") continue;  // not valid UTF-8: it was checked
    absl::StatusOr<Decoded> d = Convert(input, 0, *name, "detected", options.deadline);
    if (d.ok() && MostlyInvisible(d->text)) continue;  // a misreading: the next candidate
    if (d.ok() || absl::IsDeadlineExceeded(d.status())) return d;
  }
  const int64_t bad = model::FirstInvalidUtf8(input);
  return Invalid(absl::StrFormat(
      "document is not UTF-8 (%s) and its encoding could not be detected; declare its charset "
      "(for example 'text/plain; charset=windows-1252')",
      bad >= 0 ? absl::StrFormat("first invalid byte 0x%02x at byte offset %d",
                                 static_cast<unsigned char>(input[bad]), bad)
               : std::string("it holds NUL bytes")));
}

}  // namespace

void SourceMap::Add(uint64_t source_offset, uint32_t text_bytes, uint64_t source_bytes) {
  const bool jump = characters_ > 0 && source_offset != source_end_;
  if (characters_ % kStride == 0 || jump || force_mark_) {
    marks_.push_back(Mark{characters_, text_end_, source_offset});
  }
  force_mark_ = source_bytes > 255;
  lengths_.push_back(static_cast<uint8_t>(std::min<uint64_t>(source_bytes, 255)));
  ++characters_;
  text_end_ += text_bytes;
  source_end_ = source_offset + source_bytes;
}

uint64_t SourceMap::Original(std::string_view text, uint64_t offset) const {
  if (offset >= text_end_ || marks_.empty()) return source_end_;
  auto it = std::upper_bound(marks_.begin(), marks_.end(), offset,
                             [](uint64_t o, const Mark& m) { return o < m.text; });
  const Mark& m = *std::prev(it);
  uint64_t c = m.character;
  uint64_t t = m.text;
  uint64_t s = m.source;
  while (t < offset) {
    const uint32_t n = Utf8Length(static_cast<unsigned char>(text[t]));
    if (t + n > offset) break;  // inside this character: its start
    t += n;
    s += lengths_[c++];
  }
  return s;
}

void SourceMap::Finish(uint64_t source_end) {
  source_end_ = source_end;
  marks_.shrink_to_fit();
  lengths_.shrink_to_fit();
}

uint64_t SourceMap::bytes() const { return marks_.capacity() * sizeof(Mark) + lengths_.capacity(); }

absl::StatusOr<std::string> CharsetName(std::string_view label) {
  const std::string l = Lower(label);
  // WHATWG's labels where they differ from ICU's reading of them.
  for (const char* latin1 : {"iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "l1", "us-ascii",
                             "ascii", "cp819", "ibm819", "csisolatin1", "iso-ir-100",
                             "iso_8859-1:1987", "x-cp1252", "cp1252", "windows-1252"}) {
    if (l == latin1) return std::string("windows-1252");
  }
  if (l == "utf-8" || l == "utf8" || l == "unicode-1-1-utf-8") return std::string("UTF-8");
  if (l == "utf-16" || l == "utf-16le" || l == "unicode" || l == "ucs-2") {
    return std::string("UTF-16LE");
  }
  if (l == "iso-8859-9" || l == "latin5" || l == "iso8859-9") return std::string("windows-1254");
  if (l == "tis-620" || l == "iso-8859-11" || l == "windows-874") return std::string("windows-874");
  if (l == "gb2312" || l == "gbk" || l == "x-gbk") return std::string("GBK");
  UErrorCode err = U_ZERO_ERROR;
  Converter conv(ucnv_open(l.c_str(), &err));
  if (l.empty() || U_FAILURE(err)) {
    return Invalid(absl::StrCat("charset '", std::string(label),
                                "' is not known; name one such as utf-8, windows-1252, "
                                "iso-8859-2, utf-16, shift_jis or gb18030"));
  }
  err = U_ZERO_ERROR;
  return StandardName(ucnv_getName(conv.get(), &err), l);
}

absl::StatusOr<Decoded> Decode(std::string_view input, const DecodeOptions& options) {
  if (const auto [bom, skip] = ByteOrderMark(input); skip > 0) {
    if (bom == "UTF-8") return InPlace(input, "byte_order_mark");
    return Convert(input, skip, bom, "byte_order_mark", options.deadline);
  }
  if (!options.declared.empty()) {
    return ReadAs(input, 0, options.declared, "content_type", options.deadline);
  }
  if (options.html) {
    auto [label, how] = DeclaredInDocument(input);
    if (!label.empty() && CharsetName(label).ok()) {
      // A page that declares UTF-16 in ASCII bytes is not UTF-16 (HTML5 reads it as UTF-8).
      if (absl::StartsWith(label, "utf-16")) label = "utf-8";
      return ReadAs(input, 0, label, how, options.deadline);
    }
  }
  if (IsUtf8Text(input)) return InPlace(input, "utf8");
  // Valid UTF-8 but for a few NUL bytes is UTF-8 with NULs (refused as such), not UTF-16 or
  // UTF-32, whose ASCII holds a NUL in every second or fourth byte.
  if (model::FirstInvalidUtf8(input) < 0 &&
      std::count(input.begin(), input.end(), '\0') < static_cast<ptrdiff_t>(input.size() / 4)) {
    return model::ValidateText(input, "document");
  }
  return DetectAndRead(input, options);
}

void MapSources(const Decoded& decoded, Extracted* extracted) {
  if (!decoded.converted) return;
  for (Piece& p : extracted->pieces) {
    if (p.source_end <= p.source_begin) continue;
    p.source_begin = static_cast<uint32_t>(decoded.Original(p.source_begin));
    p.source_end = static_cast<uint32_t>(decoded.Original(p.source_end));
  }
}

}  // namespace rpsum::formats
