// bench-model: the whole model's forward (the shipped shape: 3 token layers and 2 unit
// layers of d=192, 4 heads) by document length, 1k to 32k tokens: block-local attention past
// the threshold (what the server runs) against full attention, the dynamic clip distance (the
// shipped policy: k=16 at these lengths) against a fixed k=256 (the table's maximum). Reports
// time (median), peak RSS, the forward's counted FLOPs per second against the sgemm peak
// measured in the same run with the same threads, and the exponent of time vs length past the
// local-attention threshold (least squares on log-log). Each case runs in a child process
// (this binary re-executed) so that its peak RSS is its own.
//   bench-model [--runs 3] [--threads 2] [--out bench/results]
// With --compare OLD,NEW it times only two checkpoints' forwards side by side instead (their own
// configs: shape, clip policy, attention thresholds and windows), run by run alternated on the
// same random documents of each length (--lengths; default 4,096 and 16,384 tokens), medians:
// NAME.{md,json} (--name; default model_compare).
//   bench-model --compare models/rpsum-ext-v1,models/rpsum-ext [--runs 15]
//               [--lengths 4096,16384] [--name model_compare]
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
#include <sstream>
#include <string>
#include <vector>

#include "bench/bench_util.h"
#include "model/summarizer.h"
#include "model/torch/checkpoint.h"
#include "model/torch/encoder.h"
#include "model/torch/inference.h"
#include "nlohmann/json.hpp"

namespace rpsum::bench {
namespace {

constexpr int64_t kHidden = 192, kHeads = 4, kFfn = 768, kTokenLayers = 3, kUnitLayers = 2;
constexpr int64_t kLocalThreshold = 1024, kWindow = 256, kUnitWindow = 128;
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
  const double sent_pairs = local && s > kLocalThreshold ? BandPairs(s, kUnitWindow) : 1.0 * s * s;
  return kTokenLayers * LayerFlops(l, token_pairs, k) + kUnitLayers * LayerFlops(s, sent_pairs, 16);
}

// One row of a side-by-side table, "| tokens | first ms | second ms | ratio |", and its JSON
// under `node`[tokens].
struct Named {
  const char* key;
  double value;
};
void SideBySideRow(int64_t l, Named first, Named second, Named ratio, const char* ratio_unit,
                   nlohmann::json* node, std::ostringstream* md) {
  (*node)[std::to_string(l)] = {
      {first.key, first.value}, {second.key, second.value}, {ratio.key, ratio.value}};
  char line[128];
  std::snprintf(line, sizeof line, "| %lld | %.0f | %.0f | %.3f%s |\n", static_cast<long long>(l),
                1000 * first.value, 1000 * second.value, ratio.value, ratio_unit);
  *md << line;
}

// `nb` random documents of `l` tokens each (no padding), a unit every kTokensPerUnit tokens,
// random features.
net::ModelBatch RandomDocuments(int64_t l, int64_t vocab, int64_t nb = 1) {
  const int64_t s = std::max<int64_t>(1, l / kTokensPerUnit);
  net::ModelBatch b;
  b.tokens = at::randint(4, vocab, {nb, l}, at::kLong);
  b.token_valid = at::ones({nb, l}, at::kBool);
  b.unit_pos =
      (at::arange(s, at::kLong) * kTokensPerUnit).view({1, s}).expand({nb, s}).contiguous();
  b.unit_valid = at::ones({nb, s}, at::kBool);
  b.features = at::rand({nb, s, model::kNumFeatures});
  return b;
}

// Child of --compare: the two checkpoints (RPSUM_BENCH_COMPARE="OLD,NEW") on one document of
// `l` tokens, each with its own policy's k and attention modes, alternated run by run. Prints
// "new_median rss_kb old_median".
int CompareChild(int64_t l, int runs, int threads) {
  at::set_num_threads(threads);
  at::manual_seed(1);
  const char* env = std::getenv("RPSUM_BENCH_COMPARE");
  const std::string both = env != nullptr ? env : "";
  const size_t comma = both.find(',');
  if (comma == std::string::npos) return 1;
  std::vector<net::Checkpoint> cks;
  for (const std::string& dir : {both.substr(0, comma), both.substr(comma + 1)}) {
    auto ck = net::LoadCheckpoint(dir, "cpu");
    if (!ck.ok()) {
      std::fprintf(stderr, "bench-model: %s\n", ck.status().ToString().c_str());
      return 1;
    }
    cks.push_back(*std::move(ck));
  }
  c10::InferenceMode guard;
  const int64_t vocab =
      std::min(cks[0].config.architecture.vocab_size, cks[1].config.architecture.vocab_size);
  const net::ModelBatch b = RandomDocuments(l, vocab);
  const long base = PeakRssKb();
  std::vector<double> times[2];
  for (int r = 0; r <= runs; ++r) {
    for (int m = 0; m < 2; ++m) {
      const model::ModelConfig& c = cks[m].config;
      const int64_t s = b.unit_valid.size(1);
      const net::AttentionPlan tp =
          net::TokenPlan(c.attention.TokenWindow(l), model::ClipDistanceFor(c, l));
      const net::AttentionPlan sp = net::UnitPlan(c, model::IsLocalUnitAttention(c, s));
      const auto t0 = std::chrono::steady_clock::now();
      at::Tensor out = cks[m].scorer->forward(b, tp, sp);
      const double dt =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (r > 0) times[m].push_back(dt);  // the first round warms up
    }
  }
  std::printf("%.6f %ld %.6f\n", Median(times[1]), PeakRssKb() - base, Median(times[0]));
  return 0;
}

int Compare(const char* self, const std::string& pair, const std::vector<int64_t>& lengths,
            const std::string& name, int runs, int threads, const std::string& out_dir) {
  setenv("RPSUM_BENCH_COMPARE", pair.c_str(), 1);
  const size_t comma = pair.find(',');
  const std::string old_dir = pair.substr(0, comma), new_dir = pair.substr(comma + 1);
  nlohmann::json out = {{"runs", runs}, {"threads", threads}, {"old", old_dir}, {"new", new_dir}};
  std::ostringstream md;
  md << "## " << new_dir << " against " << old_dir << ": whole forward, side by side\n\n"
     << "One process per length; each checkpoint with its own config (clip policy, attention "
        "modes) on the same random document, runs alternated so that the machine's drift hits "
        "both alike; median of "
     << runs << " runs each, " << threads << " threads.\n\n"
     << "| tokens | old ms | new ms | new / old |\n| --- | --- | --- | --- |\n";
  for (const int64_t l : lengths) {
    const ChildResult r = RunChild(std::string(self) + " --child compare " + std::to_string(l) +
                                   " 0 " + std::to_string(runs) + " " + std::to_string(threads));
    if (r.seconds <= 0 || r.extra <= 0) {
      std::fprintf(stderr, "bench-model: the compare child failed at %lld tokens\n",
                   static_cast<long long>(l));
      return 1;
    }
    SideBySideRow(l, {"old_seconds", r.extra}, {"new_seconds", r.seconds},
                  {"new_over_old", r.seconds / r.extra}, "", &out["tokens"], &md);
  }
  md << "\n";
  WriteResults(out_dir, name, out.dump(2), md.str());
  return 0;
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
    a.unit_layers = kUnitLayers;
    a.max_clip_distance = 256;
    a.num_features = 6;
    net::ExtractiveScorer m(a);
    m->eval();
    // RPSUM_BENCH_BATCH=B: B documents of the same length in one forward (no padding), to
    // compare batched against one-at-a-time cost per document.
    const char* batch_env = std::getenv("RPSUM_BENCH_BATCH");
    const int64_t nb = batch_env != nullptr ? std::max(1, std::atoi(batch_env)) : 1;
    const net::ModelBatch b = RandomDocuments(l, a.vocab_size, nb);
    const int64_t s = b.unit_valid.size(1);
    // "local" and "full" run what the server runs (the tiled band kernel); "local-fused" runs
    // the fused autograd kernel the training uses (the server's kernel before the band one);
    // "pair" alternates the two (below).
    const bool local = kind == "local" || kind == "local-fused";
    const auto impl =
        kind == "local-fused" ? net::AttentionImpl::kFused : net::AttentionImpl::kAuto;
    const net::AttentionPlan tp{k, local && l > kLocalThreshold, kWindow, impl};
    const net::AttentionPlan sp{16, local && s > kLocalThreshold, kUnitWindow, impl};
    if (kind == "pair") {
      // The band kernel and the fused kernel on the same model and input, alternated run by
      // run, so that the machine's drift hits both alike. Prints "band_median 0 fused_median".
      net::AttentionPlan tpf = tp, spf = sp;
      tpf.local = l > kLocalThreshold;
      spf.local = s > kLocalThreshold;
      net::AttentionPlan tpb = tpf, spb = spf;
      tpf.impl = spf.impl = net::AttentionImpl::kFused;
      std::vector<double> band, fused;
      for (int r = 0; r <= runs; ++r) {
        for (const bool use_band : {true, false}) {
          const auto t0 = std::chrono::steady_clock::now();
          at::Tensor out = use_band ? m->forward(b, tpb, spb) : m->forward(b, tpf, spf);
          const double dt =
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          if (r > 0) (use_band ? band : fused).push_back(dt);
        }
      }
      std::printf("%.6f 0 %.6f\n", Median(band), Median(fused));
      return 0;
    }
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
  // sgemm reports its best run (a peak), the model its median.
  const double t = kind == "sgemm" ? *std::min_element(times.begin(), times.end()) : Median(times);
  std::printf("%.6f %ld\n", t, PeakRssKb() - base);
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
  struct Case {
    int64_t l;
    const char* kind;
    int64_t k;
  };
  std::vector<Case> cases;
  for (int64_t l : {1024, 2048, 4096, 8192, 16384, 32768}) cases.push_back({l, "local", 16});
  for (int64_t l : {2048, 4096, 8192}) cases.push_back({l, "full", 16});
  for (int64_t l : {4096, 16384}) cases.push_back({l, "local", 256});
  std::vector<double> xs, ys;
  struct Row {
    Case c;
    Result r;
    double flops, peak;
  };
  std::vector<Row> rows;
  for (const Case& c : cases) {
    const int r_runs = c.l >= 16384 ? std::max(1, runs / 2) : runs;
    // The sgemm peak right before and right after the case, in their own processes: this
    // machine is shared and its speed drifts, so each case is held to the peak of its moment.
    const double before = RunChild(self, "sgemm", 2048, 0, 10, threads).seconds;
    const Result r = RunChild(self, c.kind, c.l, c.k, r_runs, threads);
    const double after = RunChild(self, "sgemm", 2048, 0, 10, threads).seconds;
    const double case_peak = 2.0 * 2048 * 2048 * 2048 / std::min(before, after);
    const double flops = ForwardFlops(c.l, std::string(c.kind) != "full", c.k);
    const std::string key = std::to_string(c.l) + "/" + c.kind + "/k" + std::to_string(c.k);
    out["cases"][key] = {{"tokens", c.l},
                         {"attention", c.kind},
                         {"k", c.k},
                         {"seconds", r.seconds},
                         {"peak_rss_mb", r.rss_kb / 1024.0},
                         {"gflop", flops / 1e9},
                         {"gflops", flops / r.seconds / 1e9}};
    std::fprintf(stderr, "%s: %.1f ms, %.0f MB, %.1f GFLOP/s\n", key.c_str(), 1000 * r.seconds,
                 r.rss_kb / 1024.0, flops / r.seconds / 1e9);
    rows.push_back({c, r, flops, case_peak});
    if (std::string(c.kind) == "local" && c.k == 16 && c.l > kLocalThreshold) {
      xs.push_back(std::log(static_cast<double>(c.l)));
      ys.push_back(std::log(r.seconds));
    }
  }
  std::ostringstream md;
  md << "## Whole model forward by length (" << threads << " threads, median of " << runs << ")\n\n"
     << "The server's tiled band kernel (`local`: block-local past " << kLocalThreshold
     << " tokens; `full`: full attention at any length). Model GFLOP counts only query-key pairs "
        "inside the band, not masked work. MFU is model GFLOP/s over the sgemm peak of the "
        "case's moment: the best 2048^3 sgemm of 10, measured right before and right after the "
        "case (this machine is shared and its speed drifts by 30% within a run).\n\n"
     << "| tokens | attention | k | ms | tokens/s | peak RSS MB | model GFLOP | GFLOP/s | sgemm "
        "peak GFLOP/s | MFU |\n"
     << "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (const Row& row : rows) {
    const std::string key =
        std::to_string(row.c.l) + "/" + row.c.kind + "/k" + std::to_string(row.c.k);
    out["cases"][key]["sgemm_peak_gflops"] = row.peak / 1e9;
    out["cases"][key]["of_peak"] = row.flops / row.r.seconds / row.peak;
    char line[256];
    std::snprintf(line, sizeof line,
                  "| %lld | %s | %lld | %.0f | %.0f | %.0f | %.1f | %.1f | %.0f | %.0f%% |\n",
                  static_cast<long long>(row.c.l), row.c.kind, static_cast<long long>(row.c.k),
                  1000 * row.r.seconds, row.c.l / row.r.seconds, row.r.rss_kb / 1024.0,
                  row.flops / 1e9, row.flops / row.r.seconds / 1e9, row.peak / 1e9,
                  100 * row.flops / row.r.seconds / row.peak);
    md << line;
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
  // The band kernel against the fused kernel (the server's kernel before it, still the
  // training kernel): one model, runs alternated, so the ratio is immune to the drift.
  md << "\nThe band kernel against the fused kernel (the server's kernel before it; training "
        "still uses it): one model and input, runs alternated, medians (k=16, block-local past "
        "the threshold).\n\n| tokens | band ms | fused ms | band speedup |\n| --- | --- | --- | "
        "--- |\n";
  for (int64_t l : {1024, 4096, 16384}) {
    const Result pr = RunChild(self, "pair", l, 16, std::max(5, runs), threads);
    std::fprintf(stderr, "pair %lld: band %.1f ms, fused %.1f ms\n", static_cast<long long>(l),
                 1000 * pr.seconds, 1000 * pr.extra);
    SideBySideRow(l, {"band_seconds", pr.seconds}, {"fused_seconds", pr.extra},
                  {"speedup", pr.extra / pr.seconds}, "x", &out["band_vs_fused"], &md);
  }
  md << "\n";
  WriteResults(out_dir, "model", out.dump(2), md.str());
  return 0;
}

}  // namespace
}  // namespace rpsum::bench

int main(int argc, char** argv) {
  if (argc >= 7 && std::strcmp(argv[1], "--child") == 0 && std::strcmp(argv[2], "compare") == 0) {
    return rpsum::bench::CompareChild(std::atoll(argv[3]), std::atoi(argv[5]), std::atoi(argv[6]));
  }
  if (argc >= 7 && std::strcmp(argv[1], "--child") == 0) {
    return rpsum::bench::Child(argv[2], std::atoll(argv[3]), std::atoll(argv[4]),
                               std::atoi(argv[5]), std::atoi(argv[6]));
  }
  const rpsum::bench::ParentArgs a = rpsum::bench::ParseParentArgs(argc, argv, 3);
  std::string pair, name = "model_compare";
  std::vector<int64_t> lengths = {4096, 16384};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::strcmp(argv[i], "--compare") == 0) pair = argv[i + 1];
    if (std::strcmp(argv[i], "--name") == 0) name = argv[i + 1];
    if (std::strcmp(argv[i], "--lengths") == 0) {
      lengths.clear();
      for (const char* p = argv[i + 1]; *p != '\0';) {
        char* end = nullptr;
        lengths.push_back(std::strtoll(p, &end, 10));
        p = *end == ',' ? end + 1 : end;
        if (lengths.back() <= 0) {
          std::fprintf(stderr,
                       "bench-model: --lengths takes positive token counts, e.g. 4096,32768\n");
          return 2;
        }
      }
    }
  }
  if (!pair.empty()) {
    return rpsum::bench::Compare(argv[0], pair, lengths, name, a.runs, a.threads, a.out);
  }
  return rpsum::bench::Parent(argv[0], a.runs, a.threads, a.out);
}
