// Internal to model/: what each writing system needs from word counting, sentence units and the
// word-based features (docs/design.md, "Formats and other scripts", the table of scripts).
#ifndef RPSUM_MODEL_INTERNAL_SCRIPTS_H_
#define RPSUM_MODEL_INTERNAL_SCRIPTS_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace rpsum::model::internal {

// The code point at s[i] and its length in bytes (*len); a byte that does not start a valid
// sequence is returned as itself, length 1.
uint32_t CodePointAt(std::string_view s, size_t i, size_t* len);

// The last code point of `s` (0 for an empty string).
uint32_t LastCodePoint(std::string_view s);

// Han ideographs, hiragana and katakana: written without spaces between words, a character is
// the unit a reader counts. Hangul is written with spaces and counts by them.
bool IsCjkWordChar(uint32_t cp);

// CJK symbols and punctuation ("、。「」") and the full-width ASCII punctuation: they separate
// words and are none.
bool IsCjkPunctuation(uint32_t cp);

// Thai, Lao, Khmer and Myanmar letters, vowel signs and tone marks: written without spaces
// between words; ICU's dictionaries find the words.
bool IsDictionaryScript(uint32_t cp);

// Thai and Lao, where a space ends a sentence or a clause (neither has a full stop in use).
bool SpaceEndsUnit(uint32_t cp);

// A Unicode punctuation character (general category P*): a line ending in one is no heading.
bool IsPunctuation(uint32_t cp);

// A letter, digit or combining mark of any script (a word's character).
bool IsWordChar(uint32_t cp);

// The words of a run of dictionary-script characters (IsDictionaryScript), as ICU's word
// break iterator finds them; appended to *out when it is not null. Returns how many.
int32_t DictionaryWords(std::string_view run, std::vector<std::string>* out);

}  // namespace rpsum::model::internal

#endif  // RPSUM_MODEL_INTERNAL_SCRIPTS_H_
