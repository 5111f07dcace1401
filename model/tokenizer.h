// SentencePiece behind a plain C++ interface. The implementation is the only translation unit
// that includes sentencepiece's headers, and it includes no Abseil: sentencepiece 0.1.97
// declares `namespace absl { using std::string_view; }`, which clashes with real Abseil.
// This header uses only the standard library for the same reason.
#ifndef RPSUM_MODEL_TOKENIZER_H_
#define RPSUM_MODEL_TOKENIZER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rpsum::model {

class Tokenizer {
 public:
  // Loads a SentencePiece model file. Returns null and sets *error on failure.
  static std::unique_ptr<Tokenizer> Load(const std::string& path, std::string* error);
  // Loads from the serialized model bytes.
  static std::unique_ptr<Tokenizer> FromBytes(const std::string& bytes, std::string* error);
  virtual ~Tokenizer() = default;

  // Appends the piece ids of `text` (valid UTF-8) to `ids`. Returns false and sets *error on
  // failure. Thread-safe.
  virtual bool Encode(std::string_view text, std::vector<int32_t>* ids,
                      std::string* error) const = 0;
  virtual int32_t vocab_size() const = 0;
  // The unit start marker (SentencePiece's bos id) and the padding id.
  virtual int32_t marker_id() const = 0;
  virtual int32_t pad_id() const = 0;
};

struct TokenizerTrainOptions {
  std::string input_file;    // one sentence or line per line
  std::string model_prefix;  // writes <prefix>.model and <prefix>.vocab
  int32_t vocab_size = 8000;
  int64_t input_sentence_size = 2000000;  // lines sampled for training
  int32_t num_threads = 2;
};

// Trains a unigram SentencePiece model with ids unk=0, bos(marker)=1, eos=2, pad=3, byte
// fallback for unseen characters, digits split. Returns false and sets *error on failure.
bool TrainTokenizer(const TokenizerTrainOptions& options, std::string* error);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_TOKENIZER_H_
