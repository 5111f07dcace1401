// Times one training step (forward + backward) of the scorer by sequence length and attention
// mode: where the trainer's time goes. usage: bench-train-step [L ...]
#include <ATen/ATen.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "model/torch/encoder.h"

using rpsum::net::AttentionImpl;
using rpsum::net::AttentionPlan;

int main(int argc, char** argv) {
  at::set_num_threads(2);
  rpsum::model::Architecture a;
  a.vocab_size = 8000;
  a.hidden_size = std::getenv("D") ? std::atoi(std::getenv("D")) : 192;
  a.ffn_size = 4 * a.hidden_size;
  a.token_layers = std::getenv("NL") ? std::atoi(std::getenv("NL")) : 3;
  a.unit_layers = 2;
  a.max_clip_distance = 256;
  rpsum::net::ExtractiveScorer m(a);
  m->train();
  // CKPT=1: gradient checkpointing of the token layers. Peak RSS is reported per process, so
  // compare two runs: bench-train-step 8192 and CKPT=1 bench-train-step 8192.
  m->set_checkpoint_layers(std::getenv("CKPT") != nullptr);
  std::vector<int64_t> lengths = {1024, 2048, 3072};
  if (argc > 1) {
    lengths.clear();
    for (int i = 1; i < argc; ++i) lengths.push_back(std::atoll(argv[i]));
  }
  for (int64_t l : lengths) {
    for (int mode = std::getenv("LOCAL_ONLY") ? 1 : 0; mode < 2; ++mode) {
      rpsum::net::ModelBatch b;
      b.tokens = at::randint(0, 8000, {1, l}, at::kLong);
      b.token_valid = at::ones({1, l}, at::kBool);
      const int64_t s = l / 24;
      b.unit_pos = (at::arange(s, at::kLong) * 24).view({1, s});
      b.unit_valid = at::ones({1, s}, at::kBool);
      b.features = at::rand({1, s, 6});
      AttentionPlan tp{{64, 64, 64, 64}, mode == 1, 256, AttentionImpl::kAuto};
      AttentionPlan sp{{16, 16, 16, 16}, false, 0, AttentionImpl::kAuto};
      if (std::getenv("PROFILE")) {
        torch::autograd::profiler::RecordProfile guard(std::string(std::getenv("PROFILE")));
        const at::Tensor loss = m->forward(b, tp, sp).sigmoid().sum();
        loss.backward();
      }
      double best = 1e9;
      for (int rep = 0; rep < 3; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const at::Tensor loss = m->forward(b, tp, sp).sigmoid().sum();
        loss.backward();
        const double dt =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        best = std::min(best, dt);
      }
      long hwm = 0;
      {
        std::FILE* f = std::fopen("/proc/self/status", "r");
        char line[256];
        while (f != nullptr && std::fgets(line, sizeof(line), f)) {
          if (std::strncmp(line, "VmHWM:", 6) == 0) hwm = std::atol(line + 6);
        }
        if (f != nullptr) std::fclose(f);
      }
      std::printf("L=%lld %s%s: %.3f s per fwd+bwd, %.0f tokens/s, peak RSS so far %ld MB\n",
                  static_cast<long long>(l), mode ? "local(256)" : "full",
                  std::getenv("CKPT") ? " checkpointed" : "", best, l / best, hwm / 1024);
    }
  }
}
