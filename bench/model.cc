// bench-model: the whole model's forward (the shipped shape: 3 token layers and 2 sentence
// layers of d=192, 4 heads) by document length, 1k to 32k tokens: block-local attention past
// the threshold (what the server runs) against full attention, the dynamic clip distance (the
// shipped policy: k=16 at these lengths) against a fixed k=256 (the table's maximum). Reports
// time (median), peak RSS, the forward's counted FLOPs per second against the sgemm peak
// measured in the same run with the same threads, and the exponent of time vs length past the
// local-attention threshold (least squares on log-log). Each case runs in a child process
// (this binary re-executed) so that its peak RSS is its own.
//   bench-model [--runs 3] [--threads 2] [--out bench/results]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <torch/csrc/autograd/profiler_legacy.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "model/encoder.h"
#include "nlohmann/json.hpp"

namespace rpsum::bench {
namespace {

constexpr int64_t kHidden = 192, kHeads = 4, kFfn = 768, kTokenLayers = 3, kSentenceLayers = 2;
constexpr int64_t kLocalThreshold = 1024, kWindow = 256, kSentenceWindow = 128;
constexpr int64_t kTokensPerUnit = 25;

// Model FLOPs (what the model's math needs, not what a kernel happens to compute): query-key
// pairs inside the band |i - j| <= w (all L^2 pairs for full attention), counted twice (scores
// and weighted values), plus the relative terms (q . aK over 2k+1 buckets, buckets . aV) and
// the projections and FFN. Masked or padded work a kernel does on top is not counted, so
// this is model FLOP utilization in the usual sense.
double BandPairs(double l, double w) { return w >= l - 1 ? l * l : l * (2 * w + 1) - w * (w + 1); }

double LayerFlops(double n, double pairs, double k) {
  const double d = kHidden;
  const double linear = 2 * n * (d * 3 * d + d * d + 2 * d * kFfn);
  const double attention = 2 * 2 * pairs * d;
  const double relative = 2 * 2 * n * (2 * k + 1) * d;
  return linear + attention + relative;
}

double ForwardFlops(int64_t l, bool local, int64_t k) {
  const int64_t s = std::max<int64_t>(1, l / kTokensPerUnit);
  const double token_pairs = local && l > kLocalThreshold ? BandPairs(l, kWindow) : 1.0 * l * l;
  const double sent_pairs =
      local && s > kLocalThreshold ? BandPairs(s, kSentenceWindow) : 1.0 * s * s;
  return kTokenLayers * LayerFlops(l, token_pairs, k) +
         kSentenceLayers * LayerFlops(s, sent_pairs, 16);
}

// Child: prints "seconds rss_kb".
int Child(const std::string& kind, int64_t l, int64_t k, int runs, int threads) {
  at::set_num_threads(threads);
  at::manual_seed(1);
  c10::InferenceMode guard;
  const long base = PeakRssKb();
  std::vector<double> times;
  if (kind == "sgemm") {
    const at::Tensor a = at::randn({l, l}), b = at::randn({l, l});
    for (int r = 0; r <= runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      at::Tensor c = at::mm(a, b);
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) times.push_back(dt);
    }
  } else {
    model::Architecture a;
    a.vocab_size = 8000;
    a.hidden_size = kHidden;
    a.heads = kHeads;
    a.ffn_size = kFfn;
    a.token_layers = kTokenLayers;
    a.sentence_layers = kSentenceLayers;
    a.max_clip_distance = 256;
    a.num_features = 6;
    model::ExtractiveScorer m(a);
    m->eval();
    // RPSUM_BENCH_BATCH=B: B documents of the same length in one forward (no padding), to
    // compare batched against one-at-a-time cost per document.
    const char* batch_env = std::getenv("RPSUM_BENCH_BATCH");
    const int64_t nb = batch_env != nullptr ? std::max(1, std::atoi(batch_env)) : 1;
    model::ModelBatch b;
    b.tokens = at::randint(4, 8000, {nb, l}, at::kLong);
    b.token_valid = at::ones({nb, l}, at::kBool);
    const int64_t s = std::max<int64_t>(1, l / kTokensPerUnit);
    b.sentence_pos =
        (at::arange(s, at::kLong) * kTokensPerUnit).view({1, s}).expand({nb, s}).contiguous();
    b.sentence_valid = at::ones({nb, s}, at::kBool);
    b.features = at::rand({nb, s, 6});
    // "local" and "full" run what the server runs (the tiled band kernel); "local-fused" runs
    // the fused autograd kernel the training uses (the server's kernel before the band one).
    const bool local = kind == "local" || kind == "local-fused";
    const auto impl =
        kind == "local-fused" ? model::AttentionImpl::kFused : model::AttentionImpl::kAuto;
    const model::AttentionPlan tp{std::vector<int64_t>(kHeads, k), local && l > kLocalThreshold,
                                  kWindow, impl};
    const model::AttentionPlan sp{std::vector<int64_t>(kHeads, 16), local && s > kLocalThreshold,
                                  kSentenceWindow, impl};
    for (int r = 0; r <= runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      at::Tensor out = m->forward(b, tp, sp);
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) times.push_back(dt);  // the first run warms up
    }
    // RPSUM_BENCH_TRACE=FILE: one more forward under LibTorch's profiler, written as a Chrome
    // trace (bench/trace_ops.py sums it by op).
    if (const char* trace = std::getenv("RPSUM_BENCH_TRACE"); trace != nullptr) {
      torch::autograd::profiler::RecordProfile profile(trace);
      m->forward(b, tp, sp);
    }
  }
  std::printf("%.6f %ld\n", Median(times), PeakRssKb() - base);
  return 0;
}

using Result = ChildResult;

Result RunChild(const char* self, const std::string& kind, int64_t l, int64_t k, int runs,
                int threads) {
  const std::string cmd = std::string(self) + " --child " + kind + " " + std::to_string(l) + " " +
                          std::to_string(k) + " " + std::to_string(runs) + " " +
                          std::to_string(threads);
  return rpsum::bench::RunChild(cmd);
}

int Parent(const char* self, int runs, int threads, const std::string& out_dir) {
  nlohmann::json out;
  out["runs"] = runs;
  out["threads"] = threads;
  const Result gemm = RunChild(self, "sgemm", 2048, 0, 5, threads);
  const double peak = 2.0 * 2048 * 2048 * 2048 / gemm.seconds;
  out["sgemm_2048_gflops"] = peak / 1e9;
  std::fprintf(stderr, "sgemm 2048^3: %.1f GFLOP/s\n", peak / 1e9);
  std::ostringstream md;
  md << "## Whole model forward by length (" << threads << " threads, median of " << runs
     << "; sgemm peak in this run: " << static_cast<int>(peak / 1e9) << " GFLOP/s)\n\n"
     << "Attention `local` and `full` run the server's tiled band kernel; `local-fused` runs the "
        "fused autograd kernel training uses (the server's kernel before the band one). GFLOP "
        "counts model FLOPs: only query-key pairs inside the band, not masked work.\n\n"
     << "| tokens | attention | k | ms | tokens/s | peak RSS MB | model GFLOP | GFLOP/s | MFU "
        "(of sgemm peak) |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  struct Case {
    int64_t l;
    const char* kind;
    int64_t k;
  };
  std::vector<Case> cases;
  for (int64_t l : {1024, 2048, 4096, 8192, 16384, 32768}) cases.push_back({l, "local", 16});
  for (int64_t l : {2048, 4096, 8192}) cases.push_back({l, "full", 16});
  for (int64_t l : {4096, 16384}) cases.push_back({l, "local", 256});
  for (int64_t l : {1024, 4096, 16384}) cases.push_back({l, "local-fused", 16});
  std::vector<double> xs, ys;
  std::map<std::string, double> times;
  for (const Case& c : cases) {
    const int r_runs = c.l >= 16384 ? std::max(1, runs / 2) : runs;
    const Result r = RunChild(self, c.kind, c.l, c.k, r_runs, threads);
    const double flops = ForwardFlops(c.l, std::string(c.kind) != "full", c.k);
    const std::string key = std::to_string(c.l) + "/" + c.kind + "/k" + std::to_string(c.k);
    out["cases"][key] = {{"tokens", c.l},
                         {"attention", c.kind},
                         {"k", c.k},
                         {"seconds", r.seconds},
                         {"peak_rss_mb", r.rss_kb / 1024.0},
                         {"gflop", flops / 1e9},
                         {"gflops", flops / r.seconds / 1e9},
                         {"of_peak", flops / r.seconds / peak}};
    std::fprintf(stderr, "%s: %.1f ms, %.0f MB, %.1f GFLOP/s\n", key.c_str(), 1000 * r.seconds,
                 r.rss_kb / 1024.0, flops / r.seconds / 1e9);
    char line[256];
    std::snprintf(line, sizeof line,
                  "| %lld | %s | %lld | %.0f | %.0f | %.0f | %.1f | %.1f | %.0f%% |\n",
                  static_cast<long long>(c.l), c.kind, static_cast<long long>(c.k),
                  1000 * r.seconds, c.l / r.seconds, r.rss_kb / 1024.0, flops / 1e9,
                  flops / r.seconds / 1e9, 100 * flops / r.seconds / peak);
    md << line;
    times[key] = r.seconds;
    if (std::string(c.kind) == "local" && c.k == 16 && c.l > kLocalThreshold) {
      xs.push_back(std::log(static_cast<double>(c.l)));
      ys.push_back(std::log(r.seconds));
    }
  }
  // Least-squares slope of log(time) on log(length), local attention, 2k..32k tokens.
  double mx = 0, my = 0;
  for (size_t i = 0; i < xs.size(); ++i) mx += xs[i] / xs.size(), my += ys[i] / xs.size();
  double sxy = 0, sxx = 0;
  for (size_t i = 0; i < xs.size(); ++i)
    sxy += (xs[i] - mx) * (ys[i] - my), sxx += (xs[i] - mx) * (xs[i] - mx);
  const double exponent = sxx > 0 ? sxy / sxx : 0;
  out["exponent_local_2k_32k"] = exponent;
  char tail[200];
  std::snprintf(tail, sizeof tail,
                "\nTime vs length past the local threshold (2k-32k tokens): exponent %.3f "
                "(least squares on log-log).\n",
                exponent);
  md << tail;
  md << "\nBand kernel against the fused kernel, same run (whole forward, k=16):";
  for (int64_t l : {1024, 4096, 16384}) {
    const std::string n = std::to_string(l);
    const double ratio = times["" + n + "/local-fused/k16"] / times[n + "/local/k16"];
    out["band_speedup_over_fused"][n] = ratio;
    char part[64];
    std::snprintf(part, sizeof part, " %s tokens %.2fx;", n.c_str(), ratio);
    md << part;
  }
  md << "\n";
  WriteResults(out_dir, "model", out.dump(2), md.str());
  return 0;
}

}  // namespace
}  // namespace rpsum::bench

int main(int argc, char** argv) {
  if (argc >= 7 && std::strcmp(argv[1], "--child") == 0) {
    return rpsum::bench::Child(argv[2], std::atoll(argv[3]), std::atoll(argv[4]),
                               std::atoi(argv[5]), std::atoi(argv[6]));
  }
  const rpsum::bench::ParentArgs a = rpsum::bench::ParseParentArgs(argc, argv, 3);
  return rpsum::bench::Parent(argv[0], a.runs, a.threads, a.out);
}
