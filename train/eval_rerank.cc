#include "train/eval_rerank.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"

namespace rpsum::train {
namespace {

using model::kNumRerankFeatures;
using model::kRerankFeatureNames;
using model::ModelConfig;
using model::RerankConfig;

// Per document with candidates: each candidate's standardised features, and the ROUGE-1 and
// ROUGE-2 F1 of its summary against the reference.
struct RerankData {
  std::vector<std::vector<std::array<double, kNumRerankFeatures>>> z;
  std::vector<std::vector<std::array<double, 2>>> reward;
  size_t widest = 1, candidates = 0;
};

RerankData CollectCandidates(const std::vector<EvalDoc>& docs, const ModelRun& run,
                             const RerankConfig& rerank) {
  RerankData data;
  for (size_t i = 0; i < docs.size(); ++i) {
    const EvalDoc& d = docs[i];
    const auto candidates = model::SummaryCandidates(d.prepared, d.texts, run.scores[i],
                                                     ServedOptions(d, rerank), run.States(i));
    if (candidates.empty()) continue;
    data.z.push_back(model::StandardisedFeatures(candidates));
    data.reward.emplace_back();
    for (const model::Candidate& c : candidates) {
      const RougeScores r = ScoreSummary(d, model::JoinAndCut(d.texts, c.units, 0));
      data.reward.back().push_back({r.rouge1.f, r.rouge2.f});
    }
    data.widest = std::max(data.widest, candidates.size());
    data.candidates += candidates.size();
  }
  return data;
}

// The fit's tensors, padded to the widest document: features x [N, W, F], rewards y [N, W, 2],
// valid [N, W].
struct FitTensors {
  at::Tensor x, y, valid;
};

FitTensors ToTensors(const RerankData& data) {
  constexpr int kF = kNumRerankFeatures;
  const auto n = static_cast<int64_t>(data.z.size());
  const auto w_max = static_cast<int64_t>(data.widest);
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  FitTensors t{at::zeros({n, w_max, kF}, f64), at::zeros({n, w_max, 2}, f64),
               at::zeros({n, w_max}, at::TensorOptions().dtype(at::kBool))};
  auto xa = t.x.accessor<double, 3>();
  auto ya = t.y.accessor<double, 3>();
  auto va = t.valid.accessor<bool, 2>();
  for (int64_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < data.z[i].size(); ++k) {
      const auto c = static_cast<int64_t>(k);
      for (int f = 0; f < kF; ++f) xa[i][c][f] = data.z[i][k][f];
      ya[i][c][0] = data.reward[i][k][0];
      ya[i][c][1] = data.reward[i][k][1];
      va[i][c] = true;
    }
  }
  return t;
}

// Maximises the mean over documents of the expected reward (ROUGE-1 + ROUGE-2 F1) under
// softmax(w . z / 0.1), less l2 |w|^2 (w zero outside `mask`), by 300 full-batch Adam steps
// (lr 0.05) from mean_score = 1 and the rest 0, in double precision: deterministic.
std::vector<double> AdamFit(const FitTensors& t, const std::vector<double>& mask, double l2) {
  constexpr int kF = kNumRerankFeatures;
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  const at::Tensor gain = t.y.sum(-1);
  const at::Tensor keep = at::tensor(mask, f64);
  at::Tensor w = at::zeros({kF}, f64);
  w[0] = 1.0;  // mean_score: start from the model's own ranking
  w.set_requires_grad(true);
  // Adam, written out (the same update as torch.optim.Adam, no weight decay).
  at::Tensor m1 = at::zeros({kF}, f64), m2 = at::zeros({kF}, f64);
  const double lr = 0.05, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  for (int step = 1; step <= 300; ++step) {
    const at::Tensor used = w * keep;
    const at::Tensor logits =
        at::matmul(t.x, used).div(0.1).masked_fill(t.valid.logical_not(), -1e9);
    const at::Tensor loss =
        -(at::softmax(logits, 1) * gain).sum(1).mean() + l2 * (used * used).sum();
    loss.backward();
    at::NoGradGuard no_grad;
    const at::Tensor& g = w.grad();
    m1.mul_(b1).add_(g, 1 - b1);
    m2.mul_(b2).addcmul_(g, g, 1 - b2);
    const double c1 = 1 - std::pow(b1, step), c2 = 1 - std::pow(b2, step);
    w.sub_(lr * (m1 / c1) / ((m2 / c2).sqrt() + eps));
    w.grad().zero_();
  }
  const at::Tensor wd = (w.detach() * keep).contiguous();
  return {wd.data_ptr<double>(), wd.data_ptr<double>() + kF};
}

// Prints and records the fit: the training documents' greedy choice (candidate 0) against the
// reranked one, and the weights.
void ReportFit(const RerankData& data, const std::vector<double>& weights, nlohmann::json* out) {
  constexpr int kF = kNumRerankFeatures;
  double g1 = 0, g2 = 0, r1 = 0, r2 = 0;
  const auto n = static_cast<int64_t>(data.z.size());
  for (int64_t i = 0; i < n; ++i) {
    size_t best = 0;
    double best_s = 0;
    for (size_t k = 0; k < data.z[i].size(); ++k) {
      double s = 0;
      for (int f = 0; f < kF; ++f) s += weights[f] * data.z[i][k][f];
      if (k == 0 || s > best_s) {
        best = k;
        best_s = s;
      }
    }
    g1 += data.reward[i][0][0];
    g2 += data.reward[i][0][1];
    r1 += data.reward[i][best][0];
    r2 += data.reward[i][best][1];
  }
  const double dn = static_cast<double>(std::max<int64_t>(n, 1));
  std::printf("\n## Summary-level reranking fitted on %lld documents (%zu candidates)\n\n",
              static_cast<long long>(n), data.candidates);
  std::printf("| selection | ROUGE-1 | ROUGE-2 |\n| --- | --- | --- |\n");
  std::printf("| greedy | %.2f | %.2f |\n| reranked | %.2f | %.2f |\n\n", 100 * g1 / dn,
              100 * g2 / dn, 100 * r1 / dn, 100 * r2 / dn);
  std::printf("| feature | weight |\n| --- | --- |\n");
  for (int f = 0; f < kF; ++f) {
    std::printf("| %s | %.4f |\n", kRerankFeatureNames[f], weights[f]);
    (*out)["rerank_fit"]["weights"][kRerankFeatureNames[f]] = weights[f];
  }
  (*out)["rerank_fit"]["documents"] = n;
  (*out)["rerank_fit"]["candidates"] = data.candidates;
  (*out)["rerank_fit"]["greedy"] = {{"rouge1", 100 * g1 / dn}, {"rouge2", 100 * g2 / dn}};
  (*out)["rerank_fit"]["reranked"] = {{"rouge1", 100 * r1 / dn}, {"rouge2", 100 * r2 / dn}};
}

// 1 for each fitted feature (all when `names` is empty), 0 for the others.
absl::StatusOr<std::vector<double>> FeatureMask(const std::vector<std::string>& names) {
  std::vector<double> mask(kNumRerankFeatures, names.empty() ? 1.0 : 0.0);
  for (const std::string& name : names) {
    const auto* at =
        std::find(std::begin(kRerankFeatureNames), std::end(kRerankFeatureNames), name);
    if (at == std::end(kRerankFeatureNames)) {
      return absl::InvalidArgumentError(absl::StrCat("--rerank_features: no feature '", name, "'"));
    }
    mask[at - std::begin(kRerankFeatureNames)] = 1.0;
  }
  return mask;
}

// Writes the checkpoint in `from` again under `dir` with `config` (weights and tokenizer copied).
absl::Status WriteCheckpointCopy(const std::string& from, const ModelConfig& config,
                                 const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InternalError("cannot create " + dir + ": " + ec.message());
  for (const std::string& file : {config.weights_file, config.tokenizer.file}) {
    fs::copy_file(fs::path(from) / file, fs::path(dir) / file, fs::copy_options::overwrite_existing,
                  ec);
    if (ec) {
      return absl::InternalError(
          absl::StrCat("cannot copy ", file, " to ", dir, ": ", ec.message()));
    }
  }
  std::ofstream(fs::path(dir) / "config.json", std::ios::trunc) << config.ToJson();
  return absl::OkStatus();
}

}  // namespace

RerankConfig CandidateOptions(const RerankFitOptions& fit) {
  RerankConfig r;
  r.top_k = fit.top_k;
  r.max_units = fit.max_units;
  return r;
}

absl::Status FitRerankAndWrite(const net::Checkpoint& ck, const std::vector<EvalDoc>& docs,
                               const ModelRun& run, const RerankFitOptions& fit,
                               const std::string& data, nlohmann::json* out) {
  auto mask = FeatureMask(fit.features);
  if (!mask.ok()) return mask.status();
  // Candidates of the greedy-scored model: the fit starts from the network's own scores.
  RerankConfig rerank = CandidateOptions(fit);
  const RerankData candidates = CollectCandidates(docs, run, rerank);
  if (candidates.z.empty()) {
    return absl::FailedPreconditionError(
        "--fit_rerank: no document has reranking candidates (an empty corpus?)");
  }
  rerank.weights = AdamFit(ToTensors(candidates), *mask, fit.l2);
  ReportFit(candidates, rerank.weights, out);
  model::ModelConfig config = ck.config;
  config.scoring.rerank = rerank;
  if (!fit.version.empty()) config.version = fit.version;
  if (!fit.served_windows.empty()) config.attention.local_windows = fit.served_windows;
  nlohmann::json training = nlohmann::json::parse(config.training_json);
  training["rerank_fitted_on"] = {{"data", data}, {"documents", candidates.z.size()}};
  config.training_json = training.dump();
  if (absl::Status s = config.Validate(); !s.ok()) return s;
  RPSUM_RETURN_IF_ERROR(WriteCheckpointCopy(ck.dir, config, fit.out));
  std::printf("\nwrote %s\n", fit.out.c_str());
  return absl::OkStatus();
}

}  // namespace rpsum::train
