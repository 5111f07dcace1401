// rpsum-train: trains the extractive scorer on the corpus with our own C++ code (train/trainer.h
// says how). The flags are read once, into TrainOptions. Resumable: rerun the same command.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "absl/flags/flag.h"
#include "model/model_config.h"
#include "train/tool_main.h"
#include "train/trainer.h"

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
ABSL_FLAG(int, unit_layers, 2, "unit-level RPR layers");
ABSL_FLAG(int, max_clip, 256, "largest clip distance K (table half-width)");
ABSL_FLAG(int, unit_clip, 16, "clip distance of the unit layers");
ABSL_FLAG(int, clip_policy_max, 64,
          "clip_policy.max of the saved config: the largest k the policy picks (at most "
          "--max_clip; training still samples every bucket)");
ABSL_FLAG(int, local_threshold, 1024, "tokens above which attention is block-local");
ABSL_FLAG(int, local_window, 256, "block-local window (tokens each side)");
ABSL_FLAG(int, max_tokens_per_unit, 48, "tokens kept per unit");
ABSL_FLAG(int, max_tokens, 3072, "training cap on tokens per document (head truncation)");
ABSL_FLAG(double, dropout, 0.1, "dropout");
ABSL_FLAG(int, epochs, 6, "epochs at most");
ABSL_FLAG(int, patience, 2, "epochs without validation gain before stopping");
ABSL_FLAG(double, lr, 5e-4, "peak learning rate");
ABSL_FLAG(double, weight_decay, 0.01, "AdamW weight decay");
ABSL_FLAG(int, warmup, 100, "warmup steps");
ABSL_FLAG(int, batch_tokens, 8192, "token budget of a batch (B x longest)");
ABSL_FLAG(double, pos_weight, 2.0, "BCE weight of oracle-selected units");
ABSL_FLAG(int, features, rpsum::model::kNumFeatures,
          "unit features the model reads (the first N of model/model_config.h's kNumFeatures; "
          "6: model v1's, without the centrality and section features)");
ABSL_FLAG(double, centrality_weight, 0.0,
          "scoring.centrality_weight of the checkpoint's config (model/model_config.h "
          "ScoringConfig): the served score adds this many standard deviations of content "
          "centrality to the logit; validation and the saved model use it");
ABSL_FLAG(std::string, pretrain_file, "",
          "self-supervised pre-training: train on this .jsonl(.gz) of documents without "
          "summaries, each labelled with a pseudo-summary of its most central units "
          "(--pseudo_ratio of its words; see PseudoSummary); validation stays on --valid_dir");
ABSL_FLAG(double, pseudo_ratio, 0.05,
          "words of a pre-training document's pseudo-summary, as a fraction of its words");
ABSL_FLAG(double, mlm_weight, 0.0,
          "weight of a masked-token loss added to the unit loss (pre-training on --pretrain_file: "
          "train/training.h MaskTokens; 0: none)");
ABSL_FLAG(double, mlm_ratio, 0.15, "share of the tokens masked when --mlm_weight > 0");
ABSL_FLAG(std::string, init_from, "",
          "start from this checkpoint directory's weights (same architecture; fine-tuning "
          "after --pretrain_file); ignored when resuming a saved state");
ABSL_FLAG(double, soft_labels, 0.0,
          "weight of the soft salience in the labels (0: binary greedy oracle; see "
          "TrainingLabels in train/oracle.h)");
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
ABSL_FLAG(bool, checkpoint_layers, false,
          "gradient checkpointing of the token layers: recompute their activations in the "
          "backward instead of keeping them (less memory for long documents, one more forward)");

namespace rpsum::train {
namespace {

// The saved config's network and serving settings.
model::ModelConfig ConfigFromFlags() {
  model::ModelConfig c;
  c.name = "rpsum-ext";
  c.version = absl::GetFlag(FLAGS_model_version);
  model::Architecture& a = c.architecture;
  a.hidden_size = absl::GetFlag(FLAGS_hidden);
  a.heads = absl::GetFlag(FLAGS_heads);
  a.ffn_size = absl::GetFlag(FLAGS_ffn);
  a.token_layers = absl::GetFlag(FLAGS_token_layers);
  a.unit_layers = absl::GetFlag(FLAGS_unit_layers);
  a.max_clip_distance = absl::GetFlag(FLAGS_max_clip);
  a.unit_clip_distance = absl::GetFlag(FLAGS_unit_clip);
  a.num_features = absl::GetFlag(FLAGS_features);
  a.dropout = absl::GetFlag(FLAGS_dropout);
  c.scoring.centrality_weight = absl::GetFlag(FLAGS_centrality_weight);
  c.clip_policy.ratio = 8;
  c.clip_policy.min = 4;
  c.clip_policy.max = std::min<int64_t>(absl::GetFlag(FLAGS_clip_policy_max), a.max_clip_distance);
  c.clip_policy.buckets.clear();
  for (int64_t b = 4; b <= a.max_clip_distance; b *= 2) c.clip_policy.buckets.push_back(b);
  c.attention.local_threshold = absl::GetFlag(FLAGS_local_threshold);
  c.attention.local_window = absl::GetFlag(FLAGS_local_window);
  c.tokenizer.max_tokens_per_unit = absl::GetFlag(FLAGS_max_tokens_per_unit);
  return c;
}

TrainOptions OptionsFromFlags() {
  TrainOptions o;
  o.data_dir = absl::GetFlag(FLAGS_data_dir);
  o.valid_dir = absl::GetFlag(FLAGS_valid_dir);
  o.pretrain_file = absl::GetFlag(FLAGS_pretrain_file);
  o.pseudo_ratio = absl::GetFlag(FLAGS_pseudo_ratio);
  o.max_docs = absl::GetFlag(FLAGS_max_docs);
  o.valid_docs = absl::GetFlag(FLAGS_valid_docs);
  o.max_tokens = absl::GetFlag(FLAGS_max_tokens);
  o.tokenizer = absl::GetFlag(FLAGS_tokenizer);
  o.vocab_size = absl::GetFlag(FLAGS_vocab_size);
  o.config = ConfigFromFlags();
  o.out = absl::GetFlag(FLAGS_out);
  o.init_from = absl::GetFlag(FLAGS_init_from);
  o.pos_weight = absl::GetFlag(FLAGS_pos_weight);
  o.soft_labels = absl::GetFlag(FLAGS_soft_labels);
  o.mlm_weight = absl::GetFlag(FLAGS_mlm_weight);
  o.mlm_ratio = absl::GetFlag(FLAGS_mlm_ratio);
  o.epochs = absl::GetFlag(FLAGS_epochs);
  o.patience = absl::GetFlag(FLAGS_patience);
  o.lr = absl::GetFlag(FLAGS_lr);
  o.weight_decay = absl::GetFlag(FLAGS_weight_decay);
  o.warmup = absl::GetFlag(FLAGS_warmup);
  o.batch_tokens = absl::GetFlag(FLAGS_batch_tokens);
  o.checkpoint_layers = absl::GetFlag(FLAGS_checkpoint_layers);
  o.seed = absl::GetFlag(FLAGS_seed);
  o.threads = absl::GetFlag(FLAGS_threads);
  o.checkpoint_every = absl::GetFlag(FLAGS_checkpoint_every);
  o.max_steps = absl::GetFlag(FLAGS_max_steps);
  o.time_limit_min = absl::GetFlag(FLAGS_time_limit_min);
  return o;
}

}  // namespace
}  // namespace rpsum::train

int main(int argc, char** argv) {
  rpsum::train::ParseToolFlags(argc, argv,
                               "Trains the rpsum extractive model. Resumable: rerun to continue.");
  try {
    const auto outcome = rpsum::train::Train(rpsum::train::OptionsFromFlags());
    if (!outcome.ok()) {
      std::fprintf(stderr, "rpsum-train: %s\n", outcome.status().ToString().c_str());
      return 1;
    }
    // 3: stopped at --time_limit_min with the state saved (scripts rerun the same command).
    return *outcome == rpsum::train::TrainOutcome::kDone ? 0 : 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpsum-train: %s\n", e.what());
    return 1;
  }
}
