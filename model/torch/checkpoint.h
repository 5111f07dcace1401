// A checkpoint is one directory:
//   config.json           ModelConfig (format "rpsum-checkpoint", format_version 1)
//   weights.safetensors   every parameter of ExtractiveScorer by its module path, float32
//   tokenizer.model       the SentencePiece model (config.tokenizer.file)
// Python reads it with train/reference/safetensors_np.py (numpy only).
#ifndef RPSUM_MODEL_TORCH_CHECKPOINT_H_
#define RPSUM_MODEL_TORCH_CHECKPOINT_H_

#include <string>

#include "absl/status/statusor.h"
#include "model/model_config.h"
#include "model/torch/encoder.h"

namespace rpsum::net {

struct Checkpoint {
  model::ModelConfig config;
  ExtractiveScorer scorer{nullptr};  // in eval mode, on the requested device
  std::string dir;
  std::string weights_sha256;  // hex digest of the weights file
};

// Loads and validates a checkpoint. A missing directory or file is NotFound; a config it does
// not understand, a weights file that is corrupt, misses a parameter, has an extra one or a
// wrong shape is InvalidArgument with the file and the parameter named. Never throws.
absl::StatusOr<Checkpoint> LoadCheckpoint(const std::string& dir, const std::string& device);

// Writes config.json and the weights into `dir` (created if needed). The tokenizer model is
// the caller's to copy. Never throws.
absl::Status SaveCheckpoint(const std::string& dir, const model::ModelConfig& config,
                            ExtractiveScorer& scorer);

// Copies `weights` (by parameter name) into `scorer`: every parameter must be present with its
// exact shape, and no other tensor may be. Never throws.
absl::Status AssignWeights(ExtractiveScorer& scorer,
                           const std::map<std::string, at::Tensor>& weights,
                           const std::string& source);

// Hex SHA-256 of a file's contents.
absl::StatusOr<std::string> Sha256File(const std::string& path);

// Parses "auto", "cpu", "cuda", "cuda:N". "auto" is cuda:0 when LibTorch has CUDA and a device,
// else cpu. A CUDA device without CUDA support is FailedPrecondition.
absl::StatusOr<at::Device> ParseDevice(const std::string& spec);

}  // namespace rpsum::net

#endif  // RPSUM_MODEL_TORCH_CHECKPOINT_H_
