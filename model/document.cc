#include "model/document.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/utext.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstring>
#include <memory>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "model/internal/features.h"
#include "model/internal/scripts.h"

namespace rpsum::model {
namespace {

using internal::CodePointAt;
using internal::DictionaryWords;
using internal::IsCjkPunctuation;
using internal::IsCjkWordChar;
using internal::IsDictionaryScript;
using internal::IsPunctuation;
using internal::LastCodePoint;
using internal::SpaceEndsUnit;

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }

// Trims ASCII whitespace off [*b, *e) of `text`.
void Trim(std::string_view text, uint64_t* b, uint64_t* e) {
  while (*b < *e && IsSpace(text[*b])) ++*b;
  while (*e > *b && IsSpace(text[*e - 1])) --*e;
}

bool IsListItem(std::string_view line) {
  if (line.size() >= 2 && (line[0] == '-' || line[0] == '*' || line[0] == '+') && line[1] == ' ') {
    return true;
  }
  if (line.rfind("\xe2\x80\xa2", 0) == 0) return true;  // bullet
  size_t i = 0;
  while (i < line.size() && i < 4 && std::isdigit(static_cast<unsigned char>(line[i]))) ++i;
  return i > 0 && i + 1 < line.size() && (line[i] == '.' || line[i] == ')') && line[i + 1] == ' ';
}

// ASCII's sentence and clause punctuation, or any Unicode punctuation ("。", "…", "»"); a
// letter of any script ("Введение", "개요", "Résumé"), a digit or a symbol is none.
bool EndsWithPunctuation(std::string_view line) {
  if (line.empty()) return false;
  const char c = line.back();
  if (static_cast<unsigned char>(c) >= 0x80) return IsPunctuation(LastCodePoint(line));
  return c == '.' || c == '!' || c == '?' || c == ':' || c == ';' || c == ',' || c == ')' ||
         c == '"' || c == '\'';
}

// Whether `s` holds a Thai or Lao character (U+0E00..U+0EFF: E0 B8 80 to E0 BB BF in UTF-8).
bool HasThaiOrLao(std::string_view s) {
  for (size_t i = s.find('\xE0'); i != std::string_view::npos && i + 1 < s.size();
       i = s.find('\xE0', i + 1)) {
    const auto next = static_cast<unsigned char>(s[i + 1]);
    if (next >= 0xB8 && next <= 0xBB) return true;
  }
  return false;
}

// Thai and Lao end a sentence or clause with a space: [b, e) of `doc` (a unit) cut at each run
// of spaces between two of their letters, appended to *out as units of `like`'s kind.
void SplitAtUnitSpaces(std::string_view doc, const Unit& like, std::vector<Unit>* out) {
  uint64_t start = like.begin;
  uint32_t before = 0;
  for (uint64_t i = like.begin; i < like.end;) {
    if (doc[i] == ' ') {
      uint64_t j = i;
      while (j < like.end && doc[j] == ' ') ++j;
      size_t len = 1;
      if (j < like.end && SpaceEndsUnit(before) && SpaceEndsUnit(CodePointAt(doc, j, &len))) {
        Unit u = like;
        u.begin = start;
        u.end = i;
        u.paragraph_start = like.paragraph_start && start == like.begin;
        out->push_back(u);
        start = j;
      }
      before = ' ';
      i = j;
      continue;
    }
    size_t len = 1;
    before = CodePointAt(doc, i, &len);
    i += len;
  }
  Unit u = like;
  u.begin = start;
  u.paragraph_start = like.paragraph_start && start == like.begin;
  out->push_back(u);
}

std::unique_ptr<icu::BreakIterator> MakeSentenceIterator() {
  UErrorCode status = U_ZERO_ERROR;
  // "ss=standard" adds ICU's abbreviation suppressions (Mr., Dr., e.g., U.S., ...).
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createSentenceInstance(icu::Locale("en@ss=standard"), status));
  if (U_FAILURE(status) || it == nullptr) {
    status = U_ZERO_ERROR;
    it.reset(icu::BreakIterator::createSentenceInstance(icu::Locale::getEnglish(), status));
  }
  return it;
}

// True if `segment` ends with an abbreviation that ICU's suppression list misses ("Dr.",
// "Prof.", "approx.", "eg."), or with a single-letter initial ("J."), so no sentence ends there.
bool EndsWithAbbreviation(std::string_view segment) {
  static const std::set<std::string_view> kAbbreviations = {
      "Dr.", "Prof.", "Sr.",  "Jr.",   "St.",  "Mt.",     "Gen.",   "Gov.", "Rep.", "Sen.",
      "vs.", "cf.",   "Fig.", "Figs.", "Eq.",  "Sec.",    "Ch.",    "No.",  "Nos.", "Vol.",
      "pp.", "p.",    "al.",  "Inc.",  "Ltd.", "Co.",     "Corp.",  "e.g.", "i.e.", "resp.",
      "eg.", "ie.",   "ex.",  "Ex.",   "viz.", "approx.", "abbrev."};
  const size_t space = segment.find_last_of(" \t(");
  const std::string_view last =
      space == std::string_view::npos ? segment : segment.substr(space + 1);
  if (last.size() == 2 && last[1] == '.' && std::isupper(static_cast<unsigned char>(last[0]))) {
    return true;
  }
  return kAbbreviations.count(last) > 0;
}

// True if `segment` is only a list or section marker: "2.", "1.2.", "a.", "iv." (digits and
// dots, one letter, or a roman numeral, then '.'). "2. Block storm fix" is one unit, not "2."
// and a sentence.
bool IsMarkerOnly(std::string_view segment) {
  if (segment.size() < 2 || segment.size() > 6 || segment.back() != '.') return false;
  const std::string_view body = segment.substr(0, segment.size() - 1);
  if (body.find_first_not_of("0123456789.") == std::string_view::npos &&
      body.find_first_of("0123456789") != std::string_view::npos) {
    return true;
  }
  if (body.size() == 1 && std::isalpha(static_cast<unsigned char>(body[0]))) return true;
  return body.find_first_not_of("ivx") == std::string_view::npos ||
         body.find_first_not_of("IVX") == std::string_view::npos;
}

// '(' minus ')' in `s`.
int ParenDepth(std::string_view s) {
  int depth = 0;
  for (char c : s) depth += c == '(' ? 1 : c == ')' ? -1 : 0;
  return depth;
}

// Splits [b, e) of `text` into ICU sentences, appending trimmed non-empty units. ICU ends a
// sentence at every '!' and '?', and at '.' before a capital; a technical text breaks that
// rule often, so a boundary is dropped (docs/design.md section 2, step 3) when
//   - the terminator has no space after it ("x != 0", "#!python", "v1?page=2", "foo.Bar");
//   - '!' or '?' is followed by a lowercase word ("The regex! compiler plugin") or by
//     anything else no sentence starts with ("'#! /usr/bin/python'", "foo()? }");
//   - the sentence so far ends with an abbreviation ("Dr.", "eg.") or is only a marker ("2.");
//   - a parenthesis is open and one of the next 4 segments closes it ("(eg. IP, onion)").
void SplitSentences(std::string_view text, uint64_t b, uint64_t e, UnitKind kind,
                    std::vector<Unit>* out) {
  thread_local std::unique_ptr<icu::BreakIterator> it = MakeSentenceIterator();
  UErrorCode status = U_ZERO_ERROR;
  UText* ut = utext_openUTF8(nullptr, text.data() + b, static_cast<int64_t>(e - b), &status);
  if (it == nullptr || U_FAILURE(status)) {
    out->push_back(Unit{b, e, kind});
    if (ut != nullptr) utext_close(ut);
    return;
  }
  it->setText(ut, status);
  std::vector<uint64_t> ends;  // ICU's boundaries, absolute; the last is e
  for (int32_t end = it->next(); end != icu::BreakIterator::DONE; end = it->next()) {
    ends.push_back(b + static_cast<uint64_t>(end));
  }
  // Detach the iterator from the UText before closing it.
  it->setText(icu::UnicodeString());
  utext_close(ut);
  if (ends.empty() || ends.back() != e) ends.push_back(e);

  constexpr size_t kParenLookahead = 4;
  uint64_t start = b;
  for (size_t i = 0; i < ends.size(); ++i) {
    const uint64_t end = ends[i];
    uint64_t ub = start, ue = end;
    Trim(text, &ub, &ue);
    if (end < e && ub < ue) {
      const std::string_view segment = text.substr(ub, ue - ub);
      size_t t = segment.size();  // the terminator, before closing quotes and brackets
      while (t > 1 && std::strchr(")]\"'", segment[t - 1]) != nullptr) --t;
      const char term = segment[t - 1];
      const bool ascii_term = term == '.' || term == '!' || term == '?';
      const bool no_space = ue == end;  // nothing trimmed: the next segment starts right here
      uint64_t next = end;
      while (next < e && IsSpace(text[next])) ++next;
      // A sentence starts with a capital, a digit, a quote, a bracket, '`' or a non-ASCII
      // character; '!' and '?' before anything else are code, paths or punctuation.
      const unsigned char c = next < e ? static_cast<unsigned char>(text[next]) : 'A';
      const bool weak_next = c < 0x80 && std::isupper(c) == 0 && std::isdigit(c) == 0 &&
                             std::strchr("\"'([`", c) == nullptr;
      bool keep_going = (ascii_term && no_space) || ((term == '!' || term == '?') && weak_next) ||
                        EndsWithAbbreviation(segment) || IsMarkerOnly(segment);
      if (!keep_going && ParenDepth(segment) > 0) {
        int depth = ParenDepth(segment);
        for (size_t j = i + 1; j < ends.size() && j <= i + kParenLookahead && depth > 0; ++j) {
          depth += ParenDepth(text.substr(ends[j - 1], ends[j] - ends[j - 1]));
        }
        keep_going = depth <= 0;
      }
      if (keep_going) continue;  // no break here
    }
    if (ub < ue) out->push_back(Unit{ub, ue, kind});
    start = end;
  }
}

absl::Status Invalid(absl::string_view what) { return absl::InvalidArgumentError(what); }

}  // namespace

int32_t CountWords(std::string_view s) {
  int32_t n = 0;
  bool in_word = false;
  for (size_t i = 0; i < s.size();) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      const bool space = IsSpace(s[i]) || s[i] == '\n';
      if (!space && !in_word) ++n;
      in_word = !space;
      ++i;
      continue;
    }
    size_t len = 1;
    const uint32_t cp = CodePointAt(s, i, &len);
    if (IsDictionaryScript(cp)) {  // Thai, Lao, Khmer, Burmese: ICU's dictionary words
      size_t j = i + len;
      while (j < s.size()) {
        size_t l = 1;
        if (!IsDictionaryScript(CodePointAt(s, j, &l))) break;
        j += l;
      }
      n += DictionaryWords(s.substr(i, j - i), nullptr) - (in_word ? 1 : 0);
      in_word = false;
      i = j;
      continue;
    }
    i += len;
    if (IsCjkWordChar(cp)) {
      ++n;  // each ideograph or kana is a word-equivalent
      in_word = false;
    } else if (IsCjkPunctuation(cp)) {
      in_word = false;
    } else if (!in_word) {
      ++n;
      in_word = true;
    }
  }
  return n;
}

int64_t FirstInvalidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
      cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      cp = c & 0x07;
    } else {
      return static_cast<int64_t>(i);
    }
    if (i + len > n) return static_cast<int64_t>(i);
    for (size_t k = 1; k < len; ++k) {
      if ((p[i + k] & 0xC0) != 0x80) return static_cast<int64_t>(i);
      cp = (cp << 6) | (p[i + k] & 0x3F);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return static_cast<int64_t>(i);
    }
    i += len;
  }
  return -1;
}

bool IsHeadingLine(std::string_view line) {
  if (line.empty() || line[0] == '|') return false;
  if (line[0] == '#') return true;
  if (EndsWithPunctuation(line) || CountWords(line) > 12 || IsListItem(line)) return false;
  // Thai and Lao end sentences with a space, not a stop: a line of two is no heading.
  if (HasThaiOrLao(line)) {
    std::vector<Unit> parts;
    SplitAtUnitSpaces(line, Unit{0, line.size()}, &parts);
    return parts.size() == 1;
  }
  return true;
}

std::vector<Unit> SplitUnits(std::string_view doc) {
  std::vector<Unit> units;
  bool new_paragraph = true;
  uint64_t line_start = 0;
  while (line_start <= doc.size()) {
    uint64_t line_end = doc.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = doc.size();
    uint64_t b = line_start, e = line_end;
    Trim(doc, &b, &e);
    if (b == e) {
      new_paragraph = true;
    } else {
      const std::string_view line = doc.substr(b, e - b);
      const size_t first = units.size();
      if (line[0] == '|') {
        units.push_back(Unit{b, e, UnitKind::kTableRow});
      } else if (IsHeadingLine(line)) {
        units.push_back(Unit{b, e, UnitKind::kHeading});
        new_paragraph = true;  // what follows a heading starts a paragraph
      } else {
        SplitSentences(doc, b, e, IsListItem(line) ? UnitKind::kListItem : UnitKind::kSentence,
                       &units);
        if (HasThaiOrLao(line)) {
          std::vector<Unit> split;
          for (size_t k = first; k < units.size(); ++k) {
            SplitAtUnitSpaces(doc, units[k], &split);
          }
          units.resize(first);
          units.insert(units.end(), split.begin(), split.end());
        }
      }
      if (units.size() > first) {
        units[first].paragraph_start = new_paragraph || units[first].kind != UnitKind::kSentence;
        new_paragraph = units[first].kind == UnitKind::kHeading;
      }
    }
    line_start = line_end + 1;
  }
  for (Unit& u : units) {
    u.words = CountWords(doc.substr(u.begin, u.end - u.begin));
    u.is_short = u.words < 4;
  }
  return units;
}

std::vector<std::string> AsciiWords(std::string_view text) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : text) {
    char c = ch;
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
      cur.push_back(c);
    } else if (!cur.empty()) {
      out.push_back(std::move(cur));
      cur.clear();
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

absl::Status ValidateText(std::string_view text, absl::string_view name) {
  const int64_t bad = FirstInvalidUtf8(text);
  if (bad >= 0) {
    return Invalid(absl::StrCat(name, " is not valid UTF-8: first invalid byte 0x",
                                absl::Hex(static_cast<unsigned char>(text[bad]), absl::kZeroPad2),
                                " at byte offset ", bad));
  }
  const void* nul = text.empty() ? nullptr : std::memchr(text.data(), '\0', text.size());
  if (nul != nullptr) {
    return Invalid(absl::StrCat(name, " contains a NUL byte at byte offset ",
                                static_cast<const char*>(nul) - text.data()));
  }
  return absl::OkStatus();
}

absl::Status CheckDocumentBytes(uint64_t bytes, uint64_t max_document_bytes) {
  if (bytes <= max_document_bytes) return absl::OkStatus();
  return Invalid(absl::StrCat("document is ", bytes, " bytes; the limit is ", max_document_bytes,
                              " (max_document_bytes)"));
}

std::string_view PreparedDocument::UnitText(const DocumentInput& in, int32_t unit) const {
  const Unit& u = units[unit];
  const std::string_view src = in.presplit ? in.units[u.input_index] : in.document;
  return src.substr(u.begin, u.end - u.begin);
}

std::vector<std::string_view> PreparedDocument::KeptTexts(const DocumentInput& in) const {
  std::vector<std::string_view> out;
  out.reserve(kept.size());
  for (int32_t u : kept) out.push_back(UnitText(in, u));
  return out;
}

namespace {

// The units the caller split (the API's pre-split `sentences`): one per entry, each validated.
absl::StatusOr<std::vector<Unit>> PresplitUnits(const std::vector<std::string_view>& presplit,
                                                const PrepareOptions& opt) {
  if (presplit.empty()) return Invalid("sentences is empty: send at least one sentence");
  uint64_t total = 0;
  for (const std::string_view s : presplit) total += s.size();
  if (total > opt.max_document_bytes) {
    return Invalid(absl::StrCat("sentences total ", total, " bytes; the limit is ",
                                opt.max_document_bytes, " (max_document_bytes)"));
  }
  std::vector<Unit> units;
  units.reserve(presplit.size());
  for (size_t i = 0; i < presplit.size(); ++i) {
    const std::string_view s = presplit[i];
    const std::string name = absl::StrCat("sentences[", i, "]");
    if (absl::Status st = ValidateText(s, name); !st.ok()) return st;
    uint64_t b = 0, e = s.size();
    Trim(s, &b, &e);
    if (b == e) return Invalid(absl::StrCat(name, " is empty or only whitespace"));
    Unit u{b, e, UnitKind::kSentence};
    u.input_index = static_cast<int32_t>(i);
    u.paragraph_start = i == 0;
    u.words = CountWords(s.substr(b, e - b));
    u.is_short = u.words < 4;
    units.push_back(u);
  }
  return units;
}

// The units of a whole document (SplitUnits), after validating it.
absl::StatusOr<std::vector<Unit>> DocumentUnits(std::string_view document,
                                                const PrepareOptions& opt) {
  if (absl::Status s = CheckDocumentBytes(document.size(), opt.max_document_bytes); !s.ok()) {
    return s;
  }
  if (document.empty()) return Invalid("document is empty");
  if (absl::Status s = ValidateText(document, "document"); !s.ok()) return s;
  std::vector<Unit> units = SplitUnits(document);
  if (units.empty()) return Invalid("document is empty: it holds only whitespace");
  return units;
}

// Each unit's tokens, computed when first asked for: a document over the token limit is
// tokenized only as far as truncation keeps (or, under kReject, as far as the limit).
class LazyTokens {
 public:
  LazyTokens(const DocumentInput& in, const PreparedDocument& doc, const Tokenizer& tokenizer,
             const PrepareOptions& opt)
      : in_(in),
        doc_(doc),
        tokenizer_(tokenizer),
        opt_(opt),
        pieces(doc.units.size()),
        cost_(doc.units.size(), -1) {}

  // The unit's tokens, marker included.
  absl::StatusOr<int64_t> Cost(int64_t i) {
    if (cost_[i] >= 0) return cost_[i];
    if (++computed_ % 256 == 0 && absl::Now() > opt_.deadline) {
      return absl::DeadlineExceededError(absl::StrCat(
          "the request's deadline passed while tokenizing the document (sentence ", i + 1, " of ",
          doc_.units.size(), "); send a smaller document or allow more time"));
    }
    std::string error;
    if (!tokenizer_.Encode(doc_.UnitText(in_, static_cast<int32_t>(i)), &pieces[i], &error)) {
      return absl::InternalError(absl::StrCat("tokenizer failed on unit ", i, ": ", error));
    }
    if (static_cast<int64_t>(pieces[i].size()) > opt_.max_tokens_per_unit) {
      pieces[i].resize(opt_.max_tokens_per_unit);
    }
    cost_[i] = 1 + static_cast<int64_t>(pieces[i].size());
    return cost_[i];
  }

 private:
  const DocumentInput& in_;
  const PreparedDocument& doc_;
  const Tokenizer& tokenizer_;
  const PrepareOptions& opt_;

 public:
  std::vector<std::vector<int32_t>> pieces;  // per unit, once computed

 private:
  std::vector<int64_t> cost_;
  int64_t computed_ = 0;
};

#define RPSUM_ASSIGN_COST(var, expr)            \
  absl::StatusOr<int64_t> var##_or = (expr);    \
  if (!var##_or.ok()) return var##_or.status(); \
  const int64_t var = *var##_or

// Which units the model sees (1) under the token and unit limits: all of them when they fit,
// else the truncation policy's head (and tail); INVALID_ARGUMENT under kReject or when not even
// the first unit fits. Tokenizes the units from the first until the limit is passed, and past
// it only the tail that kHeadAndTail keeps. Sets doc->untruncated_tokens to the tokens counted
// from the first unit on (all of the document's when it fits).
absl::StatusOr<std::vector<char>> ChooseKept(LazyTokens* tokens, const PrepareOptions& opt,
                                             PreparedDocument* doc) {
  const int64_t n = static_cast<int64_t>(doc->units.size());
  int64_t total = 0, counted = 0;
  for (; counted < n && total <= opt.max_input_tokens; ++counted) {
    RPSUM_ASSIGN_COST(cost, tokens->Cost(counted));
    total += cost;
  }
  doc->untruncated_tokens = total;
  const bool over_tokens = total > opt.max_input_tokens;
  const bool over_units = n > opt.max_units;
  if (!over_tokens && !over_units) return std::vector<char>(n, 1);
  if (opt.truncation == TruncationPolicy::kReject) {
    if (over_tokens) {
      return Invalid(absl::StrCat("input is over ", opt.max_input_tokens,
                                  " tokens after preparation by its sentence ", counted, " of ", n,
                                  "; the limit is ", opt.max_input_tokens,
                                  " (max_input_tokens): send less, or allow truncation"));
    }
    return Invalid(absl::StrCat("input has ", n, " sentences; the limit is ", opt.max_units,
                                " (max_sentences): send less, or allow truncation"));
  }
  std::vector<char> keep(n, 0);
  const bool tail = opt.truncation == TruncationPolicy::kHeadAndTail;
  const int64_t head_tokens = tail ? opt.max_input_tokens * 2 / 3 : opt.max_input_tokens;
  const int64_t head_units = tail ? opt.max_units * 2 / 3 : opt.max_units;
  int64_t used = 0, count = 0, i = 0;
  for (; i < n && count < head_units; ++i) {
    RPSUM_ASSIGN_COST(cost, tokens->Cost(i));
    if (used + cost > head_tokens) break;
    keep[i] = 1;
    used += cost;
    ++count;
  }
  if (tail) {
    for (int64_t j = n - 1; j >= i && count < opt.max_units; --j) {
      RPSUM_ASSIGN_COST(cost, tokens->Cost(j));
      if (used + cost > opt.max_input_tokens) break;
      keep[j] = 1;
      used += cost;
      ++count;
    }
  }
  if (count == 0) {
    return Invalid(absl::StrCat("the first sentence alone exceeds max_input_tokens (",
                                opt.max_input_tokens, ")"));
  }
  return keep;
}

#undef RPSUM_ASSIGN_COST

}  // namespace

int64_t HeldBytes(const PreparedDocument& doc) {
  const auto bytes = [](const auto& v) {
    return static_cast<int64_t>(v.capacity() * sizeof(v[0]));
  };
  return bytes(doc.units) + bytes(doc.kept) + bytes(doc.tokens) + bytes(doc.unit_pos) +
         bytes(doc.features);
}

absl::StatusOr<PreparedDocument> Prepare(const DocumentInput& in, const Tokenizer& tokenizer,
                                         const PrepareOptions& opt) {
  if (in.title.size() > 1024) {
    return Invalid(absl::StrCat("title is ", in.title.size(), " bytes; the limit is 1024"));
  }
  if (absl::Status s = ValidateText(in.title, "title"); !s.ok()) return s;
  PreparedDocument out;
  {
    auto units = in.presplit ? PresplitUnits(in.units, opt) : DocumentUnits(in.document, opt);
    if (!units.ok()) return units.status();
    out.units = *std::move(units);
  }

  // A unit costs its marker plus at most max_tokens_per_unit pieces; only the units truncation
  // could keep are tokenized.
  const int64_t n = static_cast<int64_t>(out.units.size());
  for (const Unit& u : out.units) out.total_words += u.words;
  LazyTokens tokens(in, out, tokenizer, opt);
  auto keep = ChooseKept(&tokens, opt, &out);
  if (!keep.ok()) return keep.status();
  out.truncated = std::count(keep->begin(), keep->end(), 1) < n;

  AddModelInput(in, tokenizer, tokens.pieces, *keep, opt.columns, &out);
  return out;
}

}  // namespace rpsum::model
