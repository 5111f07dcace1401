// The training loop of train/trainer.h: steps, epochs, validation and the best checkpoint.
// clang-format off
#include <torch/types.h>  // first: clip_grad.h needs it and does not include it
// clang-format on
#include "train/trainer.h"

#include <ATen/ATen.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adamw.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/files.h"
#include "base/status_macros.h"
#include "model/select.h"
#include "model/summarizer.h"
#include "model/tokenizer.h"
#include "model/torch/checkpoint.h"
#include "model/torch/inference.h"
#include "model/torch/safetensors.h"
#include "nlohmann/json.hpp"
#include "train/schedule.h"
#include "train/trainer_data.h"
#include "train/trainer_state.h"
#include "train/training.h"

namespace rpsum::train {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using model::ModelConfig;
using net::Checkpoint;
using net::ExtractiveScorer;

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

// Validation: mean ROUGE F1 x 100 of the model's served summaries.
RougeMean Validate(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int32_t pad) {
  RougeMean m;
  const model::RerankConfig& rerank = ck.config.scoring.rerank;
  for (const EvalDoc& d : docs) {
    const int64_t k = model::ClipDistanceFor(ck.config, d.prepared.num_tokens());
    auto scores = net::ScoreDocuments(ck, {&d.prepared}, k, pad, model::NeedsUnitStates(rerank));
    if (!scores.ok()) continue;
    const model::DocumentScores& s = (*scores)[0];
    m.Add(ScoreSummary(
        d, SummaryFromScores(d, s.scores, rerank, {s.unit_states.data(), s.state_size})));
  }
  return m.Mean();
}

// WidenFeatureProjection (train/training.h) for --init_from DIR, whose config.json says what
// its network reads.
absl::Status WidenFromCheckpoint(const std::string& from_dir, const model::Architecture& to,
                                 std::map<std::string, at::Tensor>* weights) {
  auto text = ReadFile(from_dir + "/config.json");
  if (!text.ok()) return text.status();
  auto from = ModelConfig::FromJson(*text);
  if (!from.ok()) return from.status();
  const size_t before = FeatureColumns(from->architecture).size();
  RPSUM_RETURN_IF_ERROR(WidenFeatureProjection(from->architecture, to, weights));
  if (before < FeatureColumns(to).size()) {
    std::printf("widened feature_proj from %zu to %zu columns (new ones start at 0)\n", before,
                FeatureColumns(to).size());
  }
  return absl::OkStatus();
}

// Starts the network from options.init_from's weights.
absl::Status InitFrom(const std::string& dir, const model::Architecture& arch,
                      ExtractiveScorer& model) {
  const std::string from = dir + "/weights.safetensors";
  auto w = net::ReadSafetensors(from);
  if (!w.ok()) return w.status();
  RPSUM_RETURN_IF_ERROR(WidenFromCheckpoint(dir, arch, &*w));
  RPSUM_RETURN_IF_ERROR(net::AssignWeights(model, *w, from));
  std::printf("initialised from %s\n", from.c_str());
  return absl::OkStatus();
}

absl::Status CopyFile(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  return ec ? absl::UnavailableError(absl::StrCat("copy ", from, ": ", ec.message()))
            : absl::OkStatus();
}

// The labels of a batch, [B, S] (0 past each document's units).
at::Tensor BatchLabels(const std::vector<TrainDoc>& docs, const std::vector<size_t>& b,
                       const net::ModelBatch& batch) {
  at::Tensor labels = at::zeros(batch.unit_valid.sizes(), at::kFloat);
  for (size_t i = 0; i < b.size(); ++i) {
    const auto& l = docs[b[i]].labels;
    labels[static_cast<int64_t>(i)]
        .narrow(0, 0, static_cast<int64_t>(l.size()))
        .copy_(at::from_blob(const_cast<float*>(l.data()), {static_cast<int64_t>(l.size())}));
  }
  return labels;
}

// The loss average and throughput of the progress lines.
struct StepLog {
  double loss_ema = -1;
  int64_t tokens = 0;
  Clock::time_point window_start = Clock::now();

  void Add(double loss, int64_t step, int64_t total_steps, int epoch, double lr, int64_t k) {
    loss_ema = loss_ema < 0 ? loss : 0.95 * loss_ema + 0.05 * loss;
    if (step % 10 != 0 && step != total_steps) return;
    const double dt = Seconds(window_start, Clock::now());
    std::printf("step %lld/%lld epoch %d loss %.4f lr %.2e k %lld tokens/s %.0f ETA %.0f min\n",
                static_cast<long long>(step), static_cast<long long>(total_steps), epoch + 1,
                loss_ema, lr, static_cast<long long>(k),
                static_cast<double>(tokens) / std::max(dt, 1e-9),
                dt / 10 * static_cast<double>(total_steps - step) / 60);
    std::fflush(stdout);
    tokens = 0;
    window_start = Clock::now();
  }
};

// One run: what Train sets up, then its epochs.
class Trainer {
 public:
  Trainer(const TrainOptions& o, ModelConfig config, std::string tokenizer_path,
          const model::Tokenizer& tokenizer, TrainingData data)
      : o_(o),
        config_(std::move(config)),
        tokenizer_path_(std::move(tokenizer_path)),
        pad_(tokenizer.pad_id()),
        marker_(tokenizer.marker_id()),
        data_(std::move(data)),
        model_(config_.architecture),
        state_(fs::path(o.out) / "state") {
    std::vector<int64_t> lengths;
    lengths.reserve(data_.docs.size());
    for (const TrainDoc& d : data_.docs) lengths.push_back(d.prepared->num_tokens());
    batches_ = LengthBatches(lengths, o.batch_tokens);
    total_steps_ = static_cast<int64_t>(batches_.size()) * o.epochs;
    if (o.max_steps > 0) total_steps_ = std::min<int64_t>(total_steps_, o.max_steps);
    model_->set_checkpoint_layers(o.checkpoint_layers);
    // The masked-token head trains beside the network and is not part of its checkpoint.
    if (o.mlm_weight > 0) {
      mlm_ = MaskedTokenHead(config_.architecture.hidden_size, config_.architecture.vocab_size);
    }
  }

  absl::StatusOr<TrainOutcome> Run();

 private:
  TrainedModules Modules() { return {model_, mlm_}; }
  void Save();
  double Step(const std::vector<size_t>& b, double lr, int64_t* k);
  bool RunEpoch(int epoch);
  bool EndEpoch(int epoch);
  void SaveCheckpoint(const std::string& name, const ModelConfig& config);

  const TrainOptions& o_;
  const ModelConfig config_;
  const std::string tokenizer_path_;
  const int32_t pad_, marker_;
  const TrainingData data_;
  ExtractiveScorer model_;
  MaskedTokenHead mlm_{nullptr};
  std::unique_ptr<torch::optim::AdamW> opt_;
  const fs::path state_;
  std::vector<std::vector<size_t>> batches_;
  int64_t total_steps_ = 0;
  Progress progress_;
  double trained_before_ = 0;
  Clock::time_point t0_ = Clock::now();
  StepLog log_;
};

void Trainer::Save() {
  progress_.trained_seconds = trained_before_ + Seconds(t0_, Clock::now());
  if (auto s = SaveState(state_, Modules(), *opt_, progress_); !s.ok()) {
    std::fprintf(stderr, "saving state: %s\n", s.ToString().c_str());
  }
}

// One optimizer step on one batch; returns the loss and sets *k to the clip distance used.
// With a masked-token head, the unit loss is computed on the masked input and the head's loss,
// times mlm_weight, is added.
double Trainer::Step(const std::vector<size_t>& b, double lr, int64_t* k) {
  std::vector<const model::PreparedDocument*> prepared;
  prepared.reserve(b.size());
  for (size_t i : b) prepared.push_back(data_.docs[i].prepared);
  net::ModelBatch batch = net::MakeBatch(prepared, pad_, at::kCPU);
  const int64_t step = progress_.step;
  MaskedTokens masked;
  if (mlm_) {
    masked = MaskTokens(batch.tokens, batch.token_valid, marker_, config_.architecture.vocab_size,
                        o_.mlm_ratio,
                        (static_cast<uint64_t>(o_.seed) << 32) ^ static_cast<uint64_t>(step));
    batch.tokens = masked.input;
  }
  *k = TrainingClipDistance(config_, o_.seed, step, batch.tokens.size(1));
  // Training batches hold documents of similar length: one plan for the batch.
  const net::AttentionPlan tp =
      net::TokenPlan(config_.attention.TokenWindow(batch.tokens.size(1)), *k);
  const net::AttentionPlan sp =
      net::UnitPlan(config_, model::IsLocalUnitAttention(config_, batch.unit_pos.size(1)));
  for (auto& g : opt_->param_groups()) {
    static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
  }
  const at::Tensor states = model_->EncodeTokens(batch, tp);
  const at::Tensor logits = model_->ScoreUnits(states, batch, sp);
  at::Tensor loss =
      ExtractiveLoss(logits, BatchLabels(data_.docs, b, batch), batch.unit_valid, o_.pos_weight);
  if (mlm_) loss = loss + o_.mlm_weight * mlm_->Loss(states, masked.target, model_->embed->weight);
  opt_->zero_grad();
  loss.backward();
  torch::nn::utils::clip_grad_norm_(Modules().Parameters(), 1.0);
  opt_->step();
  log_.tokens += batch.token_valid.sum().item<int64_t>();
  return loss.item<double>();
}

// The rest of epoch `epoch` from progress_.step (a resumed run starts mid-epoch), saving every
// checkpoint_every steps. Returns false when time_limit_min ran out (state saved).
bool Trainer::RunEpoch(int epoch) {
  const auto steps_per_epoch = static_cast<int64_t>(batches_.size());
  const std::vector<size_t> order = EpochOrder(batches_.size(), o_.seed, epoch);
  const double time_limit = o_.time_limit_min * 60;
  for (int64_t pos = progress_.step % steps_per_epoch;
       pos < steps_per_epoch && progress_.step < total_steps_; ++pos) {
    const double lr = LearningRate(progress_.step, o_.warmup, total_steps_, o_.lr);
    int64_t k = 0;
    const double loss = Step(batches_[order[pos]], lr, &k);
    const int64_t step = ++progress_.step;
    log_.Add(loss, step, total_steps_, epoch, lr, k);
    if (step % o_.checkpoint_every == 0) Save();
    if (time_limit > 0 && Seconds(t0_, Clock::now()) > time_limit) {
      Save();
      return false;
    }
  }
  return true;
}

// Writes OUT/name: the checkpoint and its tokenizer.
void Trainer::SaveCheckpoint(const std::string& name, const ModelConfig& config) {
  const std::string dir = (fs::path(o_.out) / name).string();
  auto s = net::SaveCheckpoint(dir, config, model_);
  if (s.ok()) s = CopyFile(tokenizer_path_, (fs::path(dir) / config.tokenizer.file).string());
  if (!s.ok()) std::fprintf(stderr, "saving %s: %s\n", name.c_str(), s.ToString().c_str());
}

// End of an epoch: validates and saves best/ when it is the best so far. Returns true when
// patience has run out.
bool Trainer::EndEpoch(int epoch) {
  model_->eval();
  const Checkpoint ck{config_, model_, o_.out, ""};
  const auto v0 = Clock::now();
  const RougeMean m = Validate(ck, data_.valid, pad_);
  const double score = m.r1 + m.r2 + m.rlsum;
  nlohmann::json history = nlohmann::json::parse(progress_.history_json);
  history.push_back({{"epoch", epoch + 1},
                     {"step", progress_.step},
                     {"r1", m.r1},
                     {"r2", m.r2},
                     {"rl", m.rl},
                     {"rlsum", m.rlsum}});
  progress_.history_json = history.dump();
  const bool improved = score > progress_.best;
  std::printf("epoch %d valid ROUGE-1 %.2f ROUGE-2 %.2f ROUGE-L %.2f ROUGE-Lsum %.2f (%.0f s)%s\n",
              epoch + 1, m.r1, m.r2, m.rl, m.rlsum, Seconds(v0, Clock::now()),
              improved ? " best" : "");
  std::fflush(stdout);
  if (!improved) return ++progress_.bad_epochs >= o_.patience;
  ModelConfig c = config_;
  nlohmann::json training = {{"epoch", epoch + 1},
                             {"step", progress_.step},
                             {"valid", history.back()},
                             {"command", "scripts/train-model"}};
  // Which stage made these weights, and from what: scripts/train-model pre-trains, then fine-tunes.
  if (!o_.pretrain_file.empty()) {
    training["pretrained_on"] = fs::path(o_.pretrain_file).filename().string();
  }
  if (!o_.init_from.empty()) training["initialised_from"] = o_.init_from;
  c.training_json = training.dump();
  progress_.best = score;
  progress_.best_epoch = epoch + 1;
  progress_.bad_epochs = 0;
  SaveCheckpoint("best", c);
  return false;
}

absl::StatusOr<TrainOutcome> Trainer::Run() {
  fs::create_directories(state_);
  opt_ = std::make_unique<torch::optim::AdamW>(
      Modules().Parameters(), torch::optim::AdamWOptions(o_.lr).weight_decay(o_.weight_decay));
  if (!o_.init_from.empty() && !fs::exists(state_ / "progress.json")) {
    RPSUM_RETURN_IF_ERROR(InitFrom(o_.init_from, config_.architecture, model_));
  }
  auto resumed = LoadState(state_, Modules(), *opt_);
  if (!resumed.ok()) {
    return absl::Status(
        resumed.status().code(),
        absl::StrCat("cannot resume from ", state_.string(), ": ", resumed.status().message()));
  }
  progress_ = *resumed;
  trained_before_ = progress_.trained_seconds;
  if (progress_.step > 0) {
    std::printf("resumed at step %lld (best valid R1+R2+RLsum %.2f at epoch %d)\n",
                static_cast<long long>(progress_.step), progress_.best, progress_.best_epoch);
  }
  const auto steps_per_epoch = static_cast<int64_t>(batches_.size());
  std::printf("training: %lld steps per epoch, %d epochs at most, %lld steps\n",
              static_cast<long long>(steps_per_epoch), o_.epochs,
              static_cast<long long>(total_steps_));
  std::fflush(stdout);
  for (;;) {
    const NextAction next = NextAfter(progress_, steps_per_epoch, total_steps_, o_.patience);
    if (next.kind == NextAction::kDone) break;
    if (next.kind == NextAction::kValidate) {
      // End of an epoch (or of the step budget): validate, keep the best.
      const bool stop = EndEpoch(next.epoch);
      Save();
      if (stop) {
        std::printf("early stop: no validation gain for %d epochs\n", progress_.bad_epochs);
        break;
      }
      continue;
    }
    model_->train();
    if (!RunEpoch(next.epoch)) {
      std::printf("time limit reached at step %lld; state saved, run the same command to resume\n",
                  static_cast<long long>(progress_.step));
      return TrainOutcome::kTimeLimit;
    }
  }
  std::printf(
      "done: best epoch %d (valid R1+R2+RLsum %.2f), %.1f min in total; checkpoint in "
      "%s/best\n",
      progress_.best_epoch, progress_.best, (trained_before_ + Seconds(t0_, Clock::now())) / 60,
      o_.out.c_str());
  return TrainOutcome::kDone;
}

}  // namespace

absl::StatusOr<TrainOutcome> Train(const TrainOptions& o) {
  fs::create_directories(fs::path(o.out) / "state");
  at::set_num_threads(o.threads);
  at::manual_seed(o.seed);
  auto tokenizer_path = EnsureTokenizer(o);
  if (!tokenizer_path.ok()) return tokenizer_path.status();
  std::string error;
  auto tokenizer = model::Tokenizer::Load(*tokenizer_path, &error);
  if (!tokenizer) return absl::NotFoundError(absl::StrCat("tokenizer: ", error));
  if (o.mlm_weight > 0 && (tokenizer->marker_id() == kMaskId || tokenizer->pad_id() == kMaskId)) {
    return absl::InvalidArgumentError(
        "--mlm_weight: the tokenizer uses the mask id for its marker or padding");
  }
  ModelConfig config = o.config;
  config.architecture.vocab_size = tokenizer->vocab_size();
  auto data = LoadTrainingData(o, config, *tokenizer);
  if (!data.ok()) return data.status();
  Trainer trainer(o, std::move(config), *std::move(tokenizer_path), *tokenizer, *std::move(data));
  return trainer.Run();
}

}  // namespace rpsum::train
