#include "model/summarizer.h"

#include "gtest/gtest.h"

namespace rpsum::model {
namespace {

// The server's --device per worker (issue 17): cuda spreads the workers over the GPUs; an
// explicit device is every worker's; auto falls back to the CPU without GPUs.
TEST(WorkerDevice, SpreadsWorkersOverTheGpus) {
  EXPECT_EQ(WorkerDevice("cuda", 0, 2), "cuda:0");
  EXPECT_EQ(WorkerDevice("cuda", 1, 2), "cuda:1");
  EXPECT_EQ(WorkerDevice("cuda", 2, 2), "cuda:0");
  EXPECT_EQ(WorkerDevice("auto", 3, 4), "cuda:3");
  EXPECT_EQ(WorkerDevice("auto", 3, 0), "cpu");
  EXPECT_EQ(WorkerDevice("cpu", 1, 8), "cpu");
  EXPECT_EQ(WorkerDevice("cuda:1", 0, 8), "cuda:1");
  EXPECT_EQ(WorkerDevice("cuda:1", 5, 8), "cuda:1");
  // Without a GPU "cuda" stays "cuda", so loading fails with the loader's message.
  EXPECT_EQ(WorkerDevice("cuda", 0, 0), "cuda");
}

TEST(ClipDistanceFor, PolicyOverrideAndClamp) {
  ModelConfig c;
  c.architecture.max_clip_distance = 64;
  c.clip_policy = ClipPolicy();  // ratio 8, min 2, max 64
  EXPECT_EQ(ClipDistanceFor(c, 64), 8);
  EXPECT_EQ(ClipDistanceFor(c, 64, 32), 32);
  EXPECT_EQ(ClipDistanceFor(c, 64, 1000), 64);  // clamped to the tables
}

}  // namespace
}  // namespace rpsum::model
