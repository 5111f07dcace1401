// A tokenizer with one id per byte class, for fuzz targets that must not depend on a
// SentencePiece model (or cannot load its plugin next to protobuf, as in the convert target).
#ifndef RPSUM_TESTING_BYTE_TOKENIZER_H_
#define RPSUM_TESTING_BYTE_TOKENIZER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/tokenizer.h"

namespace rpsum::test {

class ByteTokenizer : public model::Tokenizer {
 public:
  bool Encode(std::string_view text, std::vector<int32_t>* ids, std::string*) const override {
    for (unsigned char c : text) ids->push_back(4 + c % 200);
    return true;
  }
  int32_t vocab_size() const override { return 204; }
  int32_t marker_id() const override { return 1; }
  int32_t pad_id() const override { return 3; }
};

}  // namespace rpsum::test

#endif  // RPSUM_TESTING_BYTE_TOKENIZER_H_
