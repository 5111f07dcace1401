// Document preparation (docs/design.md, section 2, step 3): validation, sentence units with byte
// offsets, tokens and the model input of one document. Torch-free: the server's preparation
// pool and the training and evaluation programs share it.
#ifndef RPSUM_MODEL_DOCUMENT_H_
#define RPSUM_MODEL_DOCUMENT_H_

#include <array>
#include <bitset>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "model/model_config.h"
#include "model/tokenizer.h"

namespace rpsum::model {

enum class UnitKind { kSentence, kHeading, kListItem, kTableRow };

// One unit of a document: a sentence, or a heading, list item or table row line.
struct Unit {
  uint64_t begin = 0;  // byte range [begin, end) in the input (trimmed of whitespace)
  uint64_t end = 0;
  UnitKind kind = UnitKind::kSentence;
  bool is_short = false;         // fewer than 4 words: kept, but flagged
  bool paragraph_start = false;  // first unit of its paragraph (or line block)
  int32_t input_index = -1;      // for pre-split input: which entry it came from
  int32_t words = 0;             // CountWords
};

// Words: whitespace-separated (space, tab, CR, LF, VT, FF), the corpus README's count, except
// that each Han ideograph or kana counts as one word-equivalent (Chinese and Japanese are
// written without spaces), CJK punctuation separates words, and a run of Thai, Lao, Khmer or
// Burmese (written without spaces between words) counts the words ICU's dictionary finds in it.
// Every budget and feature counts words this way.
int32_t CountWords(std::string_view text);

// rouge-score's tokenizer without stemming: lowercase runs of [a-z0-9], every other byte
// (non-ASCII included) separates. ROUGE's words before stemming.
std::vector<std::string> AsciiWords(std::string_view text);

// The words the word-based features and trigram blocking read, in every script: runs of
// letters, digits and combining marks, lowercased; Chinese, Japanese, Thai, Lao, Khmer and
// Burmese as ICU's dictionaries cut them. The same as AsciiWords on ASCII text.
std::vector<std::string> Words(std::string_view text);

// A content word (centrality's and the document cosine's): 4 characters or more.
bool IsContentWord(std::string_view word);

// Whether a line break between text that ends in `before` and text that starts with `after`
// reads as nothing rather than a space: both sides are Chinese or Japanese (ideographs, kana,
// CJK and full-width punctuation), written without spaces, so a wrapped line joins without one
// (as CSS joins segment breaks between such characters). Thai and the other scripts without
// spaces between words keep the space: theirs ends a sentence.
bool JoinsWithoutSpace(std::string_view before, std::string_view after);

// Returns the byte offset of the first byte that is not part of valid UTF-8 (overlong forms,
// surrogates and code points above U+10FFFF are invalid), or -1 if `text` is valid.
int64_t FirstInvalidUtf8(std::string_view text);

// InvalidArgument unless `text` is UTF-8 without NUL bytes; the message names the field
// (`name`) and the offset of the first bad byte.
absl::Status ValidateText(std::string_view text, absl::string_view name);

// InvalidArgument naming the limit and the size when a document of `bytes` is over it.
absl::Status CheckDocumentBytes(uint64_t bytes, uint64_t max_document_bytes);

// Splits a valid UTF-8 document into units: each line is its own block (a unit never crosses
// a line break); headings (a leading '#', or a short line without final punctuation), table
// rows (leading '|') are one unit each; other lines, list items included, are split into
// sentences by ICU's sentence rules with English abbreviation suppression ("Dr.", "e.g.",
// "U.S."), less the breaks that cut technical text ("The regex! compiler", "x != 0", "(eg. IP,
// onion)": docs/design.md section 2, step 3), and in Thai and Lao at a space between two of
// their letters (their sentences end so). Blank lines separate paragraphs. Units are trimmed of
// surrounding whitespace; empty ones are dropped. Thread-safe.
std::vector<Unit> SplitUnits(std::string_view document);

// Whether SplitUnits makes this trimmed, non-empty line one heading unit: it starts with '#',
// or it has at most 12 words, does not end with punctuation (ASCII's, or any Unicode
// punctuation: a final letter of any script is none), is neither a list item nor a table row,
// and holds no Thai or Lao sentence space.
bool IsHeadingLine(std::string_view line);

enum class TruncationPolicy { kReject, kHead, kHeadAndTail };

struct PrepareOptions {
  // Limits (the server's flags). Exceeding max_document_bytes is always an error; exceeding
  // max_input_tokens or max_units follows `truncation`.
  uint64_t max_document_bytes = 5u << 20;
  int64_t max_input_tokens = 32768;
  int64_t max_units = 4096;
  // Tokens kept per unit after its marker (the model config's value).
  int64_t max_tokens_per_unit = 64;
  TruncationPolicy truncation = TruncationPolicy::kReject;
  // The feature columns Prepare computes (model/model_config.h FeatureColumnsRead for a served
  // checkpoint); the others stay 0. All of them by default: training and evaluation.
  std::bitset<kNumFeatures> columns = std::bitset<kNumFeatures>().set();
  // The request's deadline, checked while tokenizing: DeadlineExceeded past it.
  absl::Time deadline = absl::InfiniteFuture();
};

// What the client sent: a document, or its units already split (the API's pre-split
// `sentences`; exactly one of the two), and a title.
struct DocumentInput {
  std::string_view document;
  std::vector<std::string_view> units;
  bool presplit = false;
  std::string_view title;
};

// The per-unit features (kNumFeatures of them) are listed in model/model_config.h.

struct PreparedDocument {
  std::vector<Unit> units;        // every unit of the input
  std::vector<int32_t> kept;      // indices into `units` the model sees, ascending
  std::vector<int32_t> tokens;    // model input: per kept unit, a marker then its pieces
  std::vector<int32_t> unit_pos;  // per kept unit, the position of its marker in `tokens`
  std::vector<float> features;    // kept.size() x kNumFeatures, row-major
  // Tokens counted from the first unit on before truncation was decided: all of them when the
  // document fits the limits, else at least max_input_tokens + 1 (the rest is never tokenized).
  int64_t untruncated_tokens = 0;
  bool truncated = false;
  int64_t total_words = 0;

  int64_t num_tokens() const { return static_cast<int64_t>(tokens.size()); }
  // The unit's text, given the input it was prepared from.
  std::string_view UnitText(const DocumentInput& in, int32_t unit) const;
  // The kept units' texts, in order (what the selection reads).
  std::vector<std::string_view> KeptTexts(const DocumentInput& in) const;
};

// The bytes `doc` holds (its vectors' capacities and the units' own), what a queued request's
// preparation keeps in memory.
int64_t HeldBytes(const PreparedDocument& doc);

// Validates and prepares one input. Errors (InvalidArgument, with the limit and the actual
// value, or the byte offset, in the message): empty or whitespace-only document, invalid
// UTF-8, NUL bytes, over max_document_bytes, an empty pre-split sentence, too many tokens or
// sentences under TruncationPolicy::kReject. Thread-safe (the tokenizer is).
absl::StatusOr<PreparedDocument> Prepare(const DocumentInput& input, const Tokenizer& tokenizer,
                                         const PrepareOptions& options);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_DOCUMENT_H_
