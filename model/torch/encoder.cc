#include "model/torch/encoder.h"

#include <ATen/ATen.h>
#include <ATen/CPUGeneratorImpl.h>
#include <torch/autograd.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/init.h>

#include <cmath>
#include <mutex>

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
    return out(BandRelativeAttend(qkv(x), heads_, rel_k, rel_v, plan.head_k, valid, window));
  }
  const at::Tensor qkv_all = qkv(x).view({b, l, 3, heads_, head_dim_}).permute({2, 0, 3, 1, 4});
  const at::Tensor q = qkv_all[0], k = qkv_all[1], v = qkv_all[2];
  const double p = is_training() ? dropout_ : 0.0;
  const at::Tensor z = plan.local
                           ? LocalRelativeAttend(q, k, v, rel_k, rel_v, plan.head_k, valid,
                                                 plan.window, plan.impl, p, is_training())
                           : RelativeAttend(q, k, v, rel_k, rel_v, plan.head_k, valid,
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
                            const at::Tensor& valid, int64_t layer_ptr, std::vector<int64_t> head_k,
                            bool local, int64_t window) {
    auto* layer = reinterpret_cast<EncoderLayerImpl*>(layer_ptr);
    at::Generator gen = at::detail::getDefaultCPUGenerator();
    {
      std::lock_guard<std::mutex> lock(gen.mutex());
      ctx->saved_data["rng"] = gen.get_state();
    }
    ctx->save_for_backward({x, valid});
    ctx->saved_data["layer"] = layer_ptr;
    ctx->saved_data["head_k"] = c10::List<int64_t>(head_k);
    ctx->saved_data["local"] = local;
    ctx->saved_data["window"] = window;
    at::NoGradGuard no_grad;
    return layer->forward(x, valid, AttentionPlan{head_k, local, window, AttentionImpl::kAuto});
  }

  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    auto* layer = reinterpret_cast<EncoderLayerImpl*>(ctx->saved_data["layer"].toInt());
    const auto hk = ctx->saved_data["head_k"].toIntList();
    const AttentionPlan plan{std::vector<int64_t>(hk.begin(), hk.end()),
                             ctx->saved_data["local"].toBool(), ctx->saved_data["window"].toInt(),
                             AttentionImpl::kAuto};
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
  at::Tensor x = embed(batch.tokens);
  const bool checkpoint = checkpoint_layers_ && is_training() && at::GradMode::is_enabled();
  for (const auto& layer : *token_layers) {
    auto* l = layer->as<EncoderLayer>();
    if (checkpoint) {
      x = CheckpointedLayer::apply(x, batch.token_valid, reinterpret_cast<int64_t>(l),
                                   token_plan.head_k, token_plan.local, token_plan.window);
    } else {
      x = l->forward(x, batch.token_valid, token_plan);
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
  at::Tensor sv = tokens.gather(1, batch.unit_pos.unsqueeze(-1).expand({b, s, d}));
  if (feature_proj) {
    // A checkpoint reads the first num_features columns: models trained before a feature was
    // appended (model/document.h, kNumFeatures) keep loading and scoring as they did.
    // A checkpoint with architecture.feature_columns reads those columns instead.
    const int64_t f = feature_proj->options.in_features();
    at::Tensor features;
    if (!arch_.feature_columns.empty()) {
      features = batch.features.index_select(-1, feature_index_.to(batch.features.device()));
    } else {
      features = batch.features.size(-1) == f ? batch.features : batch.features.narrow(-1, 0, f);
    }
    sv = sv + feature_proj(features);
  }
  for (const auto& layer : *unit_layers) {
    sv = layer->as<EncoderLayer>()->forward(sv, batch.unit_valid, unit_plan);
  }
  return unit_norm(sv);
}

}  // namespace rpsum::net
