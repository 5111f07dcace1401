#include "model/torch/checkpoint.h"

#include <ATen/ATen.h>
#include <torch/cuda.h>

#include <filesystem>
#include <fstream>

#include "gtest/gtest.h"
#include "model/torch/safetensors.h"

namespace rpsum::net {

using model::ModelConfig;

namespace {

namespace fs = std::filesystem;

ModelConfig TinyConfig() {
  ModelConfig c;
  c.name = "tiny";
  c.architecture.vocab_size = 50;
  c.architecture.hidden_size = 16;
  c.architecture.heads = 2;
  c.architecture.ffn_size = 32;
  c.architecture.token_layers = 2;
  c.architecture.unit_layers = 1;
  c.architecture.max_clip_distance = 8;
  c.architecture.unit_clip_distance = 4;
  c.architecture.num_features = 3;
  c.clip_policy = {2, 1, 8, {1, 2, 4, 8}};
  return c;
}

ModelBatch TinyBatch() {
  ModelBatch b;
  b.tokens = at::randint(0, 50, {2, 20}, at::kLong);
  b.token_valid = at::ones({2, 20}, at::kBool);
  b.token_valid[1].narrow(0, 15, 5).fill_(false);
  b.unit_pos = at::tensor({0, 5, 11, 0, 6, 10}, at::kLong).view({2, 3});
  b.unit_valid = at::ones({2, 3}, at::kBool);
  b.features = at::rand({2, 3, 3});
  return b;
}

class CheckpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("rpsum_ckpt_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    at::manual_seed(1);
    scorer_ = ExtractiveScorer(TinyConfig().architecture);
    scorer_->eval();
    ASSERT_TRUE(SaveCheckpoint(dir_.string(), TinyConfig(), scorer_).ok());
    std::ofstream(dir_ / "tokenizer.model") << "placeholder";
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path dir_;
  ExtractiveScorer scorer_{nullptr};
};

TEST_F(CheckpointTest, SaveLoadGivesIdenticalOutputs) {
  auto loaded = LoadCheckpoint(dir_.string(), "cpu");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->config.ToJson(), TinyConfig().ToJson());
  EXPECT_EQ(loaded->weights_sha256.size(), 64u);
  const ModelBatch batch = TinyBatch();
  const AttentionPlan tp{2, false, 0, AttentionImpl::kAuto};
  const AttentionPlan sp{4, false, 0, AttentionImpl::kAuto};
  at::NoGradGuard no_grad;
  const at::Tensor a = scorer_->forward(batch, tp, sp);
  const at::Tensor b = loaded->scorer->forward(batch, tp, sp);
  EXPECT_TRUE(at::equal(a, b));
}

TEST_F(CheckpointTest, MissingDirectoryAndFilesAreNotFound) {
  EXPECT_EQ(LoadCheckpoint((dir_ / "nope").string(), "cpu").status().code(),
            absl::StatusCode::kNotFound);
  fs::remove(dir_ / "tokenizer.model");
  const auto s = LoadCheckpoint(dir_.string(), "cpu").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("tokenizer"), std::string::npos) << s;
}

TEST_F(CheckpointTest, CorruptWeightsAreAnErrorNotACrash) {
  const fs::path w = dir_ / "weights.safetensors";
  const auto size = fs::file_size(w);
  // Truncated at several points, including inside the header.
  for (uintmax_t cut : {uintmax_t{0}, uintmax_t{4}, uintmax_t{20}, size / 2, size - 1}) {
    fs::copy_file(w, dir_ / "w.bak", fs::copy_options::overwrite_existing);
    fs::resize_file(w, cut);
    const auto s = LoadCheckpoint(dir_.string(), "cpu").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << "cut at " << cut << ": " << s;
    fs::copy_file(dir_ / "w.bak", w, fs::copy_options::overwrite_existing);
  }
  // Garbage header.
  std::ofstream(w, std::ios::trunc) << std::string(8, '\x10') << "{{{{{{{{{{{{{{{{";
  EXPECT_EQ(LoadCheckpoint(dir_.string(), "cpu").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CheckpointTest, MismatchedConfigIsRejectedWithTheParameterNamed) {
  ModelConfig other = TinyConfig();
  other.architecture.ffn_size = 48;
  std::ofstream(dir_ / "config.json", std::ios::trunc) << other.ToJson();
  const auto s = LoadCheckpoint(dir_.string(), "cpu").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("ff1.weight"), std::string::npos) << s;

  other = TinyConfig();
  other.architecture.unit_layers = 0;  // the file has extra tensors
  std::ofstream(dir_ / "config.json", std::ios::trunc) << other.ToJson();
  const auto extra = LoadCheckpoint(dir_.string(), "cpu").status();
  EXPECT_NE(extra.message().find("unexpected tensor"), std::string::npos) << extra;

  std::ofstream(dir_ / "config.json", std::ios::trunc) << R"({"format":"other"})";
  EXPECT_EQ(LoadCheckpoint(dir_.string(), "cpu").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(CheckpointTest, BadDeviceIsAnError) {
  EXPECT_FALSE(LoadCheckpoint(dir_.string(), "tpu:9").ok());
  EXPECT_TRUE(ParseDevice("cpu").ok());
  EXPECT_TRUE(ParseDevice("auto").ok());
}

// A CUDA device this process cannot use (a CPU-only LibTorch, or a GPU index past the last)
// is a clean FailedPrecondition that says so, before the weights are hashed or read: with the
// weights file removed, the answer is still about the device.
TEST_F(CheckpointTest, UnusableCudaFailsBeforeTheWeightsAreRead) {
  fs::remove(dir_ / "weights.safetensors");
  for (const char* device : {"cuda", "cuda:99"}) {
    if (std::string(device) == "cuda" && torch::cuda::is_available()) continue;
    const absl::Status s = LoadCheckpoint(dir_.string(), device).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition) << device << ": " << s;
    EXPECT_NE(s.message().find(device), std::string::npos) << s;
    EXPECT_EQ(s.message().find("weights"), std::string::npos) << s;
  }
}

}  // namespace
}  // namespace rpsum::net
