#include "train/trainer_state.h"

#include <torch/serialize.h>

#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "model/torch/checkpoint.h"
#include "model/torch/safetensors.h"

namespace rpsum::train {
namespace {

namespace fs = std::filesystem;

// A module's parameters by name, as the state files hold them.
net::NamedTensors Named(const torch::nn::Module& m) {
  net::NamedTensors out;
  for (const auto& p : m.named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

// Copies the tensors `file` holds under the names of `module`'s parameters into them, checking
// that each is there with the parameter's shape.
absl::Status RestoreTensors(const fs::path& file, torch::nn::Module& module) {
  auto saved = net::ReadSafetensors(file.string());
  if (!saved.ok()) return saved.status();
  at::NoGradGuard no_grad;
  for (auto& p : module.named_parameters()) {
    auto it = saved->find(p.key());
    if (it == saved->end() || !it->second.sizes().equals(p.value().sizes())) {
      return absl::DataLossError(
          absl::StrCat(file.string(), ": no tensor ", p.key(), " of the head's shape"));
    }
    p.value().copy_(it->second);
  }
  return absl::OkStatus();
}

}  // namespace

std::vector<at::Tensor> TrainedModules::Parameters() const {
  std::vector<at::Tensor> out = model->parameters();
  if (mlm) {
    for (const at::Tensor& p : mlm->parameters()) out.push_back(p);
  }
  return out;
}

// state/: model.safetensors, mlm.safetensors (with a masked-token head), optimizer.pt
// (torch::save) and progress.json.
absl::Status SaveState(const fs::path& state, const TrainedModules& modules,
                       torch::optim::AdamW& opt, const Progress& progress) {
  absl::Status s =
      net::WriteSafetensors((state / "model.safetensors").string(), Named(*modules.model));
  if (modules.mlm && s.ok()) {
    s = net::WriteSafetensors((state / "mlm.safetensors").string(), Named(*modules.mlm));
  }
  torch::save(opt, (state / "optimizer.pt.tmp").string());
  fs::rename(state / "optimizer.pt.tmp", state / "optimizer.pt");
  std::ofstream(state / "progress.json.tmp") << progress.ToJson();
  fs::rename(state / "progress.json.tmp", state / "progress.json");
  return s;
}

absl::StatusOr<Progress> LoadState(const fs::path& state, const TrainedModules& modules,
                                   torch::optim::AdamW& opt) {
  if (!fs::exists(state / "progress.json")) return Progress{};
  auto text = ReadFile((state / "progress.json").string());
  if (!text.ok()) return text.status();
  auto progress = Progress::FromJson(*text);
  if (!progress.ok()) return progress.status();
  auto w = net::ReadSafetensors((state / "model.safetensors").string());
  if (!w.ok()) return w.status();
  if (absl::Status s = net::AssignWeights(modules.model, *w, "state"); !s.ok()) return s;
  if (modules.mlm) {
    if (absl::Status s = RestoreTensors(state / "mlm.safetensors", *modules.mlm); !s.ok()) {
      return s;
    }
  }
  torch::load(opt, (state / "optimizer.pt").string());
  return progress;
}

}  // namespace rpsum::train
