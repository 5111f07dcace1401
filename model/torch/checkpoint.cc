#include "model/torch/checkpoint.h"

#include <openssl/evp.h>
#include <torch/cuda.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "model/torch/safetensors.h"

namespace rpsum::net {

using model::ModelConfig;

namespace fs = std::filesystem;

absl::StatusOr<std::string> Sha256File(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open ", path));
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  EVP_DigestInit_ex(ctx, EVP_sha256(), nullptr);
  char buf[1 << 16];
  while (in) {
    in.read(buf, sizeof(buf));
    EVP_DigestUpdate(ctx, buf, static_cast<size_t>(in.gcount()));
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx, md, &len);
  EVP_MD_CTX_free(ctx);
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(hex[md[i] >> 4]);
    out.push_back(hex[md[i] & 15]);
  }
  return out;
}

absl::StatusOr<at::Device> ParseDevice(const std::string& spec) {
  try {
    if (spec == "auto") {
      return torch::cuda::is_available() ? at::Device(at::kCUDA, 0) : at::Device(at::kCPU);
    }
    at::Device d(spec);
    if (d.is_cuda()) {
      if (!torch::cuda::is_available()) {
        return absl::FailedPreconditionError(absl::StrCat(
            "device '", spec, "' requested but this LibTorch build has no usable CUDA"));
      }
      if (d.has_index() && d.index() >= static_cast<int>(torch::cuda::device_count())) {
        return absl::FailedPreconditionError(absl::StrCat("device '", spec, "' does not exist (",
                                                          torch::cuda::device_count(), " GPUs)"));
      }
    } else if (!d.is_cpu()) {
      return absl::InvalidArgumentError(absl::StrCat("unsupported device '", spec, "'"));
    }
    return d;
  } catch (const std::exception& e) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad device '", spec, "' (want auto, cpu, cuda or cuda:N)"));
  }
}

absl::Status AssignWeights(ExtractiveScorer& scorer,
                           const std::map<std::string, at::Tensor>& weights,
                           const std::string& source) {
  try {
    at::NoGradGuard no_grad;
    std::set<std::string> seen;
    for (auto& item : scorer->named_parameters(/*recurse=*/true)) {
      const std::string& name = item.key();
      auto it = weights.find(name);
      if (it == weights.end()) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": parameter '", name, "' is missing"));
      }
      at::Tensor& p = item.value();
      if (it->second.sizes() != p.sizes()) {
        return absl::InvalidArgumentError(absl::StrCat(
            source, ": parameter '", name, "' has shape [", absl::StrJoin(it->second.sizes(), ","),
            "], the config expects [", absl::StrJoin(p.sizes(), ","), "]"));
      }
      if (it->second.scalar_type() != at::kFloat) {
        return absl::InvalidArgumentError(
            absl::StrCat(source, ": parameter '", name, "' is not float32"));
      }
      p.copy_(it->second);
      seen.insert(name);
    }
    for (const auto& [name, t] : weights) {
      if (seen.count(name) == 0) {
        return absl::InvalidArgumentError(absl::StrCat(source, ": unexpected tensor '", name,
                                                       "' (the config describes another model)"));
      }
    }
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat(source, ": ", e.what()));
  }
  return absl::OkStatus();
}

absl::StatusOr<Checkpoint> LoadCheckpoint(const std::string& dir, const std::string& device) {
  if (!fs::is_directory(dir)) {
    return absl::NotFoundError(absl::StrCat("model directory '", dir, "' does not exist"));
  }
  const std::string config_path = (fs::path(dir) / "config.json").string();
  std::ifstream in(config_path);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot read ", config_path));
  std::stringstream text;
  text << in.rdbuf();
  absl::StatusOr<ModelConfig> config = ModelConfig::FromJson(text.str());
  if (!config.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(config_path, ": ", config.status().message()));
  }
  Checkpoint ck;
  ck.config = *std::move(config);
  ck.dir = dir;
  const std::string weights_path = (fs::path(dir) / ck.config.weights_file).string();
  const std::string tokenizer_path = (fs::path(dir) / ck.config.tokenizer.file).string();
  if (!fs::is_regular_file(tokenizer_path)) {
    return absl::NotFoundError(absl::StrCat("tokenizer model '", tokenizer_path, "' is missing"));
  }
  // The device first: a device this build cannot use fails at once, before the weights are
  // hashed and read.
  RPSUM_ASSIGN_OR_RETURN(at::Device dev, ParseDevice(device));
  RPSUM_ASSIGN_OR_RETURN(ck.weights_sha256, Sha256File(weights_path));
  RPSUM_ASSIGN_OR_RETURN(auto weights, ReadSafetensors(weights_path));
  try {
    ck.scorer = ExtractiveScorer(ck.config.architecture);
    RPSUM_RETURN_IF_ERROR(AssignWeights(ck.scorer, weights, weights_path));
    ck.scorer->to(dev);
    ck.scorer->eval();
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("loading ", dir, ": ", e.what()));
  }
  return ck;
}

absl::Status SaveCheckpoint(const std::string& dir, const ModelConfig& config,
                            ExtractiveScorer& scorer) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot create ", dir, ": ", ec.message()));
  NamedTensors tensors;
  for (const auto& item : scorer->named_parameters(true)) {
    tensors.emplace_back(item.key(), item.value());
  }
  RPSUM_RETURN_IF_ERROR(WriteSafetensors((fs::path(dir) / config.weights_file).string(), tensors,
                                         {{"format", "rpsum-checkpoint"}}));
  const std::string config_path = (fs::path(dir) / "config.json").string();
  std::ofstream out(config_path + ".tmp", std::ios::trunc);
  out << config.ToJson();
  out.close();
  if (!out) return absl::UnavailableError(absl::StrCat("cannot write ", config_path));
  fs::rename(config_path + ".tmp", config_path, ec);
  if (ec) return absl::UnavailableError(absl::StrCat("cannot write ", config_path));
  return absl::OkStatus();
}

}  // namespace rpsum::net
