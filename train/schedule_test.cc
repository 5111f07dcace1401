#include "train/schedule.h"

#include <algorithm>
#include <set>

#include "gtest/gtest.h"

namespace rpsum::train {

using model::ClipDistanceFor;
using model::ModelConfig;

namespace {

TEST(LengthBatches, EveryDocumentOnceUnderTheBudget) {
  const std::vector<int64_t> lengths = {900, 100, 3000, 120, 500, 110, 9000, 480};
  const auto batches = LengthBatches(lengths, 1000);
  std::multiset<size_t> seen;
  for (const auto& b : batches) {
    ASSERT_FALSE(b.empty());
    int64_t longest = 0;
    for (size_t i : b) {
      seen.insert(i);
      longest = std::max(longest, lengths[i]);
    }
    // Over budget only as a batch of one.
    if (b.size() > 1) {
      EXPECT_LE(longest * static_cast<int64_t>(b.size()), 1000);
    }
  }
  EXPECT_EQ(seen, (std::multiset<size_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // Similar lengths together: the three short ones share a batch.
  EXPECT_EQ(batches.front(), (std::vector<size_t>{1, 5, 3}));
  EXPECT_EQ(batches.back(), (std::vector<size_t>{6}));
}

TEST(LearningRate, WarmsUpThenDecaysToATenth) {
  EXPECT_DOUBLE_EQ(LearningRate(0, 100, 1000, 1.0), 0.01);
  EXPECT_DOUBLE_EQ(LearningRate(99, 100, 1000, 1.0), 1.0);
  EXPECT_DOUBLE_EQ(LearningRate(100, 100, 1000, 1.0), 1.0);
  EXPECT_NEAR(LearningRate(550, 100, 1000, 1.0), 0.5, 1e-12);
  EXPECT_DOUBLE_EQ(LearningRate(1000, 100, 1000, 1.0), 0.1);
  EXPECT_DOUBLE_EQ(LearningRate(5000, 100, 1000, 1.0), 0.1);
}

TEST(EpochOrder, APermutationFixedBySeedAndEpoch) {
  const auto a = EpochOrder(50, 1, 0), b = EpochOrder(50, 1, 0), c = EpochOrder(50, 1, 1);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i < sorted.size(); ++i) EXPECT_EQ(sorted[i], i);
}

TEST(TrainingClipDistance, HalfPolicyHalfBucketsAndRepeatable) {
  ModelConfig c;
  c.architecture.max_clip_distance = 256;
  c.clip_policy.ratio = 8;
  c.clip_policy.min = 4;
  c.clip_policy.max = 16;
  c.clip_policy.buckets = {4, 8, 16, 32, 64, 128, 256};
  const int64_t policy = ClipDistanceFor(c, 4096);
  int at_policy = 0;
  std::set<int64_t> seen;
  for (int64_t step = 0; step < 400; ++step) {
    const int64_t k = TrainingClipDistance(c, 1, step, 4096);
    EXPECT_EQ(k, TrainingClipDistance(c, 1, step, 4096));
    at_policy += k == policy;
    seen.insert(k);
  }
  EXPECT_GT(at_policy, 160);  // about half, plus the random draws that land on it
  EXPECT_LT(at_policy, 320);
  EXPECT_EQ(seen.size(), c.clip_policy.buckets.size());
}

TEST(Progress, RoundTripsThroughJson) {
  Progress p;
  p.step = 722;
  p.best = 74.5;
  p.best_epoch = 2;
  p.bad_epochs = 1;
  p.trained_seconds = 3600.5;
  p.history_json = R"([{"epoch":1,"r1":36.0}])";
  auto q = Progress::FromJson(p.ToJson());
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_EQ(q->step, 722);
  EXPECT_DOUBLE_EQ(q->best, 74.5);
  EXPECT_EQ(q->best_epoch, 2);
  EXPECT_EQ(q->bad_epochs, 1);
  EXPECT_DOUBLE_EQ(q->trained_seconds, 3600.5);
  EXPECT_EQ(q->history_json, p.history_json);
}

TEST(Progress, ACorruptFileIsDataLoss) {
  EXPECT_EQ(Progress::FromJson("{\"step\": 3").status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(Progress::FromJson("{}").status().code(), absl::StatusCode::kDataLoss);
}

// 10 steps per epoch, 2 epochs (20 steps), patience 2.
TEST(NextAfter, ValidatesAnEpochWhoseStepsAreDoneBeforeTrainingOn) {
  auto next = [](int64_t step, const char* history, int bad_epochs = 0) {
    Progress p;
    p.step = step;
    p.history_json = history;
    p.bad_epochs = bad_epochs;
    return NextAfter(p, 10, 20, 2);
  };
  auto is = [](NextAction a, NextAction::Kind kind, int epoch) {
    return a.kind == kind && a.epoch == epoch;
  };
  EXPECT_TRUE(is(next(0, "[]"), NextAction::kTrain, 0));
  EXPECT_TRUE(is(next(7, "[]"), NextAction::kTrain, 0));
  // Stopped (time limit, killed) after epoch 1's last step and before its validation.
  EXPECT_TRUE(is(next(10, "[]"), NextAction::kValidate, 0));
  EXPECT_TRUE(is(next(10, R"([{"epoch":1}])"), NextAction::kTrain, 1));
  EXPECT_TRUE(is(next(15, R"([{"epoch":1}])"), NextAction::kTrain, 1));
  EXPECT_TRUE(is(next(20, R"([{"epoch":1}])"), NextAction::kValidate, 1));
  EXPECT_TRUE(is(next(20, R"([{"epoch":1},{"epoch":2}])"), NextAction::kDone, -1));
  // Patience ran out: a rerun does not train on.
  EXPECT_TRUE(is(next(10, R"([{"epoch":1}])", 2), NextAction::kDone, -1));
  // A step budget that ends mid-epoch (--max_steps): that partial epoch is validated once.
  Progress p;
  p.step = 14;
  p.history_json = R"([{"epoch":1}])";
  EXPECT_TRUE(is(NextAfter(p, 10, 14, 2), NextAction::kValidate, 1));
  p.history_json = R"([{"epoch":1},{"epoch":2}])";
  EXPECT_TRUE(is(NextAfter(p, 10, 14, 2), NextAction::kDone, -1));
}

}  // namespace
}  // namespace rpsum::train
