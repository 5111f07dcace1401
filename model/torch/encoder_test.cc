// The scorer (encoder.h): the inference kernel agrees with the training kernel, padding never
// changes a document's scores, and gradient checkpointing changes memory, not results.
#include "model/torch/encoder.h"

#include <ATen/ATen.h>
#include <torch/csrc/autograd/function.h>

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "model/document.h"

namespace rpsum::net {

using model::Architecture;
using model::kNumFeatures;

namespace {

// Inference (eval, no autograd) runs the tiled band kernel; training runs the fused autograd
// kernel. Both must give the same scores, for full and block-local plans, on a padded batch.
TEST(Encoder, InferenceKernelMatchesTrainingKernel) {
  at::manual_seed(9);
  Architecture a{100, 32, 4, 64, 2, 1, 8, 4, kNumFeatures, 0.1, {}};
  ExtractiveScorer m(a);
  m->eval();
  ModelBatch b;
  const int64_t l = 200, s = 12;
  b.tokens = at::randint(4, 100, {2, l}, at::kLong);
  b.token_valid = at::ones({2, l}, at::kBool);
  b.token_valid[1].narrow(0, 150, 50).fill_(false);
  b.unit_pos = (at::arange(s, at::kLong) * 12).view({1, s}).expand({2, s}).contiguous();
  b.unit_valid = at::ones({2, s}, at::kBool);
  b.unit_valid[1].narrow(0, 10, 2).fill_(false);
  b.features = at::rand({2, s, kNumFeatures});
  at::NoGradGuard no_grad;
  for (const bool local : {false, true}) {
    const AttentionPlan tp{4, local, 16, AttentionImpl::kAuto};
    const AttentionPlan sp{4, local, 3, AttentionImpl::kAuto};
    AttentionPlan tp_fused = tp, sp_fused = sp;
    tp_fused.impl = sp_fused.impl = AttentionImpl::kFused;
    const at::Tensor band = m->forward(b, tp, sp);
    const at::Tensor fused = m->forward(b, tp_fused, sp_fused);
    const at::Tensor valid = b.unit_valid;
    EXPECT_LT((band.index({valid}) - fused.index({valid})).abs().max().item<double>(), 1e-4)
        << "local " << local;
  }
}

// Padding a document (more tokens and units, masked) leaves its scores as they were: the
// encoder's half of batch-invariant answers.
TEST(Encoder, PaddingDoesNotChangeTheScores) {
  at::manual_seed(5);
  Architecture a{100, 32, 4, 64, 2, 1, 8, 4, kNumFeatures, 0.0, {}};
  ExtractiveScorer m(a);
  m->eval();
  at::NoGradGuard no_grad;
  const int64_t l = 90, s = 6;
  ModelBatch one;
  one.tokens = at::randint(4, 100, {1, l}, at::kLong);
  one.token_valid = at::ones({1, l}, at::kBool);
  one.unit_pos = (at::arange(s, at::kLong) * 15).view({1, s});
  one.unit_valid = at::ones({1, s}, at::kBool);
  one.features = at::rand({1, s, kNumFeatures});
  ModelBatch padded;
  padded.tokens = at::cat({one.tokens, at::randint(4, 100, {1, 40}, at::kLong)}, 1);
  padded.token_valid = at::cat({one.token_valid, at::zeros({1, 40}, at::kBool)}, 1);
  padded.unit_pos = at::cat({one.unit_pos, at::zeros({1, 3}, at::kLong)}, 1);
  padded.unit_valid = at::cat({one.unit_valid, at::zeros({1, 3}, at::kBool)}, 1);
  padded.features = at::cat({one.features, at::rand({1, 3, kNumFeatures})}, 1);
  for (const bool local : {false, true}) {
    const AttentionPlan tp{8, local, 16, AttentionImpl::kAuto};
    const AttentionPlan sp{2, local, 2, AttentionImpl::kAuto};
    const at::Tensor a1 = m->forward(one, tp, sp);
    const at::Tensor a2 = m->forward(padded, tp, sp).narrow(1, 0, s);
    EXPECT_LT((a1 - a2).abs().max().item<double>(), 1e-5) << "local " << local;
  }
}

// The number of autograd nodes that back-propagation from `t` would run.
int64_t GraphNodes(const at::Tensor& t) {
  std::set<const torch::autograd::Node*> seen;
  std::vector<const torch::autograd::Node*> todo = {t.grad_fn().get()};
  while (!todo.empty()) {
    const torch::autograd::Node* n = todo.back();
    todo.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    for (const auto& e : n->next_edges()) todo.push_back(e.function.get());
  }
  return static_cast<int64_t>(seen.size());
}

// Checkpointed token layers give the same loss and the same gradients, dropout included, and
// keep far fewer saved activations.
TEST(Encoder, GradientCheckpointingMatchesTheDirectBackward) {
  Architecture a{100, 32, 2, 64, 2, 1, 8, 4, kNumFeatures, 0.1, {}};
  at::manual_seed(9);
  ExtractiveScorer m(a);
  m->train();
  ModelBatch b;
  b.tokens = at::randint(4, 100, {2, 60}, at::kLong);
  b.token_valid = at::ones({2, 60}, at::kBool);
  b.unit_pos = at::tensor({0, 20, 40, 0, 30, 50}, at::kLong).view({2, 3});
  b.unit_valid = at::ones({2, 3}, at::kBool);
  b.features = at::rand({2, 3, kNumFeatures});
  const at::Tensor y = at::tensor({1.f, 0.f, 0.f, 0.f, 1.f, 0.f}).view({2, 3});
  const AttentionPlan tp{4, true, 16, AttentionImpl::kAuto};
  const AttentionPlan sp{4, false, 0, AttentionImpl::kAuto};
  int64_t nodes = 0;  // of the last run's autograd graph
  auto run = [&](bool ckpt) {
    m->set_checkpoint_layers(ckpt);
    m->zero_grad();
    at::manual_seed(77);  // same dropout masks in both runs
    const at::Tensor loss = at::binary_cross_entropy_with_logits(m->forward(b, tp, sp), y);
    nodes = GraphNodes(loss);
    loss.backward();
    std::vector<at::Tensor> g;
    for (const auto& p : m->parameters()) g.push_back(p.grad().clone());
    return std::make_pair(loss.item<double>(), g);
  };
  const auto direct = run(false);
  const int64_t direct_nodes = nodes;
  const auto ckpt = run(true);
  // Checkpointing must actually drop the token layers' activations: each checkpointed layer
  // is one node of the graph (its input saved), not the dozens of nodes, each with its saved
  // tensors, that the direct graph keeps per layer.
  EXPECT_LE(nodes + 20 * a.token_layers, direct_nodes)
      << "checkpointed graph " << nodes << " nodes, direct " << direct_nodes;
  EXPECT_NEAR(direct.first, ckpt.first, 1e-6);
  ASSERT_EQ(direct.second.size(), ckpt.second.size());
  for (size_t i = 0; i < direct.second.size(); ++i) {
    EXPECT_TRUE(at::allclose(direct.second[i], ckpt.second[i], 1e-4, 1e-6)) << "parameter " << i;
  }
}

}  // namespace
}  // namespace rpsum::net
