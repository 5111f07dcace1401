// The safetensors file format (https://huggingface.co/docs/safetensors): an 8-byte
// little-endian header size N, N bytes of JSON {name: {"dtype", "shape", "data_offsets":
// [begin, end]}, "__metadata__": {str: str}}, then the raw little-endian tensor bytes.
// Chosen for checkpoints because it is documented, simple and readable from Python with numpy
// alone (train/reference/safetensors_np.py). Only F32, F64, I64 and BOOL are used here.
#ifndef RPSUM_MODEL_TORCH_SAFETENSORS_H_
#define RPSUM_MODEL_TORCH_SAFETENSORS_H_

#include <ATen/ATen.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"

namespace rpsum::net {

using NamedTensors = std::vector<std::pair<std::string, at::Tensor>>;

// Writes `tensors` (any device; copied to CPU, made contiguous) to `path` atomically (a
// temporary file renamed into place). Thread-compatible.
absl::Status WriteSafetensors(const std::string& path, const NamedTensors& tensors,
                              const std::map<std::string, std::string>& metadata = {});

// Reads a whole file. A truncated file, a malformed header, overlapping or out-of-range
// offsets, or an unsupported dtype are InvalidArgument naming the problem; a missing file is
// NotFound. Tensors are on CPU. Thread-safe.
absl::StatusOr<std::map<std::string, at::Tensor>> ReadSafetensors(const std::string& path);

}  // namespace rpsum::net

#endif  // RPSUM_MODEL_TORCH_SAFETENSORS_H_
