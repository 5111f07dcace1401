// The SentencePiece plugin: the only file that includes sentencepiece, built as its own
// shared module (librpsum_spm.so) that tokenizer.cc loads with dlopen(RTLD_LOCAL |
// RTLD_DEEPBIND). Debian's libsentencepiece exports the protobuf-lite runtime it bundles; in a
// process that also loads libprotobuf (LibTorch, gRPC) the two interpose each other's symbols
// and the process crashes during static initialization. Loaded locally with deep binding, the
// plugin's copy stays private. No Abseil here either (see tokenizer.h).
#include <dlfcn.h>
#include <sentencepiece_processor.h>
#include <sentencepiece_trainer.h>

#include <iostream>
#include <new>
#include <utility>

#include "model/tokenizer.h"

namespace rpsum::model {
namespace {

// Deep binding has one trap: a program that uses std::cout, std::cerr or std::clog holds
// copies of them (copy relocations) that libstdc++ initializes, while code bound deeply (this
// plugin, sentencepiece's logging) sees libstdc++'s own, never-constructed objects. Construct
// those as streams over the program's buffers, so sentencepiece's log lines work.
void AdoptStream(void* main_program, std::ostream* mine, const char* symbol) {
  // Looked up from the main program's handle: RTLD_DEFAULT would search deeply too.
  auto* program = static_cast<std::ostream*>(dlsym(main_program, symbol));
  if (program == nullptr || program == mine) return;
  new (mine) std::ostream(program->rdbuf());
}

__attribute__((constructor)) void AdoptStandardStreams() {
  void* main_program = dlopen(nullptr, RTLD_NOW);
  if (main_program == nullptr) return;
  AdoptStream(main_program, &std::cout, "_ZSt4cout");
  AdoptStream(main_program, &std::cerr, "_ZSt4cerr");
  AdoptStream(main_program, &std::clog, "_ZSt4clog");
}

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

}  // namespace

std::unique_ptr<Tokenizer> Check(std::unique_ptr<sentencepiece::SentencePieceProcessor> sp,
                                 const sentencepiece::util::Status& status, std::string* error) {
  if (!status.ok()) {
    *error = status.ToString();
    return nullptr;
  }
  if (sp->bos_id() < 0) {
    *error = "the SentencePiece model has no bos piece (needed as the unit marker)";
    return nullptr;
  }
  return std::make_unique<SentencePieceTokenizer>(std::move(sp));
}

}  // namespace rpsum::model

// The plugin's entry points (looked up by name with dlsym).
extern "C" rpsum::model::Tokenizer* RpsumSpmLoad(const std::string* path, const std::string* bytes,
                                                 std::string* error) {
  auto sp = std::make_unique<sentencepiece::SentencePieceProcessor>();
  const auto status = path != nullptr ? sp->Load(*path) : sp->LoadFromSerializedProto(*bytes);
  return rpsum::model::Check(std::move(sp), status, error).release();
}

extern "C" bool RpsumSpmTrain(const rpsum::model::TokenizerTrainOptions* options,
                              std::string* error) {
  const rpsum::model::TokenizerTrainOptions& o = *options;
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
