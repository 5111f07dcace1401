// A tiny model trained for a few steps on a few documents: the loss falls, and the model
// learns to rank the units the labels mark.
#include "train/training.h"

#include <torch/optim/adamw.h>

#include <cmath>
#include <map>
#include <set>
#include <string>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "model/document.h"
#include "model/torch/checkpoint.h"
#include "model/torch/encoder.h"
#include "model/torch/inference.h"
#include "testing/word_tokenizer.h"

namespace rpsum::train {

using model::Architecture;
using model::DocumentInput;
using model::kFeatureContentCentrality;
using model::kFeatureSectionPosition;
using model::kFeatureSectionStart;
using model::kNumFeatures;
using model::kNumFeaturesV1;
using model::Prepare;
using model::PreparedDocument;
using net::AssignWeights;
using net::AttentionImpl;
using net::AttentionPlan;
using net::ExtractiveScorer;
using net::MakeBatch;
using net::ModelBatch;

namespace {

using test::WordTokenizer;

// The tiny network of these tests: one token and one unit layer of width 32, 2 heads, token
// clip distance 8, unit clip distance 4, no dropout.
Architecture TinyArchitecture(int64_t vocab, int64_t token_layers, int64_t num_features) {
  Architecture a;
  a.vocab_size = vocab;
  a.hidden_size = 32;
  a.heads = 2;
  a.ffn_size = 64;
  a.token_layers = token_layers;
  a.unit_layers = 1;
  a.max_clip_distance = 8;
  a.unit_clip_distance = 4;
  a.num_features = num_features;
  a.dropout = 0.0;
  return a;
}

// Prepares `text` (no title) with the test tokenizer.
PreparedDocument PrepareText(const std::string& text, const WordTokenizer& tok) {
  DocumentInput in;
  in.document = text;
  auto p = Prepare(in, tok, {});
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *std::move(p) : PreparedDocument();
}

// `phrase` `times` times over, prepared with the test tokenizer (the head tests' documents).
PreparedDocument RepeatedPhrase(const std::string& phrase, int times, const WordTokenizer& tok) {
  std::string text;
  for (int i = 0; i < times; ++i) text += phrase;
  return PrepareText(text, tok);
}

// The parameters of a model and of a head that trains beside it, for one optimizer.
std::vector<at::Tensor> ModelAndHead(const torch::nn::Module& model,
                                     const torch::nn::Module& head) {
  std::vector<at::Tensor> params = model.parameters();
  for (const at::Tensor& t : head.parameters()) params.push_back(t);
  return params;
}

// Trains a tiny model for 40 steps on three documents whose units mentioning "proposal" are
// the summary, with `loss(logits, labels, valid)`; expects the loss to halve and every
// labelled unit to outscore every unlabelled one of its document.
template <typename Loss>
void TrainTinyModel(Loss loss_fn) {
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
      const std::string_view text = p->UnitText(in, u);
      const bool summary =
          absl::StrContains(absl::string_view(text.data(), text.size()), "proposal");
      l.push_back(summary ? 1.f : 0.f);
    }
    docs.push_back(*std::move(p));
    labels.push_back(l);
  }
  const Architecture a = TinyArchitecture(100, 1, kNumFeatures);
  ExtractiveScorer m(a);
  m->train();
  torch::optim::AdamW opt(m->parameters(), torch::optim::AdamWOptions(1e-2));
  std::vector<const PreparedDocument*> ptrs;
  ptrs.reserve(docs.size());
  for (const auto& d : docs) ptrs.push_back(&d);
  const ModelBatch batch = MakeBatch(ptrs, tok.pad_id(), at::kCPU);
  at::Tensor y = at::zeros(batch.unit_valid.sizes());
  for (size_t i = 0; i < labels.size(); ++i) {
    for (size_t j = 0; j < labels[i].size(); ++j) y[i][j] = labels[i][j];
  }
  const AttentionPlan tp{4, false, 0, AttentionImpl::kAuto};
  const AttentionPlan sp{4, false, 0, AttentionImpl::kAuto};
  std::vector<double> losses;
  for (int step = 0; step < 40; ++step) {
    const at::Tensor loss = loss_fn(m->forward(batch, tp, sp), y, batch.unit_valid);
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
      if (labels[i][j] > 0) {
        min_pos = std::min(min_pos, v);
      } else {
        max_neg = std::max(max_neg, v);
      }
    }
    EXPECT_GT(min_pos, max_neg) << "document " << i;
  }
}

TEST(Training, LossFallsOnATinyModel) {
  TrainTinyModel([](const at::Tensor& logits, const at::Tensor& y, const at::Tensor& valid) {
    return ExtractiveLoss(logits, y, valid, 2.0);
  });
}

// Fine-tuning a network that reads more feature columns (architecture.feature_columns) from
// one that reads the first six: the widened network scores exactly as the one it started from
// until its new columns' weights move, reads the columns its config lists (not the first
// ones), and a checkpoint whose columns are not the first of the new list is refused.
TEST(Training, WidenedFeatureProjectionStartsFromTheGivenNetwork) {
  at::manual_seed(6);
  WordTokenizer tok(100);
  const PreparedDocument p = PrepareText(
      "Design\nThe queue is split in two. Workers pick the oldest request first.\n"
      "Metrics\nEvery retry is counted. Tests run on every change.",
      tok);
  ASSERT_FALSE(p.kept.empty());
  const Architecture six = TinyArchitecture(100, 1, kNumFeaturesV1);
  Architecture wide = six;
  wide.num_features = 8;
  wide.feature_columns = {0, 1, 2, 3, 4, 5, kFeatureSectionPosition, kFeatureSectionStart};
  ExtractiveScorer from(six), to(wide);
  from->eval();
  to->eval();
  std::map<std::string, at::Tensor> weights;
  for (const auto& item : from->named_parameters()) weights[item.key()] = item.value().clone();
  ASSERT_TRUE(WidenFeatureProjection(six, wide, &weights).ok());
  ASSERT_EQ(weights.at("feature_proj.weight").size(1), 8);
  ASSERT_TRUE(AssignWeights(to, weights, "test").ok());
  at::NoGradGuard no_grad;
  ModelBatch batch = MakeBatch({&p}, tok.pad_id(), at::kCPU);
  const AttentionPlan plan{4, false, 0, AttentionImpl::kAuto};
  const at::Tensor before = from->forward(batch, plan, plan);
  EXPECT_TRUE(at::equal(to->forward(batch, plan, plan), before));
  // Its new columns read features 8 and 9: with weights there, feature 9 moves the scores and a
  // column it does not read (7, content centrality) does not.
  // (Random weights: a constant one adds a multiple of (1, ..., 1), which LayerNorm removes.)
  to->feature_proj->weight.narrow(1, 6, 2).copy_(at::randn({32, 2}));
  const at::Tensor widened = to->forward(batch, plan, plan);
  ModelBatch other = batch;
  other.features = batch.features.clone();
  other.features.select(-1, kFeatureContentCentrality).fill_(5.f);
  EXPECT_TRUE(at::equal(to->forward(other, plan, plan), widened));
  other.features.select(-1, kFeatureSectionStart).fill_(5.f);
  EXPECT_FALSE(at::allclose(to->forward(other, plan, plan), widened));
  // Not a prefix: refused, the weights untouched.
  Architecture reordered = wide;
  reordered.feature_columns = {1, 0, 2, 3, 4, 5, 8, 9};
  std::map<std::string, at::Tensor> original;
  for (const auto& item : from->named_parameters()) original[item.key()] = item.value();
  const absl::Status refused = WidenFeatureProjection(six, reordered, &original);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument) << refused;
  EXPECT_EQ(original.at("feature_proj.weight").size(1), 6);
}

TEST(Training, MaskTokensChoosesOrdinaryTokensAtTheRatioAndIsSeeded) {
  // Two rows of 4,000 positions: a marker every 20, ordinary pieces between; row 1 ends in 1,000
  // padding positions.
  const int64_t vocab = 500, len = 4000, marker = 1, pad = 3;
  at::Tensor tokens = at::empty({2, len}, at::kLong);
  at::Tensor valid = at::ones({2, len}, at::kBool);
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < len; ++j) tokens[i][j] = j % 20 == 0 ? marker : kFirstPieceId + j % 97;
  }
  tokens[1].narrow(0, 3000, 1000).fill_(pad);
  valid[1].narrow(0, 3000, 1000).fill_(false);
  const MaskedTokens m = MaskTokens(tokens, valid, marker, vocab, 0.15, 42);
  int64_t eligible = 0, chosen = 0, masked = 0, kept = 0, replaced = 0;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < len; ++j) {
      const int64_t t = tokens[i][j].item<int64_t>(), in = m.input[i][j].item<int64_t>(),
                    target = m.target[i][j].item<int64_t>();
      const bool ordinary = valid[i][j].item<bool>() && t != marker;
      eligible += ordinary ? 1 : 0;
      if (target < 0) {
        EXPECT_EQ(in, t) << i << "," << j << ": unchosen tokens stay";
        continue;
      }
      ASSERT_TRUE(ordinary) << i << "," << j << ": a marker or padding was chosen";
      EXPECT_EQ(target, t);
      ++chosen;
      if (in == kMaskId) {
        ++masked;
      } else if (in == t) {
        ++kept;
      } else {
        ++replaced;
        EXPECT_GE(in, kFirstPieceId);
        EXPECT_LT(in, vocab);
      }
    }
  }
  // 6,650 eligible tokens: 15% is ~998 (sd ~29); of those 80 / 10 / 10% (a token replaced by
  // itself counts as kept).
  EXPECT_NEAR(static_cast<double>(chosen) / static_cast<double>(eligible), 0.15, 0.015);
  EXPECT_NEAR(static_cast<double>(masked) / static_cast<double>(chosen), 0.8, 0.04);
  EXPECT_NEAR(static_cast<double>(kept) / static_cast<double>(chosen), 0.1, 0.03);
  EXPECT_NEAR(static_cast<double>(replaced) / static_cast<double>(chosen), 0.1, 0.03);
  // The seed decides everything: the same one repeats it, another does not.
  const MaskedTokens again = MaskTokens(tokens, valid, marker, vocab, 0.15, 42);
  EXPECT_TRUE(at::equal(again.input, m.input));
  EXPECT_TRUE(at::equal(again.target, m.target));
  EXPECT_FALSE(at::equal(MaskTokens(tokens, valid, marker, vocab, 0.15, 43).target, m.target));
  // The input tensor itself is left alone.
  EXPECT_EQ(tokens[0][1].item<int64_t>(), kFirstPieceId + 1);
}

TEST(Training, MaskedTokenHeadLearnsToFillInATinyModelsMasks) {
  at::manual_seed(5);
  WordTokenizer tok(60);
  // Documents made of one repeated phrase: each masked word is fixed by its neighbours.
  const PreparedDocument p = RepeatedPhrase("the cache keeps every request of the user. ", 12, tok);
  ASSERT_FALSE(p.kept.empty());
  const std::vector<const PreparedDocument*> ptrs = {&p, &p};
  const ModelBatch batch = MakeBatch(ptrs, tok.pad_id(), at::kCPU);
  const Architecture a = TinyArchitecture(60, 2, kNumFeatures);
  ExtractiveScorer m(a);
  MaskedTokenHead head(32, 60);
  torch::optim::AdamW opt(ModelAndHead(*m, *head), torch::optim::AdamWOptions(1e-2));
  const AttentionPlan tp{8, false, 0, AttentionImpl::kAuto};
  std::vector<double> losses;
  for (int step = 0; step < 200; ++step) {
    const MaskedTokens mt =
        MaskTokens(batch.tokens, batch.token_valid, tok.marker_id(), 60, 0.15, step);
    ModelBatch masked = batch;
    masked.tokens = mt.input;
    const at::Tensor loss = head->Loss(m->EncodeTokens(masked, tp), mt.target, m->embed->weight);
    opt.zero_grad();
    loss.backward();
    opt.step();
    losses.push_back(loss.item<double>());
  }
  // From about ln(60) = 4.1 to a small fraction of it: word frequencies alone stop near 2 (the
  // first 60 steps), the context takes it below 0.5 by step 150 or so.
  EXPECT_GT(losses.front(), 3.0);
  double last = 0;
  for (size_t i = losses.size() - 20; i < losses.size(); ++i) last += losses[i] / 20;
  EXPECT_LT(last, 0.15 * losses.front()) << losses.front() << " -> " << last;
  // No chosen position: a zero loss that still backpropagates.
  const at::Tensor none = at::full_like(batch.tokens, -1);
  const at::Tensor zero = head->Loss(m->EncodeTokens(batch, tp), none, m->embed->weight);
  EXPECT_EQ(zero.item<double>(), 0.0);
  zero.backward();
}

}  // namespace
}  // namespace rpsum::train
