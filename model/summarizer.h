// The torch-free model API (docs/design.md, section 1): what the scheduler and the service see of
// the model. Implemented by the LibTorch model (LoadTorchSummarizer,
// model/torch/torch_summarizer.cc) and by fakes in tests, so the scheduler and the service build
// and test without LibTorch.
#ifndef RPSUM_MODEL_SUMMARIZER_H_
#define RPSUM_MODEL_SUMMARIZER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/document.h"
#include "model/model_config.h"
#include "model/tokenizer.h"

namespace rpsum::model {

// One document's scores and how the model actually ran it (what a response reports).
struct DocumentScores {
  std::vector<float> scores;  // a probability per kept unit
  int64_t clip_distance = 0;  // the k the token layers used
  int64_t local_window = 0;   // tokens each side of block-local token attention; 0: full
  // When asked for (ScoreDocuments' with_states): the state the network's head reads for each
  // kept unit, row-major [kept units x state_size] (docs/design.md, section 2, "Select").
  std::vector<float> unit_states;
  int64_t state_size = 0;
};

// A long document's forward in stretches (docs/design.md, section 3, **Long documents**): the
// token layers run over `tokens` output positions at a time, the unit layers over `units`, each
// stretch with the halo its block-local layers reach (layers x window each side), so every
// output equals the whole-document forward and memory stops growing with length. 0: the whole
// input at once. Full attention (no window) always runs whole.
struct ForwardStretches {
  int64_t tokens = 0;
  int64_t units = 0;
};
// The service's stretches; docs/design.md, section 3, **Long documents**, has the measurements
// that chose them.
inline constexpr ForwardStretches kServedStretches{32768, 8192};

// Identity and shape of a loaded model, for GetModelInfo and metrics.
struct ModelDescription {
  ModelConfig config;
  std::string weights_sha256;
  std::string device;          // "cpu", "cuda:0"
  std::string torch_version;   // of the LibTorch build
  ForwardStretches stretches;  // how it runs long documents
};

// How the caller steers a running Score call.
struct ScoreControl {
  // Asked between the stretches of a long document (ForwardStretches): true ends the call with
  // DeadlineExceeded, so a request whose deadline passes does not hold the worker to its end.
  std::function<bool()> stop;
  // Asked before the forward and between stretches: the intra-op threads to use from there on;
  // 0 (or empty): the model's own (LoadTorchSummarizer's `threads`).
  std::function<int()> threads;
};

class Summarizer {
 public:
  virtual ~Summarizer() = default;

  // Scores a batch of prepared documents that share clip distance `k` (1..max_clip_distance).
  // Returns, per document, a probability per kept unit and the k and attention mode used.
  // Batch-invariant: a document's result is the same (within float rounding, 1e-5) alone or
  // with any partners, because the attention plan (full or block-local) is each document's
  // own (docs/design.md, "Batching"). ResourceExhausted means out of memory (the caller may
  // split the batch); Internal is any other model failure; DeadlineExceeded when `control`
  // stopped it. Never throws. Call from one worker thread at a time per Summarizer.
  virtual absl::StatusOr<std::vector<DocumentScores>> Score(
      const std::vector<const PreparedDocument*>& docs, int64_t k, const ScoreControl& control) = 0;

  virtual const ModelDescription& description() const = 0;
  // The tokenizer that ships with the model. Thread-safe.
  virtual const Tokenizer& tokenizer() const = 0;
};

// Loads a checkpoint directory on `device` ("auto", "cpu", "cuda", "cuda:N") with `threads`
// intra-op threads for the thread that calls Score (0: leave LibTorch's default), running long
// documents in `stretches`.
// Errors as LoadCheckpoint.
absl::StatusOr<std::unique_ptr<Summarizer>> LoadTorchSummarizer(
    const std::string& dir, const std::string& device, int threads,
    ForwardStretches stretches = kServedStretches);

// GPUs LibTorch can use in this process (0 for a CPU-only build or a machine without one).
int CudaDeviceCount();

// The device of server worker `worker` (0-based) for the server's --device `spec`: "cuda", and
// "auto" on a machine with GPUs, place the workers round-robin on the `gpus` GPUs
// ("cuda:<worker % gpus>"), so each GPU holds its own model copies; "auto" without GPUs is
// "cpu"; "cpu" and an explicit "cuda:N" are used as given by every worker. Torch-free.
std::string WorkerDevice(const std::string& spec, int worker, int gpus);

// Test-only fault injection in the real model path: while set, `hook` runs inside the model's
// exception boundary before every forward pass, with the batch size, on the worker thread. It
// may throw what LibTorch throws (see ThrowModelErrorForTesting), which the model turns into a
// status like any real failure: a message containing "out of memory" becomes
// ResourceExhausted (the scheduler then splits the batch), anything else Internal. Pass an
// empty function to clear. Thread-safe.
void SetModelFaultHookForTesting(std::function<void(size_t batch_size)> hook);
// Throws the exception LibTorch throws on failure (c10::Error) with `message`.
[[noreturn]] void ThrowModelErrorForTesting(const std::string& message);

// The attention work of one document of `tokens` tokens in cost units (token-equivalents):
// tokens plus the attention-score elements divided by 256 (tokens x span, where the span is
// all tokens under full attention and 3 windows under block-local attention, the window the
// length's: AttentionConfig::TokenWindow). Torch-free.
int64_t AttentionCost(const ModelConfig& config, int64_t tokens);

// The model's working memory for one document of `tokens` tokens and `units` kept units, in
// bytes, on the CPU: the widest stage of a layer (the feed-forward's: four hidden-wide and two
// FFN-wide floats per position) over the positions one pass holds (the whole document, or one
// stretch with its halo), plus the unit layers' inputs and, `with_states`, the unit states the
// selection reads. bench/long-documents.py compares it with measured peaks. Torch-free.
int64_t ForwardBytes(const ModelConfig& config, int64_t tokens, int64_t units,
                     ForwardStretches stretches, bool with_states);

// A request's model input: its document prepared as the loaded model reads it, and the clip
// distance the model runs it with.
struct ModelInput {
  PreparedDocument doc;
  int64_t k = 0;
};
enum class Preparation {
  kForScoring,  // every feature column the model reads (FeatureColumnsRead)
  kTokensOnly,  // tokens and units, no feature column: what Estimate and admission read
};
// The one preparation of a request (docs/design.md, section 2): Prepare with `limits` (its
// columns and max_tokens_per_unit are the model's own, by `what`), then ClipDistanceFor with
// `clip_override`. Errors as Prepare. Thread-safe.
absl::StatusOr<ModelInput> PrepareInput(const Summarizer& model, const DocumentInput& input,
                                        PrepareOptions limits, Preparation what,
                                        int64_t clip_override = 0);

// The clip distance k for a sequence of `tokens` (override 0: the policy, else the override),
// clamped to the model's tables. Whether and how widely its token layers attend block-locally:
// config.attention.TokenWindow(tokens).
int64_t ClipDistanceFor(const ModelConfig& config, int64_t tokens, int64_t override_k = 0);
// Whether the unit layers attend block-locally for a document of `units` kept units.
bool IsLocalUnitAttention(const ModelConfig& config, int64_t units);

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_SUMMARIZER_H_
