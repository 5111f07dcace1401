// What each writing system needs (model/internal/scripts.h), and the words the word-based
// features read (Words in model/document.h).
#include "model/internal/scripts.h"

#include <unicode/brkiter.h>
#include <unicode/locid.h>
#include <unicode/uchar.h>
#include <unicode/unistr.h>
#include <unicode/utf8.h>

#include <algorithm>
#include <memory>

#include "model/document.h"

namespace rpsum::model {
namespace internal {
namespace {

std::unique_ptr<icu::BreakIterator> MakeWordIterator() {
  UErrorCode status = U_ZERO_ERROR;
  // ICU picks each run's dictionary by script (Thai, Lao, Khmer, Burmese), whatever the locale.
  std::unique_ptr<icu::BreakIterator> it(
      icu::BreakIterator::createWordInstance(icu::Locale("th"), status));
  if (U_FAILURE(status)) it.reset();
  return it;
}

void AppendUtf8(uint32_t cp, std::string* out) {
  char buf[4];
  int32_t n = 0;
  U8_APPEND_UNSAFE(buf, n, cp);
  out->append(buf, static_cast<size_t>(n));
}

}  // namespace

uint32_t CodePointAt(std::string_view s, size_t i, size_t* len) {
  const auto c = static_cast<unsigned char>(s[i]);
  size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
  if (n == 1 || i + n > s.size()) {
    *len = 1;
    return c;
  }
  uint32_t cp = c & (0x7F >> n);
  for (size_t k = 1; k < n; ++k) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
  *len = n;
  return cp;
}

uint32_t LastCodePoint(std::string_view s) {
  if (s.empty()) return 0;
  size_t i = s.size() - 1;
  while (i > 0 && s.size() - i < 4 && (static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) --i;
  size_t len = 1;
  return CodePointAt(s, i, &len);
}

bool IsCjkWordChar(uint32_t cp) {
  return (cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x31F0 && cp <= 0x31FF) ||
         (cp >= 0x3400 && cp <= 0x4DBF) || (cp >= 0x4E00 && cp <= 0x9FFF) ||
         (cp >= 0xF900 && cp <= 0xFAFF) || (cp >= 0xFF66 && cp <= 0xFF9F) ||
         (cp >= 0x20000 && cp <= 0x2FFFF);
}

bool IsCjkPunctuation(uint32_t cp) {
  return (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFF01 && cp <= 0xFF0F) ||
         (cp >= 0xFF1A && cp <= 0xFF20) || (cp >= 0xFF3B && cp <= 0xFF40) ||
         (cp >= 0xFF5B && cp <= 0xFF65);
}

bool IsPunctuation(uint32_t cp) { return u_ispunct(static_cast<UChar32>(cp)) != 0; }

bool IsDictionaryScript(uint32_t cp) {
  const bool block = (cp >= 0x0E01 && cp <= 0x0EFF) ||  // Thai, Lao
                     (cp >= 0x1000 && cp <= 0x109F) ||  // Myanmar
                     (cp >= 0x1780 && cp <= 0x17FF);    // Khmer
  return block && !IsPunctuation(cp) && u_isspace(static_cast<UChar32>(cp)) == 0;
}

bool SpaceEndsUnit(uint32_t cp) { return cp >= 0x0E01 && cp <= 0x0EFF && IsDictionaryScript(cp); }

bool IsWordChar(uint32_t cp) {
  const auto c = static_cast<UChar32>(cp);
  return u_isalnum(c) != 0 || (U_GET_GC_MASK(c) & U_GC_M_MASK) != 0;
}

int32_t DictionaryWords(std::string_view run, std::vector<std::string>* out) {
  thread_local std::unique_ptr<icu::BreakIterator> it = MakeWordIterator();
  if (it == nullptr) {  // no ICU data: the run is one word, as before ICU's dictionaries
    if (out != nullptr) out->emplace_back(run);
    return 1;
  }
  const icu::UnicodeString text =
      icu::UnicodeString::fromUTF8(icu::StringPiece(run.data(), static_cast<int32_t>(run.size())));
  it->setText(text);
  int32_t n = 0;
  int32_t start = it->first();
  for (int32_t end = it->next(); end != icu::BreakIterator::DONE; start = end, end = it->next()) {
    if (it->getRuleStatus() == UBRK_WORD_NONE) continue;  // spaces, punctuation
    ++n;
    if (out != nullptr) {
      std::string word;
      text.tempSubStringBetween(start, end).toUTF8String(word);
      out->push_back(std::move(word));
    }
  }
  it->setText(icu::UnicodeString());
  return n;
}

}  // namespace internal

std::vector<std::string> Words(std::string_view text) {
  if (std::all_of(text.begin(), text.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x80; })) {
    return AsciiWords(text);
  }
  std::vector<std::string> out;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) out.push_back(std::move(cur));
    cur.clear();
  };
  for (size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      if (std::isalnum(c) != 0) {
        cur.push_back(static_cast<char>(std::tolower(c)));
      } else {
        flush();
      }
      ++i;
      continue;
    }
    size_t len = 1;
    const uint32_t cp = internal::CodePointAt(text, i, &len);
    const bool cjk = internal::IsCjkWordChar(cp);
    if (cjk || internal::IsDictionaryScript(cp)) {
      // Chinese, Japanese, Thai, Lao, Khmer, Burmese: the run's words as ICU's dictionaries
      // cut them (a trigram of characters would join unrelated sentences).
      flush();
      size_t j = i + len;
      while (j < text.size()) {
        size_t l = 1;
        const uint32_t next = internal::CodePointAt(text, j, &l);
        if (cjk ? !internal::IsCjkWordChar(next) : !internal::IsDictionaryScript(next)) break;
        j += l;
      }
      internal::DictionaryWords(text.substr(i, j - i), &out);
      len = j - i;
    } else if (internal::IsWordChar(cp)) {
      internal::AppendUtf8(static_cast<uint32_t>(u_tolower(static_cast<UChar32>(cp))), &cur);
    } else {
      flush();
    }
    i += len;
  }
  flush();
  return out;
}

bool JoinsWithoutSpace(std::string_view before, std::string_view after) {
  if (before.empty() || after.empty()) return false;
  auto wide = [](uint32_t cp) {
    return internal::IsCjkWordChar(cp) || internal::IsCjkPunctuation(cp);
  };
  size_t len = 1;
  return wide(internal::LastCodePoint(before)) && wide(internal::CodePointAt(after, 0, &len));
}

bool IsContentWord(std::string_view word) {
  size_t code_points = 0;
  for (char c : word) code_points += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return code_points >= 4;
}

}  // namespace rpsum::model
