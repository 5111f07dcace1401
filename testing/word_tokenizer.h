// A deterministic test tokenizer: one id per whitespace-separated word (an FNV hash mod the
// vocabulary, ids >= 4; marker 1, pad 3). For tests of code that needs a Tokenizer but not
// SentencePiece.
#ifndef RPSUM_TESTING_WORD_TOKENIZER_H_
#define RPSUM_TESTING_WORD_TOKENIZER_H_

#include "model/tokenizer.h"

namespace rpsum::test {

class WordTokenizer : public model::Tokenizer {
 public:
  explicit WordTokenizer(int32_t vocab = 1000) : vocab_(vocab) {}
  bool Encode(std::string_view text, std::vector<int32_t>* ids, std::string*) const override {
    size_t i = 0;
    while (i < text.size()) {
      while (i < text.size() && text[i] == ' ') ++i;
      size_t j = i;
      uint32_t h = 2166136261u;
      while (j < text.size() && text[j] != ' ') {
        h = (h ^ static_cast<unsigned char>(text[j++])) * 16777619u;
      }
      if (j > i) ids->push_back(4 + static_cast<int32_t>(h % static_cast<uint32_t>(vocab_ - 4)));
      i = j;
    }
    return true;
  }
  int32_t vocab_size() const override { return vocab_; }
  int32_t marker_id() const override { return 1; }
  int32_t pad_id() const override { return 3; }

 private:
  int32_t vocab_;
};

}  // namespace rpsum::test

#endif  // RPSUM_TESTING_WORD_TOKENIZER_H_
