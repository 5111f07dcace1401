#include "model/encoder.h"

#include <ATen/ATen.h>
#include <torch/nn/functional/activation.h>
#include <torch/nn/init.h>

#include <cmath>

namespace rpsum::model {

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
  sentence_layers = register_module("sentence_layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < arch.sentence_layers; ++i) {
    sentence_layers->push_back(
        EncoderLayer(d, arch.heads, arch.ffn_size, arch.sentence_clip_distance, arch.dropout));
  }
  sentence_norm =
      register_module("sentence_norm", torch::nn::LayerNorm(torch::nn::LayerNormOptions({d})));
  head = register_module("head", torch::nn::Linear(d, 1));
  torch::nn::init::normal_(embed->weight, 0.0, 1.0 / std::sqrt(static_cast<double>(d)));
}

at::Tensor ExtractiveScorerImpl::forward(const ModelBatch& batch, const AttentionPlan& token_plan,
                                         const AttentionPlan& sentence_plan) {
  at::Tensor x = embed(batch.tokens);
  for (const auto& layer : *token_layers) {
    x = layer->as<EncoderLayer>()->forward(x, batch.token_valid, token_plan);
  }
  x = token_norm(x);
  const int64_t b = x.size(0), d = x.size(2), s = batch.sentence_pos.size(1);
  at::Tensor sv = x.gather(1, batch.sentence_pos.unsqueeze(-1).expand({b, s, d}));
  if (feature_proj) sv = sv + feature_proj(batch.features);
  for (const auto& layer : *sentence_layers) {
    sv = layer->as<EncoderLayer>()->forward(sv, batch.sentence_valid, sentence_plan);
  }
  return head(sentence_norm(sv)).squeeze(-1);
}

}  // namespace rpsum::model
