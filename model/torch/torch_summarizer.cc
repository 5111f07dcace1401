// The LibTorch implementation of the model API.
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <omp.h>
#include <torch/cuda.h>
#include <torch/version.h>

#include <filesystem>
#include <utility>

#include "absl/strings/str_cat.h"
#include "model/summarizer.h"
#include "model/torch/checkpoint.h"
#include "model/torch/inference.h"

namespace rpsum::model {

using net::Checkpoint;
using net::LoadCheckpoint;
using net::ScoreDocuments;

namespace {

class TorchSummarizer : public Summarizer {
 public:
  TorchSummarizer(Checkpoint ck, std::unique_ptr<Tokenizer> tokenizer, ForwardStretches stretches,
                  int threads)
      : ck_(std::move(ck)),
        tokenizer_(std::move(tokenizer)),
        stretches_(stretches),
        threads_(threads) {
    desc_.config = ck_.config;
    desc_.weights_sha256 = ck_.weights_sha256;
    desc_.stretches = stretches;
    desc_.device = ck_.scorer->parameters().front().device().str();
    desc_.torch_version =
        absl::StrCat(TORCH_VERSION_MAJOR, ".", TORCH_VERSION_MINOR, ".", TORCH_VERSION_PATCH);
  }

  absl::StatusOr<std::vector<DocumentScores>> Score(
      const std::vector<const PreparedDocument*>& docs, int64_t k,
      const ScoreControl& control) override {
    SetThreads(control);
    const auto between = [&] {
      SetThreads(control);
      return control.stop && control.stop();
    };
    // The states only when the selection reads them (scoring.rerank's net_* features).
    return ScoreDocuments(ck_, docs, k, tokenizer_->pad_id(),
                          NeedsUnitStates(ck_.config.scoring.rerank), stretches_, between);
  }
  const ModelDescription& description() const override { return desc_; }

  // This worker's intra-op threads, as `control` asks, else the model's own. OpenMP keeps the
  // count per calling thread, and LibTorch sets it on a thread's first parallel call from its
  // process-wide number (the last model loaded's), so it is set after that, every time (it
  // costs nothing).
  void SetThreads(const ScoreControl& control) const {
    const int asked = control.threads ? control.threads() : 0;
    const int n = asked > 0 ? asked : threads_;
    if (n <= 0) return;
    (void)at::get_num_threads();
    omp_set_num_threads(n);
  }
  const Tokenizer& tokenizer() const override { return *tokenizer_; }

 private:
  Checkpoint ck_;
  std::unique_ptr<Tokenizer> tokenizer_;
  ForwardStretches stretches_;
  int threads_;
  ModelDescription desc_;
};

}  // namespace

int CudaDeviceCount() {
  return torch::cuda::is_available() ? static_cast<int>(torch::cuda::device_count()) : 0;
}

absl::StatusOr<std::unique_ptr<Summarizer>> LoadTorchSummarizer(const std::string& dir,
                                                                const std::string& device,
                                                                int threads,
                                                                ForwardStretches stretches) {
  if (threads > 0) at::set_num_threads(threads);
  absl::StatusOr<Checkpoint> ck = LoadCheckpoint(dir, device);
  if (!ck.ok()) return ck.status();
  std::string error;
  auto tok =
      Tokenizer::Load((std::filesystem::path(dir) / ck->config.tokenizer.file).string(), &error);
  if (tok == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("tokenizer of ", dir, ": ", error));
  }
  if (tok->vocab_size() != ck->config.architecture.vocab_size) {
    return absl::InvalidArgumentError(absl::StrCat(dir, ": the tokenizer has ", tok->vocab_size(),
                                                   " pieces, the model's embedding ",
                                                   ck->config.architecture.vocab_size));
  }
  return std::unique_ptr<Summarizer>(
      new TorchSummarizer(*std::move(ck), std::move(tok), stretches, threads));
}

}  // namespace rpsum::model
