// The only file that includes sentencepiece. No Abseil here (see tokenizer.h).
#include "model/tokenizer.h"

#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <utility>

namespace rpsum::model {
namespace {

class SentencePieceTokenizer : public Tokenizer {
 public:
  explicit SentencePieceTokenizer(std::unique_ptr<sentencepiece::SentencePieceProcessor> sp)
      : sp_(std::move(sp)) {}

  bool Encode(std::string_view text, std::vector<int32_t>* ids, std::string* error) const override {
    std::vector<int> out;
    const auto status = sp_->Encode(text, &out);
    if (!status.ok()) {
      *error = status.ToString();
      return false;
    }
    ids->insert(ids->end(), out.begin(), out.end());
    return true;
  }
  int32_t vocab_size() const override { return sp_->GetPieceSize(); }
  int32_t marker_id() const override { return sp_->bos_id(); }
  int32_t pad_id() const override { return sp_->pad_id() >= 0 ? sp_->pad_id() : 0; }

 private:
  std::unique_ptr<sentencepiece::SentencePieceProcessor> sp_;
};

std::unique_ptr<Tokenizer> Check(std::unique_ptr<sentencepiece::SentencePieceProcessor> sp,
                                 const sentencepiece::util::Status& status, std::string* error) {
  if (!status.ok()) {
    *error = status.ToString();
    return nullptr;
  }
  if (sp->bos_id() < 0) {
    *error = "the SentencePiece model has no bos piece (needed as the sentence marker)";
    return nullptr;
  }
  return std::make_unique<SentencePieceTokenizer>(std::move(sp));
}

}  // namespace

std::unique_ptr<Tokenizer> Tokenizer::Load(const std::string& path, std::string* error) {
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = sp->Load(path);
  return Check(std::move(sp), status, error);
}

std::unique_ptr<Tokenizer> Tokenizer::FromBytes(const std::string& bytes, std::string* error) {
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = sp->LoadFromSerializedProto(bytes);
  return Check(std::move(sp), status, error);
}

bool TrainTokenizer(const TokenizerTrainOptions& o, std::string* error) {
  const std::string args = "--input=" + o.input_file + " --model_prefix=" + o.model_prefix +
                           " --vocab_size=" + std::to_string(o.vocab_size) +
                           " --model_type=unigram --character_coverage=0.9995 --byte_fallback=true"
                           " --split_digits=true --unk_id=0 --bos_id=1 --eos_id=2 --pad_id=3"
                           " --shuffle_input_sentence=true --input_sentence_size=" +
                           std::to_string(o.input_sentence_size) +
                           " --num_threads=" + std::to_string(o.num_threads) + " --minloglevel=1";
  const auto status = sentencepiece::SentencePieceTrainer::Train(args);
  if (!status.ok()) {
    *error = status.ToString();
    return false;
  }
  return true;
}

}  // namespace rpsum::model
