// rpsum-train's trainer (docs/design.md, section 3): the options the command line sets, parsed
// once in train_main.cc, and the run they describe. Torch-free: the network lives behind Train.
//
// A run trains a SentencePiece tokenizer (unless given one), prepares every document, labels its
// units with the greedy ROUGE oracle (or, pre-training, a centrality pseudo-summary), and trains
// with AdamW (warmup, linear decay), dropout, gradient clipping, batches of similar length under a
// token budget and clip distances k sampled from the k policy. Validation ROUGE after every epoch
// picks the best checkpoint (early stopping). Interruptible: the state is saved every
// checkpoint_every steps and at time_limit_min, and the same options resume from it.
#ifndef RPSUM_TRAIN_TRAINER_H_
#define RPSUM_TRAIN_TRAINER_H_

#include <string>

#include "absl/status/statusor.h"
#include "model/model_config.h"

namespace rpsum::train {

struct TrainOptions {
  // Data.
  std::string data_dir;        // corpus folders, comma-separated (their train/valid splits)
  std::string valid_dir;       // corpus folders to validate on (empty: data_dir)
  std::string pretrain_file;   // pre-training: documents without summaries, pseudo-labelled
  double pseudo_ratio = 0.05;  // a pseudo-summary's words, as a share of its document's
  int max_docs = 0;            // a random sample of this many training documents (0: all)
  int valid_docs = 0;          // the first N valid documents (0: all)
  int max_tokens = 3072;       // training cap on tokens per document (head truncation)

  // The tokenizer: an existing model, or one of vocab_size pieces trained into `out`.
  std::string tokenizer;
  int vocab_size = 8000;

  // The network and how it is served: every field but architecture.vocab_size, which the
  // tokenizer sets.
  model::ModelConfig config;

  // The objective and the optimisation.
  std::string out;                 // state/ (resumable), best/ (the checkpoint)
  std::string init_from;           // start from this checkpoint's weights (not when resuming)
  double pos_weight = 2.0;         // BCE weight of the oracle's units
  double soft_labels = 0.0;        // weight of the soft salience in the labels (train/oracle.h)
  double mlm_weight = 0.0;         // masked-token loss weight (pre-training; 0: none)
  double mlm_ratio = 0.15;         // share of the tokens masked
  int epochs = 6;                  // at most
  int patience = 2;                // epochs without a validation gain before stopping
  double lr = 5e-4;                // peak learning rate
  double weight_decay = 0.01;      // AdamW
  int warmup = 100;                // steps
  int batch_tokens = 8192;         // B x longest document of a batch, at most
  bool checkpoint_layers = false;  // recompute the token layers' activations in the backward

  // The run.
  int seed = 1;
  int threads = 2;             // torch intra-op threads
  int checkpoint_every = 100;  // steps between saved states
  int max_steps = 0;           // in total (0: no limit)
  double time_limit_min = 0;   // save and stop after this many minutes (0: no limit)
};

enum class TrainOutcome {
  kDone,       // trained, validated and saved: OUT/best is the checkpoint
  kTimeLimit,  // time_limit_min ran out; the state is saved and the same options resume
};

// Trains as `options` say (resuming from OUT/state when there is one). Errors: the data, the
// tokenizer, a checkpoint or a state that cannot be read, options that contradict each other.
absl::StatusOr<TrainOutcome> Train(const TrainOptions& options);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_TRAINER_H_
