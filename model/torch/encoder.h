// The extractive scorer of docs/design.md, section 3: token embedding (no absolute positions in
// the model: relative positions alone, docs/design.md section 3) ->
// token RPR encoder layers (pre-LN, GELU) -> one vector per unit (its start marker) plus
// unit features -> unit RPR layers (relative distance in units) -> score head.
#ifndef RPSUM_MODEL_TORCH_ENCODER_H_
#define RPSUM_MODEL_TORCH_ENCODER_H_

#include <torch/nn/module.h>
#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>
#include <torch/nn/modules/normalization.h>

#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "model/model_config.h"
#include "model/summarizer.h"
#include "model/torch/relative_attention.h"

namespace rpsum::net {

// How one forward pass attends: the clip distance and full or block-local attention.
struct AttentionPlan {
  int64_t k = 0;       // in [1, table's K]
  bool local = false;  // block-local attention with `window`
  int64_t window = 0;
  AttentionImpl impl = AttentionImpl::kAuto;
};

// Multi-head self-attention with relative keys and values shared by the heads.
class RelativeSelfAttentionImpl : public torch::nn::Module {
 public:
  RelativeSelfAttentionImpl(int64_t hidden, int64_t heads, int64_t max_clip, double dropout);
  // x [B, L, D]; valid [B, L] bool (true for real tokens). Returns [B, L, D].
  at::Tensor forward(const at::Tensor& x, const at::Tensor& valid, const AttentionPlan& plan);

  int64_t heads() const { return heads_; }
  torch::nn::Linear qkv{nullptr}, out{nullptr};
  at::Tensor rel_k, rel_v;  // [2 * max_clip + 1, head_dim], Xavier-uniform

 private:
  int64_t heads_, head_dim_;
  double dropout_;
};
TORCH_MODULE(RelativeSelfAttention);

// Pre-LN Transformer layer: x + drop(attn(LN(x))), then x + drop(FFN(LN(x))) with GELU.
class EncoderLayerImpl : public torch::nn::Module {
 public:
  EncoderLayerImpl(int64_t hidden, int64_t heads, int64_t ffn, int64_t max_clip, double dropout);
  at::Tensor forward(const at::Tensor& x, const at::Tensor& valid, const AttentionPlan& plan);

  torch::nn::LayerNorm ln1{nullptr}, ln2{nullptr};
  RelativeSelfAttention attn{nullptr};
  torch::nn::Linear ff1{nullptr}, ff2{nullptr};

 private:
  double dropout_ = 0;  // on the sublayer outputs and the FFN activation (FastDropout)
};
TORCH_MODULE(EncoderLayer);

// A padded batch of prepared documents, as tensors.
struct ModelBatch {
  at::Tensor tokens;       // [B, L] int64, pad id where invalid
  at::Tensor token_valid;  // [B, L] bool
  at::Tensor unit_pos;     // [B, S] int64: position of each unit's start marker (0 if pad)
  at::Tensor unit_valid;   // [B, S] bool
  at::Tensor features;     // [B, S, F] float
};

// A long document's forward in stretches: model/summarizer.h.
using Stretches = model::ForwardStretches;

// ScoreInStretches was told to stop: how far it got.
struct StretchesStopped : std::runtime_error {
  explicit StretchesStopped(const std::string& what) : std::runtime_error(what) {}
};

class ExtractiveScorerImpl : public torch::nn::Module {
 public:
  explicit ExtractiveScorerImpl(const model::Architecture& arch);
  // Unit logits [B, S] (padding units get arbitrary values: mask them).
  at::Tensor forward(const ModelBatch& batch, const AttentionPlan& token_plan,
                     const AttentionPlan& unit_plan);
  // The two halves of forward: the token layers' output [B, L, D] (after the final norm), then
  // the unit logits from it. Training with a token-level objective (rpsum-train --mlm_weight)
  // reads the first.
  at::Tensor EncodeTokens(const ModelBatch& batch, const AttentionPlan& token_plan);
  at::Tensor ScoreUnits(const at::Tensor& tokens, const ModelBatch& batch,
                        const AttentionPlan& unit_plan);
  // ScoreUnits in two halves: the unit states the head reads [B, S, D] (the unit layers'
  // output after the final norm), then their logits [B, S]. Summary-level reranking reads the
  // states (docs/design.md, section 2, "Select").
  at::Tensor EncodeUnits(const at::Tensor& tokens, const ModelBatch& batch,
                         const AttentionPlan& unit_plan);
  at::Tensor UnitLogits(const at::Tensor& states) { return head(states).squeeze(-1); }
  // forward(batch, ...) for a batch of one document, in `stretches` (its tokens may be int32
  // and on the host, its token_valid undefined: every token is valid): the unit logits [S] on
  // the CPU, and with `states` defined (a CPU float tensor [S, D]) the unit states written into
  // it. Neither the token layers' output nor the unit layers' input is ever held for the whole
  // document: each token stretch runs when the unit stretch that reads its units needs it, and
  // unit inputs are dropped once no later unit stretch reads them.
  // `stop` (may be empty) is asked before each stretch: true throws StretchesStopped.
  at::Tensor ScoreInStretches(const ModelBatch& batch, const AttentionPlan& token_plan,
                              const AttentionPlan& unit_plan, const Stretches& stretches,
                              const at::Tensor& states, const std::function<bool()>& stop);
  // Gradient checkpointing of the token layers (training on long documents): each layer's
  // activations are dropped after the forward and recomputed in the backward, with the same
  // dropout masks. Saves memory, costs one more forward per layer.
  void set_checkpoint_layers(bool on) { checkpoint_layers_ = on; }

  torch::nn::Embedding embed{nullptr};
  torch::nn::ModuleList token_layers{nullptr}, unit_layers{nullptr};
  torch::nn::LayerNorm token_norm{nullptr}, unit_norm{nullptr};
  torch::nn::Linear feature_proj{nullptr}, head{nullptr};

 private:
  class UnitInputStream;
  at::Tensor TokenLayers(const at::Tensor& tokens, const at::Tensor& valid,
                         const AttentionPlan& plan);
  at::Tensor UnitInputs(at::Tensor gathered, const at::Tensor& features);
  at::Tensor UnitLayers(at::Tensor x, const at::Tensor& valid, const AttentionPlan& plan);

  model::Architecture arch_;
  at::Tensor feature_index_;  // arch_.feature_columns as a long tensor (undefined when empty)
  bool checkpoint_layers_ = false;
};
TORCH_MODULE(ExtractiveScorer);

}  // namespace rpsum::net

#endif  // RPSUM_MODEL_TORCH_ENCODER_H_
