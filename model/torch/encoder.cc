#include "model/torch/encoder.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/autograd.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/init.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"

namespace rpsum::net {

using model::Architecture;

RelativeSelfAttentionImpl::RelativeSelfAttentionImpl(int64_t hidden, int64_t heads,
                                                     int64_t max_clip, double dropout)
    : heads_(heads), head_dim_(hidden / heads), dropout_(dropout) {
  TORCH_CHECK(hidden % heads == 0, "hidden size ", hidden, " is not a multiple of ", heads);
  qkv = register_module("qkv", torch::nn::Linear(hidden, 3 * hidden));
  out = register_module("out", torch::nn::Linear(hidden, hidden));
  rel_k = register_parameter("rel_k", at::empty({2 * max_clip + 1, head_dim_}));
  rel_v = register_parameter("rel_v", at::empty({2 * max_clip + 1, head_dim_}));
  torch::nn::init::xavier_uniform_(rel_k);
  torch::nn::init::xavier_uniform_(rel_v);
}

at::Tensor RelativeSelfAttentionImpl::forward(const at::Tensor& x, const at::Tensor& valid,
                                              const AttentionPlan& plan) {
  const int64_t b = x.size(0), l = x.size(1);
  // Inference on CPU (no autograd, no dropout): the tiled band kernel reads q, k and v in
  // place and writes z in the layout `out` reads.
  if (plan.impl == AttentionImpl::kAuto && !is_training() && !at::GradMode::is_enabled() &&
      x.device().is_cpu() && x.scalar_type() == at::kFloat) {
    const int64_t window = plan.local ? plan.window : l;
    return out(BandRelativeAttend(qkv(x), heads_, rel_k, rel_v, plan.k, valid, window));
  }
  const at::Tensor qkv_all = qkv(x).view({b, l, 3, heads_, head_dim_}).permute({2, 0, 3, 1, 4});
  const at::Tensor q = qkv_all[0], k = qkv_all[1], v = qkv_all[2];
  const double p = is_training() ? dropout_ : 0.0;
  const at::Tensor z = plan.local
                           ? LocalRelativeAttend(q, k, v, rel_k, rel_v, plan.k, valid, plan.window,
                                                 plan.impl, p, is_training())
                           : RelativeAttend(q, k, v, rel_k, rel_v, plan.k, valid,
                                            AttentionGeometry{}, plan.impl, p, is_training());
  return out(z.transpose(1, 2).reshape({b, l, heads_ * head_dim_}));
}

EncoderLayerImpl::EncoderLayerImpl(int64_t hidden, int64_t heads, int64_t ffn, int64_t max_clip,
                                   double dropout) {
  ln1 = register_module("ln1", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})));
  attn = register_module("attn", RelativeSelfAttention(hidden, heads, max_clip, dropout));
  ln2 = register_module("ln2", torch::nn::LayerNorm(torch::nn::LayerNormOptions({hidden})));
  ff1 = register_module("ff1", torch::nn::Linear(hidden, ffn));
  ff2 = register_module("ff2", torch::nn::Linear(ffn, hidden));
  dropout_ = dropout;
}

at::Tensor EncoderLayerImpl::forward(const at::Tensor& x, const at::Tensor& valid,
                                     const AttentionPlan& plan) {
  const bool t = is_training();
  const at::Tensor h = x + FastDropout(attn(ln1(x), valid, plan), dropout_, t);
  return h + FastDropout(ff2(FastDropout(at::gelu(ff1(ln2(h))), dropout_, t)), dropout_, t);
}

namespace {

// One encoder layer without stored activations: the forward runs without autograd; the
// backward restores the random state (so dropout draws the same masks), recomputes the layer
// with autograd and back-propagates through it, which accumulates the layer's parameter
// gradients directly.
class CheckpointedLayer : public torch::autograd::Function<CheckpointedLayer> {
 public:
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, const at::Tensor& x,
                            const at::Tensor& valid, int64_t layer_ptr, int64_t k, bool local,
                            int64_t window) {
    // The autograd context stores the layer as an integer: the cast back is the only way.
    auto* layer =
        reinterpret_cast<EncoderLayerImpl*>(layer_ptr);  // NOLINT(performance-no-int-to-ptr)
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    {
      std::lock_guard<std::mutex> lock(gen.mutex());
      ctx->saved_data["rng"] = gen.get_state();
    }
    ctx->save_for_backward({x, valid});
    ctx->saved_data["layer"] = layer_ptr;
    ctx->saved_data["k"] = k;
    ctx->saved_data["local"] = local;
    ctx->saved_data["window"] = window;
    at::NoGradGuard no_grad;
    return layer->forward(x, valid, AttentionPlan{k, local, window, AttentionImpl::kAuto});
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    auto* layer = reinterpret_cast<EncoderLayerImpl*>(  // NOLINT(performance-no-int-to-ptr)
        ctx->saved_data["layer"].toInt());
    const AttentionPlan plan{ctx->saved_data["k"].toInt(), ctx->saved_data["local"].toBool(),
                             ctx->saved_data["window"].toInt(), AttentionImpl::kAuto};
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    at::Tensor current;
    {
      std::lock_guard<std::mutex> lock(gen.mutex());
      current = gen.get_state();
      gen.set_state(ctx->saved_data["rng"].toTensor());
    }
    at::Tensor x = saved[0].detach().requires_grad_(true);
    {
      at::AutoGradMode enable(true);
      const at::Tensor out = layer->forward(x, saved[1], plan);
      torch::autograd::backward({out}, {grads[0]});
    }
    {
      std::lock_guard<std::mutex> lock(gen.mutex());
      gen.set_state(current);
    }
    return {x.grad(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor(), at::Tensor()};
  }
};

}  // namespace

ExtractiveScorerImpl::ExtractiveScorerImpl(const Architecture& arch) : arch_(arch) {
  const int64_t d = arch.hidden_size;
  embed = register_module("embed", torch::nn::Embedding(arch.vocab_size, d));
  token_layers = register_module("token_layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < arch.token_layers; ++i) {
    token_layers->push_back(
        EncoderLayer(d, arch.heads, arch.ffn_size, arch.max_clip_distance, arch.dropout));
  }
  token_norm =
      register_module("token_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  if (arch.num_features > 0) {
    feature_proj = register_module("feature_proj", torch::nn::Linear(arch.num_features, d));
  }
  if (!arch.feature_columns.empty()) {
    feature_index_ = torch::tensor(arch.feature_columns, torch::dtype(torch::kLong));
  }
  // The weights file names these modules sentence_layers and sentence_norm (their names when the
  // shipped weights were written; renaming them would change every published weights file).
  unit_layers = register_module("sentence_layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < arch.unit_layers; ++i) {
    unit_layers->push_back(
        EncoderLayer(d, arch.heads, arch.ffn_size, arch.unit_clip_distance, arch.dropout));
  }
  unit_norm =
      register_module("sentence_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  head = register_module("head", torch::nn::Linear(d, 1));
  torch::nn::init::normal_(embed->weight, 0.0, 1.0 / std::sqrt(static_cast<double>(d)));
}

at::Tensor ExtractiveScorerImpl::forward(const ModelBatch& batch, const AttentionPlan& token_plan,
                                         const AttentionPlan& unit_plan) {
  return ScoreUnits(EncodeTokens(batch, token_plan), batch, unit_plan);
}

at::Tensor ExtractiveScorerImpl::EncodeTokens(const ModelBatch& batch,
                                              const AttentionPlan& token_plan) {
  return TokenLayers(batch.tokens, batch.token_valid, token_plan);
}

at::Tensor ExtractiveScorerImpl::TokenLayers(const at::Tensor& tokens, const at::Tensor& valid,
                                             const AttentionPlan& plan) {
  at::Tensor x = embed(tokens);
  const bool checkpoint = checkpoint_layers_ && is_training() && at::GradMode::is_enabled();
  for (const auto& layer : *token_layers) {
    auto* l = layer->as<EncoderLayer>();
    if (checkpoint) {
      x = CheckpointedLayer::apply(x, valid, reinterpret_cast<int64_t>(l), plan.k, plan.local,
                                   plan.window);
    } else {
      x = l->forward(x, valid, plan);
    }
  }
  return token_norm(x);
}

at::Tensor ExtractiveScorerImpl::ScoreUnits(const at::Tensor& tokens, const ModelBatch& batch,
                                            const AttentionPlan& unit_plan) {
  return UnitLogits(EncodeUnits(tokens, batch, unit_plan));
}

at::Tensor ExtractiveScorerImpl::EncodeUnits(const at::Tensor& tokens, const ModelBatch& batch,
                                             const AttentionPlan& unit_plan) {
  const int64_t b = tokens.size(0), d = tokens.size(2), s = batch.unit_pos.size(1);
  const at::Tensor gathered = tokens.gather(1, batch.unit_pos.unsqueeze(-1).expand({b, s, d}));
  return UnitLayers(UnitInputs(gathered, batch.features), batch.unit_valid, unit_plan);
}

at::Tensor ExtractiveScorerImpl::UnitInputs(at::Tensor gathered, const at::Tensor& features) {
  if (!feature_proj) return gathered;
  // A checkpoint reads the first num_features columns: models trained before a feature was
  // appended (model/document.h, kNumFeatures) keep loading and scoring as they did.
  // A checkpoint with architecture.feature_columns reads those columns instead.
  const int64_t f = feature_proj->options.in_features();
  at::Tensor columns;
  if (!arch_.feature_columns.empty()) {
    columns = features.index_select(-1, feature_index_.to(features.device()));
  } else {
    columns = features.size(-1) == f ? features : features.narrow(-1, 0, f);
  }
  return gathered + feature_proj(columns);
}

at::Tensor ExtractiveScorerImpl::UnitLayers(at::Tensor x, const at::Tensor& valid,
                                            const AttentionPlan& plan) {
  for (const auto& layer : *unit_layers) {
    x = layer->as<EncoderLayer>()->forward(x, valid, plan);
  }
  return unit_norm(x);
}

namespace {

// A stretch [first, last) of a sequence of `length` positions and its halo: [lo, hi) =
// [first - halo, last + halo) within the sequence. A position's output from layers of total
// reach `halo` depends only on inputs within `halo` of it, so outputs in [first, last) computed
// from [lo, hi) are the whole sequence's.
struct Stretch {
  int64_t lo, hi, first, last;
};

Stretch NthStretch(int64_t n, int64_t length, int64_t size, int64_t halo) {
  const int64_t first = n * size, last = std::min(length, first + size);
  return {std::max<int64_t>(0, first - halo), std::min(length, last + halo), first, last};
}

// Whether layers attending with `plan` over `length` positions run in stretches of `stretch`.
bool Stretched(const AttentionPlan& plan, int64_t length, int64_t stretch) {
  return plan.local && stretch > 0 && length > stretch;
}

}  // namespace

// The unit layers' input, made a token stretch at a time as the unit stretches ask for it in
// order (Rows), and dropped once no later request reaches it.
class ExtractiveScorerImpl::UnitInputStream {
 public:
  UnitInputStream(ExtractiveScorerImpl& scorer, const ModelBatch& batch, const AttentionPlan& plan,
                  int64_t stretch, const std::function<bool()>& stop)
      : scorer_(scorer),
        stop_(stop),
        batch_(batch),
        plan_(plan),
        pos_(batch.unit_pos[0].to(at::kCPU).contiguous()),
        units_(batch.unit_valid[0].sum().item<int64_t>()),
        length_(batch.tokens.size(1)),
        size_(Stretched(plan, length_, stretch) ? stretch : length_),
        halo_(plan.window * static_cast<int64_t>(scorer.token_layers->size())),
        device_(batch.unit_pos.device()) {}

  // Rows [lo, hi) of the unit inputs [1, hi - lo, D]; lo and hi never decrease between calls.
  at::Tensor Rows(int64_t lo, int64_t hi) {
    while (made_ < std::min(hi, units_)) Next();
    while (!chunks_.empty() && chunks_.front().first + chunks_.front().second.size(1) <= lo) {
      chunks_.erase(chunks_.begin());
    }
    std::vector<at::Tensor> parts;
    for (const auto& [start, rows] : chunks_) {
      const int64_t a = std::max(lo, start), b = std::min(hi, start + rows.size(1));
      if (a < b) parts.push_back(rows.narrow(1, a - start, b - a));
    }
    return parts.size() == 1 ? parts[0] : at::cat(parts, 1);
  }

 private:
  void Next() {
    const Stretch s = NthStretch(next_++, length_, size_, halo_);
    const int64_t* p = pos_.data_ptr<int64_t>();
    const int64_t u0 = made_, u1 = std::lower_bound(p, p + units_, s.last) - p;
    if (u0 == u1) return;
    if (stop_ && stop_()) {
      throw StretchesStopped(absl::StrCat("stopped before token stretch ", next_, " of ",
                                          (length_ + size_ - 1) / size_));
    }
    const int64_t d = scorer_.arch_.hidden_size;
    // The batch's tokens may stay where and as they were prepared (int32, on the host): each
    // stretch is moved and widened alone.
    const at::Tensor tokens = batch_.tokens.narrow(1, s.lo, s.hi - s.lo).to(device_, at::kLong);
    const at::Tensor out = scorer_.TokenLayers(
        tokens, at::ones(tokens.sizes(), tokens.options().dtype(at::kBool)), plan_);
    const at::Tensor rows = batch_.unit_pos.narrow(1, u0, u1 - u0) - s.lo;
    chunks_.emplace_back(
        u0, scorer_.UnitInputs(out.gather(1, rows.unsqueeze(-1).expand({1, u1 - u0, d})),
                               batch_.features.narrow(1, u0, u1 - u0)));
    made_ = u1;
  }

  ExtractiveScorerImpl& scorer_;
  const std::function<bool()>& stop_;
  const ModelBatch& batch_;
  const AttentionPlan& plan_;
  const at::Tensor pos_;
  const int64_t units_, length_, size_, halo_;
  const at::Device device_;
  int64_t next_ = 0, made_ = 0;
  std::vector<std::pair<int64_t, at::Tensor>> chunks_;  // (first unit, rows [1, n, D])
};

at::Tensor ExtractiveScorerImpl::ScoreInStretches(
    const ModelBatch& batch, const AttentionPlan& token_plan, const AttentionPlan& unit_plan,
    const Stretches& stretches, const at::Tensor& states, const std::function<bool()>& stop) {
  TORCH_CHECK(batch.tokens.size(0) == 1, "ScoreInStretches takes one document");
  const int64_t s = batch.unit_valid[0].sum().item<int64_t>();
  at::Tensor logits = at::zeros({s}, at::kFloat);
  if (s == 0) return logits;
  UnitInputStream inputs(*this, batch, token_plan, stretches.tokens, stop);
  const int64_t size = Stretched(unit_plan, s, stretches.units) ? stretches.units : s;
  const int64_t halo = unit_plan.window * static_cast<int64_t>(unit_layers->size());
  for (int64_t n = 0; n * size < s; ++n) {
    const Stretch u = NthStretch(n, s, size, halo);
    if (n > 0 && stop && stop()) {
      throw StretchesStopped(
          absl::StrCat("stopped before unit stretch ", n + 1, " of ", (s + size - 1) / size));
    }
    const at::Tensor out = UnitLayers(inputs.Rows(u.lo, u.hi),
                                      batch.unit_valid.narrow(1, u.lo, u.hi - u.lo), unit_plan)
                               .narrow(1, u.first - u.lo, u.last - u.first);
    logits.narrow(0, u.first, u.last - u.first).copy_(UnitLogits(out)[0]);
    if (states.defined()) states.narrow(0, u.first, u.last - u.first).copy_(out[0]);
  }
  return logits;
}

}  // namespace rpsum::net
