// rpsum-train: trains the extractive scorer on the corpus with our own C++ code.
//
// Trains a SentencePiece tokenizer (if the output has none), prepares every document, labels
// units with the greedy ROUGE oracle, and trains with AdamW (warmup, linear decay), dropout,
// gradient clipping, batches of similar length under a token budget and clip distances k
// sampled from the k policy. Validation ROUGE after every epoch picks the best checkpoint
// (early stopping). Interruptible: the state is saved every --checkpoint_every steps and at
// --time_limit_min, and the same command resumes from it.
// clang-format off
#include <torch/types.h>  // first: clip_grad.h needs it and does not include it
// clang-format on
#include <ATen/ATen.h>
#include <c10/core/InferenceMode.h>
#include <torch/nn/utils/clip_grad.h>
#include <torch/optim/adamw.h>
#include <torch/serialize.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "base/files.h"
#include "base/status_macros.h"
#include "model/select.h"
#include "model/summarizer.h"
#include "model/tokenizer.h"
#include "model/torch/checkpoint.h"
#include "model/torch/inference.h"
#include "model/torch/safetensors.h"
#include "nlohmann/json.hpp"
#include "train/evaluate.h"
#include "train/oracle.h"
#include "train/schedule.h"
#include "train/training.h"

ABSL_FLAG(std::string, data_dir, "../shared/data/corpus",
          "corpus folders, comma-separated (train/valid .jsonl.gz of each)");
ABSL_FLAG(std::string, valid_dir, "",
          "corpus folders to validate on, comma-separated (default: --data_dir)");
ABSL_FLAG(std::string, out, "runs/rpsum-ext", "output folder: state/, best/ (the checkpoint)");
ABSL_FLAG(std::string, tokenizer, "", "existing SentencePiece model (default: train one)");
ABSL_FLAG(int, vocab_size, 8000, "tokenizer vocabulary size when training one");
ABSL_FLAG(int, hidden, 192, "hidden size");
ABSL_FLAG(int, heads, 4, "attention heads");
ABSL_FLAG(int, ffn, 768, "feed-forward size");
ABSL_FLAG(int, token_layers, 3, "token-level RPR layers");
ABSL_FLAG(int, sentence_layers, 2, "sentence-level RPR layers");
ABSL_FLAG(int, max_clip, 256, "largest clip distance K (table half-width)");
ABSL_FLAG(int, sentence_clip, 16, "clip distance of the sentence layers");
ABSL_FLAG(int, clip_policy_max, 64,
          "clip_policy.max of the saved config: the largest k the policy picks (at most "
          "--max_clip; training still samples every bucket)");
ABSL_FLAG(int, local_threshold, 1024, "tokens above which attention is block-local");
ABSL_FLAG(int, local_window, 256, "block-local window (tokens each side)");
ABSL_FLAG(int, max_tokens_per_sentence, 48, "tokens kept per unit");
ABSL_FLAG(int, max_tokens, 3072, "training cap on tokens per document (head truncation)");
ABSL_FLAG(double, dropout, 0.1, "dropout");
ABSL_FLAG(int, epochs, 6, "epochs at most");
ABSL_FLAG(int, patience, 2, "epochs without validation gain before stopping");
ABSL_FLAG(double, lr, 5e-4, "peak learning rate");
ABSL_FLAG(double, weight_decay, 0.01, "AdamW weight decay");
ABSL_FLAG(int, warmup, 100, "warmup steps");
ABSL_FLAG(int, batch_tokens, 8192, "token budget of a batch (B x longest)");
ABSL_FLAG(double, pos_weight, 2.0, "BCE weight of oracle-selected units");
ABSL_FLAG(double, rank_weight, 0.0,
          "weight of the listwise ranking loss (train/training.h ListwiseLoss) added to the "
          "BCE (0: BCE only)");
ABSL_FLAG(double, ema_decay, 0.0,
          "keep an exponential moving average of the weights with this decay (train/training.h "
          "WeightAverage; 0: off): validation and the saved checkpoint use the average, and each "
          "epoch's line also reports the raw weights");
ABSL_FLAG(bool, keep_epochs, false,
          "also save each epoch's validated weights as OUT/epoch-N, a checkpoint like best/ "
          "(for experiments that score every epoch, not only the best)");
ABSL_FLAG(int, features, rpsum::model::kNumFeatures,
          "unit features the model reads (the first N of model/model_config.h's kNumFeatures; "
          "6: model v1's, without the centrality and section features)");
ABSL_FLAG(std::string, feature_columns, "",
          "comma-separated feature columns the model reads, in order (model/model_config.h "
          "kNumFeatures; e.g. 0,1,2,3,4,5,8,9: v1's six and the section features; 10,11: the "
          "budget); overrides --features");
ABSL_FLAG(double, centrality_weight, 0.0,
          "scoring.centrality_weight of the checkpoint's config (model/model_config.h "
          "ScoringConfig): the served score adds this many standard deviations of content "
          "centrality to the logit; validation and the saved model use it");
ABSL_FLAG(std::string, pretrain_file, "",
          "self-supervised pre-training: train on this .jsonl(.gz) of documents without "
          "summaries, each labelled with a pseudo-summary of its most central units "
          "(--pseudo_ratio of its words; see PseudoSummary); validation stays on --valid_dir");
ABSL_FLAG(std::string, section_file, "",
          "structure-derived training records: add to the --data_dir training records every "
          "document of this .jsonl(.gz) (documents without summaries, ../shared/data/unlabeled) "
          "whose Abstract / Summary section can serve as its summary (train/corpus.h "
          "SectionSummaries; docs/design.md, section 3)");
ABSL_FLAG(int, section_min_summary, 15, "--section_file: fewest words of a kept summary");
ABSL_FLAG(int, section_min_document, 400,
          "--section_file: fewest words of a kept document once its summary is cut");
ABSL_FLAG(double, pseudo_ratio, 0.05,
          "words of a pre-training document's pseudo-summary, as a fraction of its words");
ABSL_FLAG(std::string, teacher, "",
          "self-training: label each --pretrain_file document's units with this checkpoint's "
          "probabilities (sigmoid of its logits, no centrality weight) instead of a centrality "
          "pseudo-summary; it must use the same tokenizer");
ABSL_FLAG(double, mlm_weight, 0.0,
          "weight of a masked-token loss added to the unit loss (pre-training on --pretrain_file: "
          "train/training.h MaskTokens; 0: none)");
ABSL_FLAG(double, mlm_ratio, 0.15, "share of the tokens masked when --mlm_weight > 0");
ABSL_FLAG(double, salience_weight, 0.0,
          "weight of a token salience loss added to the unit loss of labelled documents: a "
          "tagger of the tokens whose piece the reference uses (train/training.h "
          "TokenSalienceLabels; 0: none)");
ABSL_FLAG(double, salience_common_share, 0.25,
          "--salience_weight ignores the pieces found in more than this share of the training "
          "references");
ABSL_FLAG(std::string, init_from, "",
          "start from this checkpoint directory's weights (same architecture; fine-tuning "
          "after --pretrain_file); ignored when resuming a saved state");
ABSL_FLAG(double, soft_labels, 0.0,
          "weight of the soft salience in the labels (0: binary greedy oracle; see "
          "TrainingLabels in train/oracle.h)");
ABSL_FLAG(int, oracle_beam, 0,
          "the oracle part of the labels: 0 the greedy oracle's units (binary); N > 0 each "
          "unit's oracle expectation over a beam of N selections (train/oracle.h "
          "OracleExpectation), mixed with the salience by --soft_labels the same way");
ABSL_FLAG(std::string, model_version, "2",
          "version of the saved config (models/rpsum-ext/config.json \"version\"; model v1 was 1)");
ABSL_FLAG(int, seed, 1, "random seed");
ABSL_FLAG(int, threads, 2, "torch intra-op threads");
ABSL_FLAG(int, checkpoint_every, 100, "steps between saved states");
ABSL_FLAG(int, max_docs, 0,
          "train on a random sample of N training documents, fixed by --seed (0: all); the "
          "files are ordered by source, so a prefix would not be a sample");
ABSL_FLAG(int, valid_docs, 0, "validate on the first N valid documents (0: all)");
ABSL_FLAG(int, max_steps, 0, "stop after this many steps in total (0: no limit)");
ABSL_FLAG(double, time_limit_min, 0, "save and stop after this many minutes (0: no limit)");
ABSL_FLAG(std::string, positions, "relative",
          "where the network learns order from (model/model_config.h Architecture::positions): "
          "relative (the shipped model); sinusoidal or learned absolute positions; none. Any but "
          "relative trains at clip distance 0, token and unit level (every distance reads its "
          "table's centre row), and ties each table to its centre row before validating and "
          "saving, so the checkpoint computes the same at any k (train/training.h "
          "TieRelativeTables)");
ABSL_FLAG(int64_t, max_positions, 4096,
          "rows of the learned position tables (--positions learned)");
ABSL_FLAG(std::string, head_clip_multipliers, "",
          "layered clipping: one multiplier per head, comma-separated; head h uses "
          "min(k * m[h], --max_clip) (empty: every head k)");
ABSL_FLAG(bool, checkpoint_layers, false,
          "gradient checkpointing of the token layers: recompute their activations in the "
          "backward instead of keeping them (less memory for long documents, one more forward)");

namespace rpsum::model {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct TrainDoc {
  const PreparedDocument* prepared;
  std::vector<float> labels;              // per kept unit
  std::vector<int8_t> token_labels = {};  // per token, with --salience_weight
};

// The heads that train beside the model and are not part of its checkpoint; null unless their
// flag is set.
struct AuxHeads {
  MaskedTokenHead mlm{nullptr};
  TokenSalienceHead salience{nullptr};

  // The model's parameters, then those of each head there is: what the optimizer trains and
  // the gradient clipping reads, in one order.
  std::vector<at::Tensor> TrainedWith(const ExtractiveScorer& model) const {
    std::vector<at::Tensor> out = model->parameters();
    if (mlm) {
      for (const at::Tensor& p : mlm->parameters()) out.push_back(p);
    }
    if (salience) {
      for (const at::Tensor& p : salience->parameters()) out.push_back(p);
    }
    return out;
  }
};

// A module's parameters by name, as the state files hold them.
NamedTensors Named(const torch::nn::Module& m) {
  NamedTensors out;
  for (const auto& p : m.named_parameters()) out.emplace_back(p.key(), p.value());
  return out;
}

double Seconds(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

absl::Status EnsureTokenizer(const std::string& out, std::string* path) {
  if (!absl::GetFlag(FLAGS_tokenizer).empty()) {
    *path = absl::GetFlag(FLAGS_tokenizer);
    return absl::OkStatus();
  }
  *path = (fs::path(out) / "tokenizer.model").string();
  if (fs::exists(*path)) return absl::OkStatus();
  auto train = ReadCorpusSplit(absl::GetFlag(FLAGS_data_dir), "train");
  if (!train.ok()) return train.status();
  const std::string lines = (fs::path(out) / "tokenizer_input.txt").string();
  {
    std::ofstream f(lines);
    for (const auto& r : *train) f << r.title << "\n" << r.document << "\n" << r.summary << "\n";
  }
  std::printf("training a %d-piece SentencePiece tokenizer on %zu documents...\n",
              absl::GetFlag(FLAGS_vocab_size), train->size());
  std::fflush(stdout);
  TokenizerTrainOptions o;
  o.input_file = lines;
  o.model_prefix = (fs::path(out) / "tokenizer").string();
  o.vocab_size = absl::GetFlag(FLAGS_vocab_size);
  o.num_threads = absl::GetFlag(FLAGS_threads);
  std::string error;
  if (!TrainTokenizer(o, &error)) return absl::InternalError(error);
  fs::remove(lines);
  return absl::OkStatus();
}

ModelConfig ConfigFromFlags(int vocab) {
  ModelConfig c;
  c.name = "rpsum-ext";
  c.version = absl::GetFlag(FLAGS_model_version);
  Architecture& a = c.architecture;
  a.vocab_size = vocab;
  a.hidden_size = absl::GetFlag(FLAGS_hidden);
  a.heads = absl::GetFlag(FLAGS_heads);
  a.ffn_size = absl::GetFlag(FLAGS_ffn);
  a.token_layers = absl::GetFlag(FLAGS_token_layers);
  a.sentence_layers = absl::GetFlag(FLAGS_sentence_layers);
  a.max_clip_distance = absl::GetFlag(FLAGS_max_clip);
  a.sentence_clip_distance = absl::GetFlag(FLAGS_sentence_clip);
  a.num_features = absl::GetFlag(FLAGS_features);
  a.positions = absl::GetFlag(FLAGS_positions);
  a.max_positions = absl::GetFlag(FLAGS_max_positions);
  for (absl::string_view m :
       absl::StrSplit(absl::GetFlag(FLAGS_head_clip_multipliers), ',', absl::SkipEmpty())) {
    int64_t v = 0;
    if (!absl::SimpleAtoi(m, &v)) v = 0;  // Validate() names the bad entry
    a.head_clip_multipliers.push_back(v);
  }
  for (absl::string_view col :
       absl::StrSplit(absl::GetFlag(FLAGS_feature_columns), ',', absl::SkipEmpty())) {
    int64_t v = -1;
    if (!absl::SimpleAtoi(col, &v)) v = -1;  // Validate() names the bad column
    a.feature_columns.push_back(v);
  }
  if (!a.feature_columns.empty()) a.num_features = static_cast<int64_t>(a.feature_columns.size());
  c.scoring.centrality_weight = absl::GetFlag(FLAGS_centrality_weight);
  a.dropout = absl::GetFlag(FLAGS_dropout);
  c.clip_policy.ratio = 8;
  c.clip_policy.min = 4;
  c.clip_policy.max = std::min<int64_t>(absl::GetFlag(FLAGS_clip_policy_max), a.max_clip_distance);
  c.clip_policy.buckets.clear();
  for (int64_t b = 4; b <= a.max_clip_distance; b *= 2) c.clip_policy.buckets.push_back(b);
  c.attention.local_threshold = absl::GetFlag(FLAGS_local_threshold);
  c.attention.local_window = absl::GetFlag(FLAGS_local_window);
  c.tokenizer.max_tokens_per_sentence = absl::GetFlag(FLAGS_max_tokens_per_sentence);
  return c;
}

// Validation: mean ROUGE F1 x 100 of the model's summaries.
RougeMean Validate(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int32_t pad) {
  RougeMean m;
  for (const EvalDoc& d : docs) {
    const int64_t k = ClipDistanceFor(ck.config, d.prepared.num_tokens());
    const RerankConfig& rerank = ck.config.scoring.rerank;
    auto scores = ScoreDocuments(ck, {&d.prepared}, k, pad, NeedsUnitStates(rerank));
    if (!scores.ok()) continue;
    const DocumentScores& s = (*scores)[0];
    m.Add(ScoreSummary(
        d, SummaryFromScores(d, s.scores, rerank, {s.unit_states.data(), s.state_size})));
  }
  return m.Mean();
}

// WidenFeatureProjection (train/training.h) for --init_from DIR, whose config.json says what
// its network reads.
absl::Status WidenFromCheckpoint(const std::string& from_dir, const Architecture& to,
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

absl::Status CopyFile(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
  return ec ? absl::UnavailableError(absl::StrCat("copy ", from, ": ", ec.message()))
            : absl::OkStatus();
}

// The prepared corpora: training documents with their labels, validation documents whole.
struct Data {
  std::vector<CorpusRecord> train_records, valid_records;
  std::vector<EvalDoc> train, valid;
  std::vector<TrainDoc> docs;  // parallel to train
};

// Zeroes the centrality features of a pre-training document, so the network has to learn
// salience from the text instead of copying them.
void HideCentrality(PreparedDocument* p) {
  for (size_t u = 0; u < p->kept.size(); ++u) {
    for (int col = kNumFeaturesV1; col <= kFeatureContentCentrality; ++col) {
      p->features[u * kNumFeatures + col] = 0;
    }
  }
}

// The pseudo-summary of a pre-training document (PEGASUS's gap sentences, chosen rather than
// masked): its units by content centrality (kFeatureContentCentrality), most central first,
// until `ratio` of the kept words, joined in document order. The centrality features are then
// zeroed in `doc`, so the model has to learn salience from the text instead of copying them.
std::string PseudoSummary(EvalDoc* doc, double ratio) {
  PreparedDocument& p = doc->prepared;
  const size_t n = doc->texts.size();
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  auto centrality = [&](int32_t u) {
    return p.features[u * kNumFeatures + kFeatureContentCentrality];
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return centrality(a) > centrality(b); });
  int64_t words = 0;
  for (int32_t w : doc->words) words += w;
  const double budget = std::max(1.0, ratio * static_cast<double>(words));
  std::vector<int32_t> chosen;
  int64_t used = 0;
  for (int32_t u : order) {
    if (used >= budget) break;
    if (p.units[p.kept[u]].kind == UnitKind::kHeading) continue;
    chosen.push_back(u);
    used += doc->words[u];
  }
  std::sort(chosen.begin(), chosen.end());
  std::string summary;
  for (int32_t u : chosen) {
    if (!summary.empty()) summary += '\n';
    summary.append(doc->texts[u]);
  }
  HideCentrality(&p);
  return summary;
}

// Self-training labels (--teacher): per document of `docs`, the teacher checkpoint's
// probability of each kept unit, as it scores the document at its own clip policy. The teacher
// reads the same prepared input as the student, so it must use the same tokenizer (its
// tokenizer file must be byte-identical to `tokenizer_path`).
absl::StatusOr<std::vector<std::vector<float>>> TeacherLabels(const std::string& dir,
                                                              const std::string& tokenizer_path,
                                                              int32_t pad,
                                                              const std::vector<EvalDoc>& docs) {
  const auto t0 = Clock::now();
  auto teacher = LoadCheckpoint(dir, "cpu");
  if (!teacher.ok()) return teacher.status();
  const fs::path theirs = fs::path(dir) / teacher->config.tokenizer.file;
  auto their_sha = Sha256File(theirs.string());
  if (!their_sha.ok()) return their_sha.status();
  auto our_sha = Sha256File(tokenizer_path);
  if (!our_sha.ok()) return our_sha.status();
  if (*their_sha != *our_sha) {
    return absl::InvalidArgumentError(absl::StrCat("--teacher ", dir, ": its tokenizer (",
                                                   theirs.string(), ") is not ", tokenizer_path,
                                                   ", the one this run trains with"));
  }
  std::vector<std::vector<float>> out;
  out.reserve(docs.size());
  double sum = 0;
  int64_t units = 0;
  for (const EvalDoc& d : docs) {
    const int64_t k = ClipDistanceFor(teacher->config, d.prepared.num_tokens());
    auto scores = ScoreDocuments(*teacher, {&d.prepared}, k, pad);
    if (!scores.ok()) return scores.status();
    for (float p : (*scores)[0].scores) sum += p;
    units += static_cast<int64_t>((*scores)[0].scores.size());
    out.push_back(std::move((*scores)[0].scores));
  }
  std::printf("teacher %s labelled %zu documents in %.0f s: mean unit label %.3f\n", dir.c_str(),
              docs.size(), Seconds(t0, Clock::now()),
              sum / static_cast<double>(std::max<int64_t>(units, 1)));
  std::fflush(stdout);
  return out;
}

absl::StatusOr<std::vector<CorpusRecord>> TrainingRecords() {
  if (!absl::GetFlag(FLAGS_pretrain_file).empty()) {
    return ReadCorpus(absl::GetFlag(FLAGS_pretrain_file));
  }
  auto records = ReadCorpusSplit(absl::GetFlag(FLAGS_data_dir), "train");
  if (!records.ok() || absl::GetFlag(FLAGS_section_file).empty()) return records;
  const std::string& file = absl::GetFlag(FLAGS_section_file);
  auto unlabeled = ReadCorpus(file);
  if (!unlabeled.ok()) return unlabeled.status();
  SectionOptions options;
  options.min_summary_words = absl::GetFlag(FLAGS_section_min_summary);
  options.min_document_words = absl::GetFlag(FLAGS_section_min_document);
  SectionCounts n;
  std::vector<CorpusRecord> sections = SectionSummaries(*unlabeled, options, &n);
  std::printf(
      "section summaries from %s: %lld of %zu documents kept (no summary section %lld, summary "
      "under %d words %lld, rest under %d words %lld, summary over a third of the rest %lld)\n",
      file.c_str(), static_cast<long long>(n.kept), unlabeled->size(),
      static_cast<long long>(n.no_section), options.min_summary_words,
      static_cast<long long>(n.short_summary), options.min_document_words,
      static_cast<long long>(n.short_document), static_cast<long long>(n.long_summary));
  std::fflush(stdout);
  for (CorpusRecord& r : sections) records->push_back(std::move(r));
  return records;
}

absl::StatusOr<Data> LoadData(const ModelConfig& config, const Tokenizer& tokenizer,
                              const std::string& tokenizer_path) {
  Data data;
  auto train = TrainingRecords();
  if (!train.ok()) return train.status();
  if (const size_t n = static_cast<size_t>(absl::GetFlag(FLAGS_max_docs));
      n > 0 && n < train->size()) {
    std::mt19937 rng(static_cast<std::mt19937::result_type>(absl::GetFlag(FLAGS_seed)));
    std::shuffle(train->begin(), train->end(), rng);
    train->resize(n);
  }
  auto valid =
      ReadCorpusSplit(absl::GetFlag(FLAGS_valid_dir).empty() ? absl::GetFlag(FLAGS_data_dir)
                                                             : absl::GetFlag(FLAGS_valid_dir),
                      "valid", absl::GetFlag(FLAGS_valid_docs));
  if (!valid.ok()) return valid.status();
  data.train_records = *std::move(train);
  data.valid_records = *std::move(valid);
  PrepareOptions prep;
  prep.max_input_tokens = absl::GetFlag(FLAGS_max_tokens);
  prep.max_tokens_per_sentence = config.tokenizer.max_tokens_per_sentence;
  prep.truncation = TruncationPolicy::kHead;
  int skipped = 0, vskipped = 0;
  const auto t0 = Clock::now();
  const bool pretrain = !absl::GetFlag(FLAGS_pretrain_file).empty();
  data.train = PrepareCorpus(data.train_records, tokenizer, prep, !pretrain, &skipped);
  std::vector<std::vector<float>> teacher_labels;
  if (pretrain && !absl::GetFlag(FLAGS_teacher).empty()) {
    auto labels =
        TeacherLabels(absl::GetFlag(FLAGS_teacher), tokenizer_path, tokenizer.pad_id(), data.train);
    if (!labels.ok()) return labels.status();
    teacher_labels = *std::move(labels);
  }
  if (!teacher_labels.empty()) {
    for (EvalDoc& d : data.train) HideCentrality(&d.prepared);
  } else if (pretrain) {
    // The records own the references the labels are made from: give each its pseudo-summary.
    for (EvalDoc& d : data.train) {
      CorpusRecord* record = &data.train_records[d.record - data.train_records.data()];
      record->summary = PseudoSummary(&d, absl::GetFlag(FLAGS_pseudo_ratio));
      d.oracle = GreedyOracle(d.texts, record->summary);
      SetBudgetFeatures(&d.prepared, CountWords(record->summary));
    }
  }
  PrepareOptions vprep = prep;
  vprep.max_input_tokens = 32768;  // validate on whole documents, as served
  data.valid = PrepareCorpus(data.valid_records, tokenizer, vprep, false, &vskipped);
  int64_t total_tokens = 0, positives = 0, units = 0;
  for (size_t i = 0; i < data.train.size(); ++i) {
    const EvalDoc& d = data.train[i];
    const int beam = absl::GetFlag(FLAGS_oracle_beam);
    const double soft = absl::GetFlag(FLAGS_soft_labels);
    TrainDoc t{&d.prepared,
               !teacher_labels.empty() ? std::move(teacher_labels[i])
               : beam > 0
                   ? TrainingLabels(d.texts, d.record->summary,
                                    OracleExpectation(d.texts, d.record->summary, beam), soft)
                   : TrainingLabels(d.texts, d.record->summary, d.oracle, soft)};
    positives += static_cast<int64_t>(d.oracle.size());
    units += static_cast<int64_t>(t.labels.size());
    total_tokens += d.prepared.num_tokens();
    data.docs.push_back(std::move(t));
  }
  if (const double share = absl::GetFlag(FLAGS_salience_common_share);
      absl::GetFlag(FLAGS_salience_weight) > 0) {
    if (pretrain) {
      return absl::InvalidArgumentError(
          "--salience_weight labels tokens by reference summaries: not with --pretrain_file");
    }
    std::vector<std::vector<int32_t>> references(data.train.size());
    std::string error;
    for (size_t i = 0; i < data.train.size(); ++i) {
      if (!tokenizer.Encode(data.train[i].record->summary, &references[i], &error)) {
        return absl::InvalidArgumentError(absl::StrCat("--salience_weight: ", error));
      }
    }
    const std::set<int32_t> common = CommonPieces(references, share);
    int64_t labelled = 0, used = 0;
    for (size_t i = 0; i < data.docs.size(); ++i) {
      data.docs[i].token_labels = TokenSalienceLabels(data.train[i].prepared.tokens, references[i],
                                                      common, tokenizer.marker_id());
      for (int8_t l : data.docs[i].token_labels) {
        labelled += l >= 0 ? 1 : 0;
        used += l > 0 ? 1 : 0;
      }
    }
    std::printf(
        "token salience: %zu pieces in more than %.0f%% of the references ignored; %lld tokens "
        "labelled, %.1f%% of them in their reference\n",
        common.size(), 100 * share, static_cast<long long>(labelled),
        100.0 * static_cast<double>(used) / static_cast<double>(std::max<int64_t>(labelled, 1)));
  }
  std::printf(
      "prepared %zu train (%d skipped) and %zu valid documents in %.0f s: %lld tokens, "
      "%lld units, %s\n",
      data.docs.size(), skipped, data.valid.size(), Seconds(t0, Clock::now()),
      static_cast<long long>(total_tokens), static_cast<long long>(units),
      teacher_labels.empty() ? absl::StrFormat("%.1f%% oracle-positive",
                                               100.0 * static_cast<double>(positives) /
                                                   static_cast<double>(std::max<int64_t>(units, 1)))
                                   .c_str()
                             : "labelled by the teacher");
  return data;
}

// state/: the weights (safetensors), the optimizer (torch::save) and progress.json, each
// written to a temporary name and renamed, so an interrupted save leaves the last good state.
// With --ema_decay, the average too (ema.safetensors, the parameters' names); with
// --mlm_weight, the masked-token head (mlm.safetensors); with --salience_weight, the token
// salience head (salience.safetensors).
absl::Status SaveState(const fs::path& state, ExtractiveScorer& model, AuxHeads& heads,
                       torch::optim::AdamW& opt, WeightAverage* ema, const Progress& progress) {
  const NamedTensors t = Named(*model);
  NamedTensors avg;
  absl::Status s = WriteSafetensors((state / "model.safetensors").string(), t);
  if (heads.mlm && s.ok()) {
    s = WriteSafetensors((state / "mlm.safetensors").string(), Named(*heads.mlm));
  }
  if (heads.salience && s.ok()) {
    s = WriteSafetensors((state / "salience.safetensors").string(), Named(*heads.salience));
  }
  if (ema != nullptr && s.ok()) {
    for (size_t i = 0; i < t.size(); ++i) avg.emplace_back(t[i].first, ema->average()[i]);
    s = WriteSafetensors((state / "ema.safetensors").string(), avg);
  }
  torch::save(opt, (state / "optimizer.pt.tmp").string());
  fs::rename(state / "optimizer.pt.tmp", state / "optimizer.pt");
  std::ofstream(state / "progress.json.tmp") << progress.ToJson();
  fs::rename(state / "progress.json.tmp", state / "progress.json");
  return s;
}

// Copies the tensors `file` holds under the names of `params` into `into` (one tensor per
// parameter, in the same order), checking that each is there with the parameter's shape; `what`
// names the owner in the error.
absl::Status RestoreTensors(const fs::path& file,
                            const torch::OrderedDict<std::string, at::Tensor>& params,
                            const std::vector<at::Tensor>& into, const char* what) {
  auto saved = ReadSafetensors(file.string());
  if (!saved.ok()) return saved.status();
  at::NoGradGuard no_grad;
  size_t i = 0;
  for (const auto& p : params) {
    auto it = saved->find(p.key());
    if (it == saved->end() || !it->second.sizes().equals(p.value().sizes())) {
      return absl::DataLossError(
          absl::StrCat(file.string(), ": no tensor ", p.key(), " of the ", what, "'s shape"));
    }
    into[i++].copy_(it->second);
  }
  return absl::OkStatus();
}

// Loads state/ when there is one (returns a fresh Progress otherwise). With --ema_decay, *ema
// is the saved average, or starts from the model's weights (fresh, --init_from or resumed from
// a state saved without one).
absl::StatusOr<Progress> LoadState(const fs::path& state, ExtractiveScorer& model, AuxHeads& heads,
                                   torch::optim::AdamW& opt, std::unique_ptr<WeightAverage>* ema) {
  if (const double d = absl::GetFlag(FLAGS_ema_decay); d > 0) {
    *ema = std::make_unique<WeightAverage>(model->parameters(), d);
  }
  if (!fs::exists(state / "progress.json")) return Progress{};
  auto text = ReadFile((state / "progress.json").string());
  if (!text.ok()) return text.status();
  auto progress = Progress::FromJson(*text);
  if (!progress.ok()) return progress.status();
  auto w = ReadSafetensors((state / "model.safetensors").string());
  if (!w.ok()) return w.status();
  if (absl::Status s = AssignWeights(model, *w, "state"); !s.ok()) return s;
  if (heads.mlm) {
    absl::Status s = RestoreTensors(state / "mlm.safetensors", heads.mlm->named_parameters(),
                                    heads.mlm->parameters(), "head");
    if (!s.ok()) return s;
  }
  if (heads.salience) {
    absl::Status s =
        RestoreTensors(state / "salience.safetensors", heads.salience->named_parameters(),
                       heads.salience->parameters(), "salience head");
    if (!s.ok()) return s;
  }
  torch::load(opt, (state / "optimizer.pt").string());
  if (*ema != nullptr) {
    const fs::path file = state / "ema.safetensors";
    if (!fs::exists(file)) {
      *ema = std::make_unique<WeightAverage>(model->parameters(), absl::GetFlag(FLAGS_ema_decay));
      std::printf("no weight average in %s: it starts from the resumed weights\n",
                  state.string().c_str());
      return progress;
    }
    absl::Status s = RestoreTensors(file, model->named_parameters(), (*ema)->average(), "model");
    if (!s.ok()) return s;
  }
  return progress;
}

// The labels of a batch, [B, S] (0 past each document's units).
at::Tensor BatchLabels(const std::vector<TrainDoc>& docs, const std::vector<size_t>& b,
                       const ModelBatch& batch) {
  at::Tensor labels = at::zeros(batch.sentence_valid.sizes(), at::kFloat);
  for (size_t i = 0; i < b.size(); ++i) {
    const auto& l = docs[b[i]].labels;
    labels[static_cast<int64_t>(i)]
        .narrow(0, 0, static_cast<int64_t>(l.size()))
        .copy_(at::from_blob(const_cast<float*>(l.data()), {static_cast<int64_t>(l.size())}));
  }
  return labels;
}

// The token salience labels of a batch, [B, L] (negative where ignored and past each document's
// tokens).
at::Tensor BatchTokenLabels(const std::vector<TrainDoc>& docs, const std::vector<size_t>& b,
                            const ModelBatch& batch) {
  at::Tensor labels = at::full(batch.tokens.sizes(), -1.0F, at::kFloat);
  auto out = labels.accessor<float, 2>();
  for (size_t i = 0; i < b.size(); ++i) {
    const auto& l = docs[b[i]].token_labels;
    for (size_t j = 0; j < l.size(); ++j) {
      out[static_cast<int64_t>(i)][static_cast<int64_t>(j)] = l[j];
    }
  }
  return labels;
}

// One optimizer step on one batch; returns the loss and sets *k to the clip distance used.
// With a masked-token head, the unit loss is computed on the masked input and the head's loss,
// times --mlm_weight, is added; with a token salience head, its loss times --salience_weight.
double TrainStep(const ModelConfig& config, ExtractiveScorer& model, AuxHeads& heads,
                 torch::optim::AdamW& opt, const std::vector<TrainDoc>& docs,
                 const std::vector<size_t>& b, int32_t pad, int32_t marker, int64_t step, double lr,
                 int64_t* tokens, int64_t* k) {
  std::vector<const PreparedDocument*> prepared;
  prepared.reserve(b.size());
  for (size_t i : b) prepared.push_back(docs[i].prepared);
  ModelBatch batch = MakeBatch(prepared, pad, at::kCPU);
  MaskedTokens masked;
  MaskedTokenHead& mlm = heads.mlm;
  if (mlm) {
    masked = MaskTokens(
        batch.tokens, batch.token_valid, marker, config.architecture.vocab_size,
        absl::GetFlag(FLAGS_mlm_ratio),
        (static_cast<uint64_t>(absl::GetFlag(FLAGS_seed)) << 32) ^ static_cast<uint64_t>(step));
    batch.tokens = masked.input;
  }
  const bool tied = !UsesRelativePositions(config.architecture);
  *k = tied ? 0
            : TrainingClipDistance(config, absl::GetFlag(FLAGS_seed), step, batch.tokens.size(1));
  // Training batches hold documents of similar length: one plan for the batch.
  const AttentionPlan tp = TokenPlan(config, IsLocalAttention(config, batch.tokens.size(1)), *k);
  AttentionPlan sp =
      SentencePlan(config, IsLocalSentenceAttention(config, batch.sentence_pos.size(1)));
  if (tied) sp.head_k.assign(sp.head_k.size(), 0);
  for (auto& g : opt.param_groups()) static_cast<torch::optim::AdamWOptions&>(g.options()).lr(lr);
  const at::Tensor states = model->EncodeTokens(batch, tp);
  const at::Tensor logits = model->ScoreUnits(states, batch, sp);
  const at::Tensor labels = BatchLabels(docs, b, batch);
  at::Tensor loss =
      ExtractiveLoss(logits, labels, batch.sentence_valid, absl::GetFlag(FLAGS_pos_weight));
  if (const double w = absl::GetFlag(FLAGS_rank_weight); w > 0) {
    loss = loss + w * ListwiseLoss(logits, labels, batch.sentence_valid);
  }
  if (mlm) {
    loss = loss +
           absl::GetFlag(FLAGS_mlm_weight) * mlm->Loss(states, masked.target, model->embed->weight);
  }
  if (heads.salience) {
    loss = loss + absl::GetFlag(FLAGS_salience_weight) *
                      heads.salience->Loss(states, BatchTokenLabels(docs, b, batch));
  }
  opt.zero_grad();
  loss.backward();
  torch::nn::utils::clip_grad_norm_(heads.TrainedWith(model), 1.0);
  opt.step();
  *tokens += batch.token_valid.sum().item<int64_t>();
  return loss.item<double>();
}

// End of an epoch: validates, saves best/ when it is the best so far (and, with --keep_epochs,
// every epoch's weights as epoch-N/). Returns true when patience has run out. With a weight
// average, the raw weights are validated and reported first, then the average is what is
// validated, compared and saved.
bool EndEpoch(const ModelConfig& config, ExtractiveScorer& model, const Data& data, int32_t pad,
              int epoch, const std::string& out, const std::string& tok_path, WeightAverage* ema,
              Progress* progress) {
  model->eval();
  // Untrained rows would be read at k > 0; tied, every k computes the k = 0 model.
  if (!UsesRelativePositions(config.architecture)) TieRelativeTables(*model);
  Checkpoint ck{config, model, out, ""};
  nlohmann::json entry = {{"epoch", epoch + 1}, {"step", progress->step}};
  if (ema != nullptr) {
    const auto r0 = Clock::now();
    const RougeMean raw = Validate(ck, data.valid, pad);
    std::printf(
        "epoch %d raw weights: valid ROUGE-1 %.2f ROUGE-2 %.2f ROUGE-L %.2f ROUGE-Lsum "
        "%.2f (%.0f s)\n",
        epoch + 1, raw.r1, raw.r2, raw.rl, raw.rlsum, Seconds(r0, Clock::now()));
    entry["raw"] = {{"r1", raw.r1}, {"r2", raw.r2}, {"rl", raw.rl}, {"rlsum", raw.rlsum}};
    ema->Swap(model->parameters());
  }
  // The raw weights come back whichever way this returns.
  absl::Cleanup swap_back = [ema, &model] {
    if (ema != nullptr) ema->Swap(model->parameters());
  };
  const auto v0 = Clock::now();
  const RougeMean m = Validate(ck, data.valid, pad);
  const double score = m.r1 + m.r2 + m.rlsum;
  nlohmann::json history = nlohmann::json::parse(progress->history_json);
  entry.update({{"r1", m.r1}, {"r2", m.r2}, {"rl", m.rl}, {"rlsum", m.rlsum}});
  history.push_back(entry);
  progress->history_json = history.dump();
  const bool improved = score > progress->best;
  std::printf(
      "epoch %d %svalid ROUGE-1 %.2f ROUGE-2 %.2f ROUGE-L %.2f ROUGE-Lsum %.2f (%.0f s)%s\n",
      epoch + 1, ema != nullptr ? "weight average: " : "", m.r1, m.r2, m.rl, m.rlsum,
      Seconds(v0, Clock::now()), improved ? " best" : "");
  std::fflush(stdout);
  if (!improved && !absl::GetFlag(FLAGS_keep_epochs)) {
    return ++progress->bad_epochs >= absl::GetFlag(FLAGS_patience);
  }
  ModelConfig c = config;
  nlohmann::json training = {{"epoch", epoch + 1},
                             {"step", progress->step},
                             {"valid", history.back()},
                             {"command", "scripts/train-model"}};
  // Which stage made these weights, and from what: scripts/train-model pre-trains, then fine-tunes.
  if (!absl::GetFlag(FLAGS_pretrain_file).empty()) {
    training["pretrained_on"] = fs::path(absl::GetFlag(FLAGS_pretrain_file)).filename().string();
  }
  if (!absl::GetFlag(FLAGS_teacher).empty()) training["teacher"] = absl::GetFlag(FLAGS_teacher);
  if (!absl::GetFlag(FLAGS_init_from).empty()) {
    training["initialised_from"] = absl::GetFlag(FLAGS_init_from);
  }
  if (absl::GetFlag(FLAGS_oracle_beam) > 0) {
    training["oracle_beam"] = absl::GetFlag(FLAGS_oracle_beam);
  }
  if (!absl::GetFlag(FLAGS_section_file).empty()) {
    training["section_summaries_from"] =
        fs::path(absl::GetFlag(FLAGS_section_file)).filename().string();
  }
  c.training_json = training.dump();
  const auto save_as = [&](const std::string& name) {
    const std::string dir = (fs::path(out) / name).string();
    auto s = SaveCheckpoint(dir, c, model);
    if (s.ok()) s = CopyFile(tok_path, (fs::path(dir) / c.tokenizer.file).string());
    if (!s.ok()) std::fprintf(stderr, "saving %s: %s\n", name.c_str(), s.ToString().c_str());
  };
  if (absl::GetFlag(FLAGS_keep_epochs)) save_as(absl::StrCat("epoch-", epoch + 1));
  if (!improved) return ++progress->bad_epochs >= absl::GetFlag(FLAGS_patience);
  progress->best = score;
  progress->best_epoch = epoch + 1;
  progress->bad_epochs = 0;
  save_as("best");
  return false;
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

// The rest of epoch `epoch` from progress->step (a resumed run starts mid-epoch), saving every
// --checkpoint_every steps. Returns false when --time_limit_min ran out (state saved).
bool RunEpoch(const ModelConfig& config, ExtractiveScorer& model, AuxHeads& heads,
              torch::optim::AdamW& opt, const std::vector<TrainDoc>& docs,
              const std::vector<std::vector<size_t>>& batches, int32_t pad, int32_t marker,
              int epoch, int64_t total_steps, Clock::time_point t0,
              const std::function<void()>& save, WeightAverage* ema, Progress* progress,
              StepLog* log) {
  const int64_t steps_per_epoch = static_cast<int64_t>(batches.size());
  const std::vector<size_t> order = EpochOrder(batches.size(), absl::GetFlag(FLAGS_seed), epoch);
  const double time_limit = absl::GetFlag(FLAGS_time_limit_min) * 60;
  for (int64_t pos = progress->step % steps_per_epoch;
       pos < steps_per_epoch && progress->step < total_steps; ++pos) {
    const double lr = LearningRate(progress->step, absl::GetFlag(FLAGS_warmup), total_steps,
                                   absl::GetFlag(FLAGS_lr));
    int64_t k = 0;
    const double loss = TrainStep(config, model, heads, opt, docs, batches[order[pos]], pad, marker,
                                  progress->step, lr, &log->tokens, &k);
    if (ema != nullptr) ema->Update(model->parameters(), progress->step);
    const int64_t step = ++progress->step;
    log->Add(loss, step, total_steps, epoch, lr, k);
    if (step % absl::GetFlag(FLAGS_checkpoint_every) == 0) save();
    if (time_limit > 0 && Seconds(t0, Clock::now()) > time_limit) {
      save();
      return false;
    }
  }
  return true;
}

int Fail(const std::string& what, const absl::Status& s) {
  std::fprintf(stderr, "rpsum-train: %s: %s\n", what.c_str(), s.ToString().c_str());
  return 1;
}

int Run() {
  const auto t0 = Clock::now();
  if (!absl::GetFlag(FLAGS_teacher).empty() && absl::GetFlag(FLAGS_pretrain_file).empty()) {
    return Fail("--teacher", absl::InvalidArgumentError(
                                 "labels documents without summaries: it needs --pretrain_file"));
  }
  if (!absl::GetFlag(FLAGS_section_file).empty() && !absl::GetFlag(FLAGS_pretrain_file).empty()) {
    return Fail("--section_file",
                absl::InvalidArgumentError("adds labelled records to --data_dir's; pre-training "
                                           "(--pretrain_file) reads no labelled records"));
  }
  const std::string out = absl::GetFlag(FLAGS_out);
  const fs::path state = fs::path(out) / "state";
  fs::create_directories(state);
  at::set_num_threads(absl::GetFlag(FLAGS_threads));
  at::manual_seed(absl::GetFlag(FLAGS_seed));

  std::string tok_path, error;
  if (auto s = EnsureTokenizer(out, &tok_path); !s.ok()) return Fail("tokenizer", s);
  auto tokenizer = Tokenizer::Load(tok_path, &error);
  if (!tokenizer) return Fail("tokenizer", absl::NotFoundError(error));
  const ModelConfig config = ConfigFromFlags(tokenizer->vocab_size());
  auto data = LoadData(config, *tokenizer, tok_path);
  if (!data.ok()) return Fail("corpus", data.status());

  std::vector<int64_t> lengths;
  lengths.reserve(data->docs.size());
  for (const TrainDoc& d : data->docs) lengths.push_back(d.prepared->num_tokens());
  const auto batches = LengthBatches(lengths, absl::GetFlag(FLAGS_batch_tokens));
  const int epochs = absl::GetFlag(FLAGS_epochs);
  const int64_t steps_per_epoch = static_cast<int64_t>(batches.size());
  int64_t total_steps = steps_per_epoch * epochs;
  if (absl::GetFlag(FLAGS_max_steps) > 0) {
    total_steps = std::min<int64_t>(total_steps, absl::GetFlag(FLAGS_max_steps));
  }

  if (!UsesRelativePositions(config.architecture) && absl::GetFlag(FLAGS_ema_decay) > 0) {
    return Fail("--positions", absl::InvalidArgumentError(
                                   "not with --ema_decay: the average's tables are not tied"));
  }
  ExtractiveScorer model(config.architecture);
  model->set_checkpoint_layers(absl::GetFlag(FLAGS_checkpoint_layers));
  // The auxiliary heads train beside the model and are not part of its checkpoint.
  AuxHeads heads;
  if (absl::GetFlag(FLAGS_mlm_weight) > 0) {
    if (tokenizer->marker_id() == kMaskId || tokenizer->pad_id() == kMaskId) {
      return Fail("--mlm_weight", absl::InvalidArgumentError(
                                      "the tokenizer uses the mask id for its marker or padding"));
    }
    heads.mlm = MaskedTokenHead(config.architecture.hidden_size, config.architecture.vocab_size);
  }
  if (absl::GetFlag(FLAGS_salience_weight) > 0) {
    heads.salience = TokenSalienceHead(config.architecture.hidden_size);
  }
  torch::optim::AdamW opt(heads.TrainedWith(model),
                          torch::optim::AdamWOptions(absl::GetFlag(FLAGS_lr))
                              .weight_decay(absl::GetFlag(FLAGS_weight_decay)));
  if (!absl::GetFlag(FLAGS_init_from).empty() && !fs::exists(state / "progress.json")) {
    const std::string from = absl::GetFlag(FLAGS_init_from) + "/weights.safetensors";
    auto w = ReadSafetensors(from);
    if (!w.ok()) return Fail("--init_from", w.status());
    if (auto s = WidenFromCheckpoint(absl::GetFlag(FLAGS_init_from), config.architecture, &*w);
        !s.ok()) {
      return Fail("--init_from", s);
    }
    if (auto s = AssignWeights(model, *w, from); !s.ok()) return Fail("--init_from", s);
    std::printf("initialised from %s\n", from.c_str());
  }
  std::unique_ptr<WeightAverage> ema;
  auto resumed = LoadState(state, model, heads, opt, &ema);
  if (!resumed.ok()) {
    return Fail(absl::StrCat("cannot resume from ", state.string()), resumed.status());
  }
  Progress progress = *resumed;
  const double trained_before = progress.trained_seconds;
  if (progress.step > 0) {
    std::printf("resumed at step %lld (best valid R1+R2+RLsum %.2f at epoch %d)\n",
                static_cast<long long>(progress.step), progress.best, progress.best_epoch);
  }
  auto save = [&] {
    progress.trained_seconds = trained_before + Seconds(t0, Clock::now());
    if (auto s = SaveState(state, model, heads, opt, ema.get(), progress); !s.ok()) {
      std::fprintf(stderr, "saving state: %s\n", s.ToString().c_str());
    }
  };

  const int32_t pad = tokenizer->pad_id();
  std::printf("training: %lld steps per epoch, %d epochs at most, %lld steps\n",
              static_cast<long long>(steps_per_epoch), epochs, static_cast<long long>(total_steps));
  std::fflush(stdout);
  StepLog log;
  for (;;) {
    const NextAction next =
        NextAfter(progress, steps_per_epoch, total_steps, absl::GetFlag(FLAGS_patience));
    if (next.kind == NextAction::kDone) break;
    if (next.kind == NextAction::kValidate) {
      // End of an epoch (or of the step budget): validate, keep the best.
      const bool stop =
          EndEpoch(config, model, *data, pad, next.epoch, out, tok_path, ema.get(), &progress);
      save();
      if (stop) {
        std::printf("early stop: no validation gain for %d epochs\n", progress.bad_epochs);
        break;
      }
      continue;
    }
    model->train();
    if (!RunEpoch(config, model, heads, opt, data->docs, batches, pad, tokenizer->marker_id(),
                  next.epoch, total_steps, t0, save, ema.get(), &progress, &log)) {
      std::printf("time limit reached at step %lld; state saved, run the same command to resume\n",
                  static_cast<long long>(progress.step));
      return 3;
    }
  }
  std::printf(
      "done: best epoch %d (valid R1+R2+RLsum %.2f), %.1f min in total; checkpoint in "
      "%s/best\n",
      progress.best_epoch, progress.best, (trained_before + Seconds(t0, Clock::now())) / 60,
      out.c_str());
  return 0;
}

}  // namespace
}  // namespace rpsum::model

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Trains the rpsum extractive model. Resumable: rerun to continue.");
  absl::ParseCommandLine(argc, argv);
  try {
    return rpsum::model::Run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpsum-train: %s\n", e.what());
    return 1;
  }
}
