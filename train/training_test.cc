// A tiny model trained for a few steps on a few documents: the loss falls, and the model
// learns to rank the units the labels mark.
#include "train/training.h"

#include <torch/optim/adamw.h>

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

}  // namespace
}  // namespace rpsum::model
