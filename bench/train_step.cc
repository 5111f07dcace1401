// Times one training step (forward + backward) of the scorer by sequence length and attention
// mode: where the trainer's time goes. usage: bench-train-step [L ...]
// Environment: IMPL (auto, fused, composite or dense: the relative attention's implementation;
// dense materialises the [L, L, d] relative tables, the naive form), BATCH (documents per
// step, default 1), REPS (timed steps, default 3; the median is printed), D, NL, CKPT,
// LOCAL_ONLY, PROFILE. bench/train-step-impl compares the implementations.
#include <ATen/ATen.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "model/torch/encoder.h"

using rpsum::net::AttentionImpl;
using rpsum::net::AttentionPlan;

namespace {

// The process's peak resident memory so far (VmHWM), in KiB.
long PeakKb() {
  long hwm = 0;
  std::FILE* f = std::fopen("/proc/self/status", "r");
  char line[256];
  while (f != nullptr && std::fgets(line, sizeof(line), f)) {
    if (std::strncmp(line, "VmHWM:", 6) == 0) hwm = std::atol(line + 6);
  }
  if (f != nullptr) std::fclose(f);
  return hwm;
}

}  // namespace

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
  const char* impl_name = std::getenv("IMPL") ? std::getenv("IMPL") : "auto";
  const AttentionImpl impl = std::strcmp(impl_name, "fused") == 0       ? AttentionImpl::kFused
                             : std::strcmp(impl_name, "composite") == 0 ? AttentionImpl::kComposite
                             : std::strcmp(impl_name, "dense") == 0     ? AttentionImpl::kDense
                                                                        : AttentionImpl::kAuto;
  const int64_t batch = std::getenv("BATCH") ? std::atoll(std::getenv("BATCH")) : 1;
  const int reps = std::getenv("REPS") ? std::atoi(std::getenv("REPS")) : 3;
  std::vector<int64_t> lengths = {1024, 2048, 3072};
  if (argc > 1) {
    lengths.clear();
    for (int i = 1; i < argc; ++i) lengths.push_back(std::atoll(argv[i]));
  }
  for (int64_t l : lengths) {
    for (int mode = std::getenv("LOCAL_ONLY") ? 1 : 0; mode < 2; ++mode) {
      rpsum::net::ModelBatch b;
      b.tokens = at::randint(0, 8000, {batch, l}, at::kLong);
      b.token_valid = at::ones({batch, l}, at::kBool);
      const int64_t s = l / 24;
      b.unit_pos = (at::arange(s, at::kLong) * 24).view({1, s}).expand({batch, s}).contiguous();
      b.unit_valid = at::ones({batch, s}, at::kBool);
      b.features = at::rand({batch, s, 6});
      AttentionPlan tp{64, mode == 1, 256, impl};
      AttentionPlan sp{16, false, 0, impl};
      if (std::getenv("PROFILE")) {
        torch::autograd::profiler::RecordProfile guard(std::string(std::getenv("PROFILE")));
        const at::Tensor loss = m->forward(b, tp, sp).sigmoid().sum();
        loss.backward();
      }
      const long before_kb = PeakKb();
      std::vector<double> times;
      for (int rep = 0; rep < reps; ++rep) {
        const auto t0 = std::chrono::steady_clock::now();
        const at::Tensor loss = m->forward(b, tp, sp).sigmoid().sum();
        loss.backward();
        times.push_back(
            std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
      std::sort(times.begin(), times.end());
      const double median = times[times.size() / 2];
      const long hwm = PeakKb();
      std::printf(
          "L=%lld %s%s impl=%s batch=%lld: %.4f s per fwd+bwd, %.0f tokens/s, peak RSS so far "
          "%ld MB (%ld MB over the peak before the steps)\n",
          static_cast<long long>(l), mode ? "local(256)" : "full",
          std::getenv("CKPT") ? " checkpointed" : "", impl_name, static_cast<long long>(batch),
          median, static_cast<double>(batch * l) / median, hwm / 1024, (hwm - before_kb) / 1024);
    }
  }
}
