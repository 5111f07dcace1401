#include "model/torch/inference.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <mutex>
#include <set>

#include "absl/strings/str_cat.h"
#include "model/select.h"

namespace rpsum::net {

using model::IsLocalUnitAttention;
using model::kNumFeatures;
using model::ModelConfig;
using model::PreparedDocument;
using model::ServedScores;

using model::DocumentScores;

namespace {

// The test-only fault hook. Production pays one atomic load per forward pass.
std::mutex fault_mu;
std::function<void(size_t)> fault_hook;  // guarded by fault_mu
std::atomic<bool> fault_hook_set{false};

void RunFaultHook(size_t batch_size) {
  if (!fault_hook_set.load(std::memory_order_acquire)) return;
  std::function<void(size_t)> hook;
  {
    std::lock_guard<std::mutex> lock(fault_mu);
    hook = fault_hook;  // a copy: the hook may be replaced while it runs
  }
  if (hook) hook(batch_size);
}

}  // namespace
}  // namespace rpsum::net

// The model API's test hooks (model/summarizer.h), implemented where the model runs.
namespace rpsum::model {

void SetModelFaultHookForTesting(std::function<void(size_t batch_size)> hook) {
  std::lock_guard<std::mutex> lock(net::fault_mu);
  net::fault_hook = std::move(hook);
  net::fault_hook_set.store(static_cast<bool>(net::fault_hook), std::memory_order_release);
}

void ThrowModelErrorForTesting(const std::string& message) { TORCH_CHECK(false, message); }

}  // namespace rpsum::model

namespace rpsum::net {

AttentionPlan TokenPlan(const ModelConfig& config, int64_t window, int64_t k) {
  AttentionPlan p;
  p.head_k = config.HeadClips(k);
  p.local = window > 0;
  p.window = window;
  return p;
}

AttentionPlan UnitPlan(const ModelConfig& config, bool local) {
  AttentionPlan p;
  p.head_k.assign(config.architecture.heads, config.architecture.unit_clip_distance);
  p.local = local;
  p.window = config.attention.unit_local_window;
  return p;
}

ModelBatch MakeBatch(const std::vector<const PreparedDocument*>& docs, int32_t pad_id,
                     const at::Device& device) {
  const int64_t b = static_cast<int64_t>(docs.size());
  int64_t l = 1, s = 1;
  for (const auto* d : docs) {
    l = std::max(l, d->num_tokens());
    s = std::max<int64_t>(s, static_cast<int64_t>(d->kept.size()));
  }
  at::Tensor tokens = at::full({b, l}, pad_id, at::kLong);
  at::Tensor token_valid = at::zeros({b, l}, at::kBool);
  at::Tensor pos = at::zeros({b, s}, at::kLong);
  at::Tensor sent_valid = at::zeros({b, s}, at::kBool);
  at::Tensor features = at::zeros({b, s, kNumFeatures}, at::kFloat);
  auto tok = tokens.accessor<int64_t, 2>();
  auto tv = token_valid.accessor<bool, 2>();
  auto ps = pos.accessor<int64_t, 2>();
  auto sv = sent_valid.accessor<bool, 2>();
  for (int64_t i = 0; i < b; ++i) {
    const PreparedDocument& d = *docs[i];
    for (int64_t j = 0; j < d.num_tokens(); ++j) {
      tok[i][j] = d.tokens[j];
      tv[i][j] = true;
    }
    for (size_t u = 0; u < d.kept.size(); ++u) {
      ps[i][u] = d.unit_pos[u];
      sv[i][u] = true;
    }
    if (!d.features.empty()) {
      std::memcpy(features[i].data_ptr<float>(), d.features.data(),
                  d.features.size() * sizeof(float));
    }
  }
  ModelBatch batch{tokens, token_valid, pos, sent_valid, features};
  if (!device.is_cpu()) {
    for (at::Tensor* t :
         {&batch.tokens, &batch.token_valid, &batch.unit_pos, &batch.unit_valid, &batch.features}) {
      *t = t->to(device);
    }
  }
  return batch;
}

absl::StatusOr<std::vector<DocumentScores>> ScoreDocuments(
    const Checkpoint& checkpoint, const std::vector<const PreparedDocument*>& docs, int64_t k,
    int32_t pad_id, bool with_states) {
  if (docs.empty()) return std::vector<DocumentScores>{};
  try {
    c10::InferenceMode guard;
    RunFaultHook(docs.size());
    const ModelConfig& config = checkpoint.config;
    const at::Device device = checkpoint.scorer->parameters().front().device();
    ExtractiveScorer scorer = checkpoint.scorer;  // shares the module
    // One forward pass per attention mode present: (token window, unit local) of each
    // document's own length. Padding then only adds masked keys, which change nothing.
    std::vector<DocumentScores> out(docs.size());
    std::set<int64_t> windows;
    for (const PreparedDocument* d : docs) {
      windows.insert(config.attention.TokenWindow(d->num_tokens()));
    }
    for (const int64_t token_window : windows) {
      for (const bool unit_local : {false, true}) {
        std::vector<size_t> members;
        std::vector<const PreparedDocument*> group;
        for (size_t i = 0; i < docs.size(); ++i) {
          const auto units = static_cast<int64_t>(docs[i]->kept.size());
          if (config.attention.TokenWindow(docs[i]->num_tokens()) == token_window &&
              IsLocalUnitAttention(config, units) == unit_local) {
            members.push_back(i);
            group.push_back(docs[i]);
          }
        }
        if (group.empty()) continue;
        const ModelBatch batch = MakeBatch(group, pad_id, device);
        const at::Tensor states =
            scorer->EncodeUnits(scorer->EncodeTokens(batch, TokenPlan(config, token_window, k)),
                                batch, UnitPlan(config, unit_local));
        const at::Tensor logits = scorer->UnitLogits(states).to(at::kCPU, at::kFloat).contiguous();
        const at::Tensor cpu_states =
            with_states ? states.to(at::kCPU, at::kFloat).contiguous() : at::Tensor();
        for (size_t g = 0; g < group.size(); ++g) {
          const float* row = logits[static_cast<int64_t>(g)].data_ptr<float>();
          DocumentScores& d = out[members[g]];
          d.scores = ServedScores(*group[g], std::vector<float>(row, row + group[g]->kept.size()),
                                  config.scoring);
          d.clip_distance = k;
          d.local_window = token_window;
          if (with_states) {
            const int64_t width = cpu_states.size(2);
            const float* s = cpu_states[static_cast<int64_t>(g)].data_ptr<float>();
            d.unit_states.assign(s, s + (group[g]->kept.size() * width));
            d.state_size = width;
          }
        }
      }
    }
    return out;
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (what.find("out of memory") != std::string::npos ||
        what.find("not enough memory") != std::string::npos) {
      return absl::ResourceExhaustedError(absl::StrCat("model out of memory: ", what));
    }
    return absl::InternalError(absl::StrCat("model failure: ", what));
  } catch (const std::bad_alloc&) {
    return absl::ResourceExhaustedError("model out of memory (host allocation failed)");
  } catch (const std::exception& e) {
    return absl::InternalError(absl::StrCat("model failure: ", e.what()));
  }
}

}  // namespace rpsum::net
