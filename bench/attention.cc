// bench/attention: relative attention (fused efficient form, gather/scatter composite, dense
// reference tables) against vanilla attention without relative terms, by length; and a whole
// model forward by document length with block-local attention. Each measurement runs in a
// child process (this binary re-executed) so its peak RSS is its own. Medians of --runs.
//   bench-attention [--runs 5] [--threads 2] [--out bench/results]
#include <ATen/ATen.h>
#include <ATen/Parallel.h>
#include <c10/core/InferenceMode.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "model/torch/encoder.h"
#include "model/torch/relative_attention.h"
#include "nlohmann/json.hpp"

namespace rpsum::bench {
namespace {

using net::AttentionImpl;

// Child: one kind at one length; prints "seconds_median rss_kb".
int Child(const std::string& kind, int64_t l, int runs, int threads) {
  at::set_num_threads(threads);
  at::manual_seed(1);
  c10::InferenceMode guard;
  const long base = PeakRssKb();
  std::vector<double> times;
  if (kind == "model") {
    model::Architecture a;  // the shipped model's shape
    a.vocab_size = 8000;
    a.hidden_size = 192;
    a.heads = 4;
    a.ffn_size = 768;
    a.token_layers = 3;
    a.unit_layers = 2;
    a.max_clip_distance = 256;
    a.num_features = 6;
    net::ExtractiveScorer m(a);
    m->eval();
    net::ModelBatch b;
    b.tokens = at::randint(4, 8000, {1, l}, at::kLong);
    b.token_valid = at::ones({1, l}, at::kBool);
    const int64_t s = std::max<int64_t>(1, l / 25);
    b.unit_pos = (at::arange(s, at::kLong) * 25).view({1, s});
    b.unit_valid = at::ones({1, s}, at::kBool);
    b.features = at::rand({1, s, 6});
    const bool local = l > 1024;
    const net::AttentionPlan tp{64, local, 256, AttentionImpl::kAuto};
    const net::AttentionPlan sp{16, s > 1024, 128, AttentionImpl::kAuto};
    for (int r = 0; r <= runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      at::Tensor out = m->forward(b, tp, sp);
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) times.push_back(dt);  // the first run warms up
    }
  } else {
    const int64_t h = 4, d = 64, k = 64;
    const at::Tensor q = at::randn({1, h, l, d}), kk = at::randn({1, h, l, d}),
                     v = at::randn({1, h, l, d});
    const at::Tensor rk = at::randn({2 * k + 1, d}), rv = at::randn({2 * k + 1, d});
    // The band kernel reads q, k and v from one projection output [1, L, 3*H*d].
    const at::Tensor qkv = at::cat({q, kk, v}, 1).permute({0, 2, 1, 3}).reshape({1, l, 3 * h * d});
    for (int r = 0; r <= runs; ++r) {
      const auto t0 = std::chrono::steady_clock::now();
      at::Tensor z;
      if (kind == "band") {
        z = net::BandRelativeAttend(qkv, h, rk, rv, k, at::Tensor(), l);
      } else if (kind == "vanilla") {
        z = net::VanillaAttend(q, kk, v, at::Tensor());
      } else {
        const AttentionImpl impl = kind == "efficient"        ? AttentionImpl::kFused
                                   : kind == "gather_scatter" ? AttentionImpl::kComposite
                                                              : AttentionImpl::kDense;
        z = net::RelativeAttend(q, kk, v, rk, rv, k, at::Tensor(), {}, impl);
      }
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) times.push_back(dt);
    }
  }
  std::printf("%.6f %ld\n", Median(times), PeakRssKb() - base);
  return 0;
}

using Result = ChildResult;

Result RunChild(const char* self, const std::string& kind, int64_t l, int runs, int threads) {
  const std::string cmd = std::string(self) + " --child " + kind + " " + std::to_string(l) + " " +
                          std::to_string(runs) + " " + std::to_string(threads);
  return rpsum::bench::RunChild(cmd);
}

int Parent(const char* self, int runs, int threads, const std::string& out_dir) {
  nlohmann::json out;
  out["runs"] = runs;
  out["threads"] = threads;
  out["shape"] = "B=1, 4 heads of 64, k=64";
  std::ostringstream md;
  md << "## Attention (B=1, 4 heads of 64, k=64, " << threads << " threads, median of " << runs
     << " runs)\n\n`band` is the server's inference kernel (tiles of 64 queries, read in place "
        "from the projection output), `efficient` the fused kernel training uses.\n\n"
     << "| L | vanilla ms | band ms | efficient ms | gather+scatter ms | dense ms | band / "
        "vanilla | efficient / vanilla | dense / efficient | vanilla MB | band MB | efficient MB "
        "| dense MB |\n|"
     << " --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (int64_t l : {512, 2048, 8192}) {
    std::map<std::string, Result> r;
    for (const char* kind : {"vanilla", "band", "efficient", "gather_scatter", "dense"}) {
      if (std::string(kind) == "dense" && l > 2048) continue;  // [L, L, 64] tables: 17 GB at 8k
      r[kind] = RunChild(self, kind, l, runs, threads);
      out["attention"][std::to_string(l)][kind] = {{"seconds", r[kind].seconds},
                                                   {"peak_rss_mb", r[kind].rss_kb / 1024.0}};
      std::fprintf(stderr, "L=%lld %s: %.1f ms, %.0f MB\n", static_cast<long long>(l), kind,
                   1000 * r[kind].seconds, r[kind].rss_kb / 1024.0);
    }
    auto ms = [&](const char* k) {
      return r.count(k) ? std::to_string(static_cast<int>(1000 * r[k].seconds + 0.5)) : "-";
    };
    auto mb = [&](const char* k) {
      return r.count(k) ? std::to_string(static_cast<int>(r[k].rss_kb / 1024.0 + 0.5)) : "-";
    };
    char ratio0[32], ratio1[32], ratio2[32];
    std::snprintf(ratio0, sizeof(ratio0), "%.2f", r["band"].seconds / r["vanilla"].seconds);
    std::snprintf(ratio1, sizeof(ratio1), "%.2f", r["efficient"].seconds / r["vanilla"].seconds);
    if (r.count("dense")) {
      std::snprintf(ratio2, sizeof(ratio2), "%.1f", r["dense"].seconds / r["efficient"].seconds);
    } else {
      std::snprintf(ratio2, sizeof(ratio2), "-");
    }
    md << "| " << l << " | " << ms("vanilla") << " | " << ms("band") << " | " << ms("efficient")
       << " | " << ms("gather_scatter") << " | " << ms("dense") << " | " << ratio0 << " | "
       << ratio1 << " | " << ratio2 << " | " << mb("vanilla") << " | " << mb("band") << " | "
       << mb("efficient") << " | " << mb("dense") << " |\n";
  }
  md << "\n## Whole model forward (shipped shape; block-local attention past 1024 tokens)\n\n"
        "| tokens | ms | tokens/s | peak RSS MB |\n| --- | --- | --- | --- |\n";
  for (int64_t l : {1024, 2048, 4096, 8192, 16384}) {
    const Result r = RunChild(self, "model", l, std::max(3, runs / 2), threads);
    out["model"][std::to_string(l)] = {{"seconds", r.seconds}, {"peak_rss_mb", r.rss_kb / 1024.0}};
    std::fprintf(stderr, "model L=%lld: %.1f ms, %.0f MB\n", static_cast<long long>(l),
                 1000 * r.seconds, r.rss_kb / 1024.0);
    md << "| " << l << " | " << static_cast<int>(1000 * r.seconds) << " | "
       << static_cast<int>(l / r.seconds) << " | " << static_cast<int>(r.rss_kb / 1024.0) << " |\n";
  }
  WriteResults(out_dir, "attention", out.dump(2), md.str());
  return 0;
}

}  // namespace
}  // namespace rpsum::bench

int main(int argc, char** argv) {
  if (argc >= 6 && std::strcmp(argv[1], "--child") == 0) {
    return rpsum::bench::Child(argv[2], std::atoll(argv[3]), std::atoi(argv[4]),
                               std::atoi(argv[5]));
  }
  const rpsum::bench::ParentArgs a = rpsum::bench::ParseParentArgs(argc, argv, 5);
  return rpsum::bench::Parent(argv[0], a.runs, a.threads, a.out);
}
