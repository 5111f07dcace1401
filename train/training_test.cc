// A tiny model trained for a few steps on a few documents: the loss falls, and the model
// learns to rank the units the labels mark.
#include "train/training.h"

#include <torch/csrc/autograd/function.h>
#include <torch/optim/adamw.h>

#include <set>

#include "gtest/gtest.h"
#include "model/document.h"
#include "model/torch/encoder.h"
#include "model/torch/inference.h"
#include "testing/word_tokenizer.h"

namespace rpsum::model {
namespace {

using testing::WordTokenizer;

TEST(Training, LossFallsOnATinyModel) {
  at::manual_seed(3);
  WordTokenizer tok(100);
  // Units mentioning "proposal" are the summary.
  const std::vector<std::string> texts = {
      "Background\nThe old cache is slow. This proposal adds a new cache. Tests run daily.\n"
      "Numbers were measured on Tuesday. The proposal keeps the old format.",
      "Motivation\nUsers wait too long. Our proposal batches requests. Lunch is at noon.\n"
      "The office is quiet. Logs are kept for a week.",
      "Design\nThe proposal splits the queue. Workers pick the oldest request. Weather is fine.\n"
      "The proposal adds metrics too.",
  };
  std::vector<PreparedDocument> docs;
  std::vector<std::vector<float>> labels;
  for (const auto& t : texts) {
    DocumentInput in;
    in.document = t;
    auto p = Prepare(in, tok, {});
    ASSERT_TRUE(p.ok());
    std::vector<float> l;
    for (int32_t u : p->kept) {
      l.push_back(p->UnitText(in, u).find("proposal") != std::string_view::npos ? 1.f : 0.f);
    }
    docs.push_back(*std::move(p));
    labels.push_back(l);
  }
  Architecture a{100, 32, 2, 64, 1, 1, 8, 4, kNumFeatures, 0.0, {}};
  ExtractiveScorer m(a);
  m->train();
  torch::optim::AdamW opt(m->parameters(), torch::optim::AdamWOptions(1e-2));
  std::vector<const PreparedDocument*> ptrs;
  for (const auto& d : docs) ptrs.push_back(&d);
  const ModelBatch batch = MakeBatch(ptrs, tok.pad_id(), at::kCPU);
  at::Tensor y = at::zeros(batch.sentence_valid.sizes());
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = 0; j < labels[i].size(); ++j) y[i][j] = labels[i][j];
  }
  const AttentionPlan tp{{4, 4}, false, 0, AttentionImpl::kAuto};
  const AttentionPlan sp{{4, 4}, false, 0, AttentionImpl::kAuto};
  std::vector<double> losses;
  for (int step = 0; step < 40; ++step) {
    const at::Tensor loss = ExtractiveLoss(m->forward(batch, tp, sp), y, batch.sentence_valid, 2.0);
    opt.zero_grad();
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  EXPECT_LT(losses.back(), 0.5 * losses.front()) << losses.front() << " -> " << losses.back();
  m->eval();
  at::NoGradGuard no_grad;
  const at::Tensor logits = m->forward(batch, tp, sp);
  // Every labelled unit now outscores every unlabelled one of its document.
  for (size_t i = 0; i < labels.size(); ++i) {
    float min_pos = 1e9, max_neg = -1e9;
    for (size_t j = 0; j < labels[i].size(); ++j) {
      const float v = logits[i][j].item<float>();
      if (labels[i][j] > 0)
        min_pos = std::min(min_pos, v);
      else
        max_neg = std::max(max_neg, v);
    }
    EXPECT_GT(min_pos, max_neg) << "document " << i;
  }
}

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
  b.sentence_pos = (at::arange(s, at::kLong) * 12).view({1, s}).expand({2, s}).contiguous();
  b.sentence_valid = at::ones({2, s}, at::kBool);
  b.sentence_valid[1].narrow(0, 10, 2).fill_(false);
  b.features = at::rand({2, s, kNumFeatures});
  at::NoGradGuard no_grad;
  for (const bool local : {false, true}) {
    const AttentionPlan tp{{2, 4, 8, 8}, local, 16, AttentionImpl::kAuto};
    const AttentionPlan sp{{4, 4, 4, 4}, local, 3, AttentionImpl::kAuto};
    AttentionPlan tp_fused = tp, sp_fused = sp;
    tp_fused.impl = sp_fused.impl = AttentionImpl::kFused;
    const at::Tensor band = m->forward(b, tp, sp);
    const at::Tensor fused = m->forward(b, tp_fused, sp_fused);
    const at::Tensor valid = b.sentence_valid;
    EXPECT_LT((band.index({valid}) - fused.index({valid})).abs().max().item<double>(), 1e-4)
        << "local " << local;
  }
}

}  // namespace
}  // namespace rpsum::model

namespace rpsum::model {
namespace {

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
TEST(Training, GradientCheckpointingMatchesTheDirectBackward) {
  Architecture a{100, 32, 2, 64, 2, 1, 8, 4, kNumFeatures, 0.1, {}};
  at::manual_seed(9);
  ExtractiveScorer m(a);
  m->train();
  ModelBatch b;
  b.tokens = at::randint(4, 100, {2, 60}, at::kLong);
  b.token_valid = at::ones({2, 60}, at::kBool);
  b.sentence_pos = at::tensor({0, 20, 40, 0, 30, 50}, at::kLong).view({2, 3});
  b.sentence_valid = at::ones({2, 3}, at::kBool);
  b.features = at::rand({2, 3, kNumFeatures});
  const at::Tensor y = at::tensor({1.f, 0.f, 0.f, 0.f, 1.f, 0.f}).view({2, 3});
  const AttentionPlan tp{{4, 4}, true, 16, AttentionImpl::kAuto};
  const AttentionPlan sp{{4, 4}, false, 0, AttentionImpl::kAuto};
  int64_t nodes = 0;  // of the last run's autograd graph
  auto run = [&](bool ckpt) {
    m->set_checkpoint_layers(ckpt);
    m->zero_grad();
    at::manual_seed(77);  // same dropout masks in both runs
    const at::Tensor loss = ExtractiveLoss(m->forward(b, tp, sp), y, b.sentence_valid, 2.0);
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
}  // namespace rpsum::model
