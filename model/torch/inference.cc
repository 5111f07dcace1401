#include "model/torch/inference.h"

#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "model/internal/select.h"
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

AttentionPlan TokenPlan(int64_t window, int64_t k) {
  AttentionPlan p;
  p.k = k;
  p.local = window > 0;
  p.window = window;
  return p;
}

AttentionPlan UnitPlan(const ModelConfig& config, bool local) {
  AttentionPlan p;
  p.k = config.architecture.unit_clip_distance;
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

namespace {

// Which forward pass a document joins: its own length's token window and unit attention, and
// for a document long enough to run in stretches, its own pass (index + 1; else 0).
using PassKey = std::tuple<int64_t, bool, size_t>;

PassKey PassOf(const ModelConfig& config, const PreparedDocument& d, size_t index,
               const Stretches& stretches) {
  const int64_t window = config.attention.TokenWindow(d.num_tokens());
  const auto units = static_cast<int64_t>(d.kept.size());
  const bool unit_local = IsLocalUnitAttention(config, units);
  const bool alone = (window > 0 && stretches.tokens > 0 && d.num_tokens() > stretches.tokens) ||
                     (unit_local && stretches.units > 0 && units > stretches.units);
  return {window, unit_local, alone ? index + 1 : 0};
}

// Copies one pass's logits (and states) into its documents' results.
void TakeScores(const ModelConfig& config, const at::Tensor& states, ExtractiveScorer& scorer,
                const std::vector<size_t>& members,
                const std::vector<const PreparedDocument*>& docs, int64_t k, int64_t window,
                bool with_states, std::vector<DocumentScores>& out) {
  const at::Tensor logits = scorer->UnitLogits(states).to(at::kCPU, at::kFloat).contiguous();
  const at::Tensor cpu_states =
      with_states ? states.to(at::kCPU, at::kFloat).contiguous() : at::Tensor();
  for (size_t g = 0; g < members.size(); ++g) {
    const PreparedDocument& doc = *docs[members[g]];
    const float* row = logits[static_cast<int64_t>(g)].data_ptr<float>();
    DocumentScores& d = out[members[g]];
    d.scores = ServedScores(doc, std::vector<float>(row, row + doc.kept.size()), config.scoring);
    d.clip_distance = k;
    d.local_window = window;
    if (with_states) {
      const int64_t width = cpu_states.size(2);
      const float* s = cpu_states[static_cast<int64_t>(g)].data_ptr<float>();
      d.unit_states.assign(s, s + (doc.kept.size() * width));
      d.state_size = width;
    }
  }
}

// One document in stretches: its states written straight into the result.
// The document's tokens stay int32 on the host (ScoreInStretches moves a stretch at a time).
DocumentScores InStretches(const ModelConfig& config, ExtractiveScorer& scorer,
                           const PreparedDocument& doc, const at::Device& device,
                           const AttentionPlan& token_plan, const AttentionPlan& unit_plan,
                           const Stretches& stretches, bool with_states,
                           const std::function<bool()>& stop) {
  DocumentScores d;
  const auto units = static_cast<int64_t>(doc.kept.size());
  std::vector<int64_t> pos(doc.unit_pos.begin(), doc.unit_pos.end());
  ModelBatch batch;
  batch.tokens =
      at::from_blob(const_cast<int32_t*>(doc.tokens.data()), {1, doc.num_tokens()}, at::kInt);
  batch.unit_pos = at::from_blob(pos.data(), {1, units}, at::kLong).to(device);
  batch.unit_valid = at::ones({1, units}, at::kBool).to(device);
  batch.features = doc.features.empty()
                       ? at::zeros({1, units, model::kNumFeatures}, at::kFloat).to(device)
                       : at::from_blob(const_cast<float*>(doc.features.data()),
                                       {1, units, model::kNumFeatures}, at::kFloat)
                             .to(device);
  at::Tensor states;
  if (with_states) {
    d.state_size = config.architecture.hidden_size;
    d.unit_states.resize(units * d.state_size);
    states = at::from_blob(d.unit_states.data(), {units, d.state_size}, at::kFloat);
  }
  const at::Tensor logits =
      scorer->ScoreInStretches(batch, token_plan, unit_plan, stretches, states, stop).contiguous();
  const float* row = logits.data_ptr<float>();
  d.scores = ServedScores(doc, std::vector<float>(row, row + units), config.scoring);
  return d;
}

}  // namespace

absl::StatusOr<std::vector<DocumentScores>> ScoreDocuments(
    const Checkpoint& checkpoint, const std::vector<const PreparedDocument*>& docs, int64_t k,
    int32_t pad_id, bool with_states, const Stretches& stretches,
    const std::function<bool()>& stop) {
  if (docs.empty()) return std::vector<DocumentScores>{};
  try {
    c10::InferenceMode guard;
    RunFaultHook(docs.size());
    const ModelConfig& config = checkpoint.config;
    const at::Device device = checkpoint.scorer->parameters().front().device();
    ExtractiveScorer scorer = checkpoint.scorer;  // shares the module
    // One forward pass per attention mode present: (token window, unit local) of each
    // document's own length. Padding then only adds masked keys, which change nothing. A
    // document that runs in stretches runs alone.
    std::map<PassKey, std::vector<size_t>> passes;
    for (size_t i = 0; i < docs.size(); ++i) {
      passes[PassOf(config, *docs[i], i, stretches)].push_back(i);
    }
    std::vector<DocumentScores> out(docs.size());
    for (const auto& [key, members] : passes) {
      const auto& [window, unit_local, alone] = key;
      std::vector<const PreparedDocument*> group;
      for (const size_t i : members) group.push_back(docs[i]);
      const AttentionPlan token_plan = TokenPlan(window, k);
      const AttentionPlan unit_plan = UnitPlan(config, unit_local);
      if (alone > 0) {
        out[members[0]] = InStretches(config, scorer, *group[0], device, token_plan, unit_plan,
                                      stretches, with_states, stop);
        out[members[0]].clip_distance = k;
        out[members[0]].local_window = window;
        continue;
      }
      const ModelBatch batch = MakeBatch(group, pad_id, device);
      const at::Tensor states =
          scorer->EncodeUnits(scorer->EncodeTokens(batch, token_plan), batch, unit_plan);
      TakeScores(config, states, scorer, members, docs, k, window, with_states, out);
    }
    return out;
  } catch (const StretchesStopped& e) {
    return absl::DeadlineExceededError(
        absl::StrCat("the model stopped a long document (", e.what(),
                     "): its deadline passed or its client went away"));
  } catch (const c10::Error& e) {
    const std::string what = e.what_without_backtrace();
    if (absl::StrContains(what, "out of memory") || absl::StrContains(what, "not enough memory")) {
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
