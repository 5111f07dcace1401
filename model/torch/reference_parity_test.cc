// The C++ attention and the whole scorer against train/reference/rpr_reference.py (Debian's
// python3-torch, float64 dense formula), on the same random weights and inputs.
#include <ATen/ATen.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "model/torch/checkpoint.h"
#include "model/torch/relative_attention.h"
#include "model/torch/safetensors.h"
#include "nlohmann/json.hpp"
#include "testing/source_dir.h"

namespace rpsum::net {

using model::ModelConfig;
using test::TestSourceDir;

namespace {

namespace fs = std::filesystem;

std::string RunReference(const std::string& args) {
  const std::string cmd =
      "/usr/bin/python3 " + TestSourceDir() + "/train/reference/rpr_reference.py " + args + " 2>&1";
  const int rc = std::system(cmd.c_str());
  return rc == 0 ? "" : "reference failed: " + cmd;
}

fs::path TempDir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("rpsum_parity_" + std::to_string(::getpid()) + name);
  fs::create_directories(p);
  return p;
}

double MaxDiffValid(const at::Tensor& a, const at::Tensor& b, const at::Tensor& valid) {
  // a, b: [B, H, L, d]; compare rows of valid queries.
  const at::Tensor d = (a - b).abs().transpose(1, 2).index({valid});
  return d.numel() == 0 ? 0.0 : d.max().item<double>();
}

TEST(ReferenceParity, AttentionMatchesPythonDenseFormula) {
  struct Case {
    int64_t l;
    int64_t k;
    int64_t window;  // 0: full
  };
  std::vector<Case> cases;
  for (int64_t l : {1, 2, 7, 64, 300}) {
    for (int64_t k : {1, 4, 64, 320}) cases.push_back({l, k, 0});
  }
  cases.push_back({300, 8, 50});  // block-local
  cases.push_back({64, 4, 7});

  at::manual_seed(42);
  NamedTensors tensors;
  nlohmann::json meta = nlohmann::json::array();
  std::vector<std::vector<at::Tensor>> inputs;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    const std::string p = "case" + std::to_string(i) + ".";
    at::Tensor valid = at::ones({2, c.l}, at::kBool);
    if (c.l > 2) valid[1].narrow(0, c.l - c.l / 3, c.l / 3).fill_(false);
    std::vector<at::Tensor> in = {at::randn({2, 4, c.l, 8}),   at::randn({2, 4, c.l, 8}),
                                  at::randn({2, 4, c.l, 8}),   at::randn({2 * 320 + 1, 8}),
                                  at::randn({2 * 320 + 1, 8}), valid};
    const char* names[] = {"q", "k", "v", "rel_k", "rel_v", "valid"};
    for (int j = 0; j < 6; ++j) tensors.emplace_back(p + names[j], in[j]);
    nlohmann::json m = {{"k", c.k}};
    if (c.window > 0) m["window"] = c.window;
    meta.push_back(m);
    inputs.push_back(in);
  }
  const fs::path dir = TempDir("attn");
  ASSERT_TRUE(
      WriteSafetensors((dir / "in.safetensors").string(), tensors, {{"cases", meta.dump()}}).ok());
  ASSERT_EQ(RunReference("attention " + (dir / "in.safetensors").string() + " " +
                         (dir / "out.safetensors").string()),
            "");
  auto out = ReadSafetensors((dir / "out.safetensors").string());
  ASSERT_TRUE(out.ok()) << out.status();
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& in = inputs[i];
    const at::Tensor& ref = out->at("case" + std::to_string(i) + ".z");
    for (AttentionImpl impl : {AttentionImpl::kComposite, AttentionImpl::kFused}) {
      const at::Tensor z =
          cases[i].window > 0
              ? LocalRelativeAttend(in[0], in[1], in[2], in[3], in[4], cases[i].k, in[5],
                                    cases[i].window, impl)
              : RelativeAttend(in[0], in[1], in[2], in[3], in[4], cases[i].k, in[5], {}, impl);
      EXPECT_LT(MaxDiffValid(z, ref, in[5]), 1e-5)
          << "case " << i << " L=" << cases[i].l << " k=" << cases[i].k
          << " impl=" << static_cast<int>(impl);
    }
  }
  fs::remove_all(dir);
}

TEST(ReferenceParity, WholeScorerMatchesPython) {
  ModelConfig c;
  c.architecture = {60, 32, 4, 64, 2, 2, 16, 8, 3, 0.1, {}};
  at::manual_seed(5);
  ExtractiveScorer scorer(c.architecture);
  scorer->eval();
  const fs::path dir = TempDir("scorer");
  ASSERT_TRUE(SaveCheckpoint(dir.string(), c, scorer).ok());

  ModelBatch b;
  b.tokens = at::randint(0, 60, {2, 90}, at::kLong);
  b.token_valid = at::ones({2, 90}, at::kBool);
  b.token_valid[1].narrow(0, 70, 20).fill_(false);
  b.unit_pos = at::tensor({0, 10, 30, 55, 80, 0, 12, 40, 60, 0}, at::kLong).view({2, 5});
  b.unit_valid = at::ones({2, 5}, at::kBool);
  b.unit_valid[1][4] = false;
  b.features = at::rand({2, 5, 3});
  for (bool local : {false, true}) {
    const AttentionPlan tp{8, local, 20, AttentionImpl::kAuto};
    const AttentionPlan sp{2, local, 2, AttentionImpl::kAuto};
    nlohmann::json plan = {{"token_k", tp.k}, {"unit_k", sp.k}};
    if (local) plan.update({{"token_window", 20}, {"unit_window", 2}});
    ASSERT_TRUE(WriteSafetensors((dir / "batch.safetensors").string(),
                                 {{"tokens", b.tokens},
                                  {"token_valid", b.token_valid},
                                  {"unit_pos", b.unit_pos},
                                  {"unit_valid", b.unit_valid},
                                  {"features", b.features}},
                                 {{"plan", plan.dump()}})
                    .ok());
    ASSERT_EQ(RunReference("scorer " + dir.string() + " " + (dir / "batch.safetensors").string() +
                           " " + (dir / "logits.safetensors").string()),
              "");
    auto ref = ReadSafetensors((dir / "logits.safetensors").string());
    ASSERT_TRUE(ref.ok());
    at::NoGradGuard no_grad;
    const at::Tensor logits = scorer->forward(b, tp, sp);
    const at::Tensor diff = (logits - ref->at("logits")).abs().index({b.unit_valid});
    EXPECT_LT(diff.max().item<double>(), 1e-5) << "local=" << local;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rpsum::net
