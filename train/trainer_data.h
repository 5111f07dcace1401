// The trainer's data (train/trainer.h): the tokenizer it trains with, the prepared training
// documents with their unit labels, and the validation documents. Torch-free.
#ifndef RPSUM_TRAIN_TRAINER_DATA_H_
#define RPSUM_TRAIN_TRAINER_DATA_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "model/tokenizer.h"
#include "train/evaluate.h"
#include "train/trainer.h"

namespace rpsum::train {

// A training document: its preparation and one label per kept unit.
struct TrainDoc {
  const model::PreparedDocument* prepared;
  std::vector<float> labels;
};

// The prepared corpora: training documents with their labels, validation documents whole.
struct TrainingData {
  std::vector<CorpusRecord> train_records, valid_records;
  std::vector<EvalDoc> train, valid;
  std::vector<TrainDoc> docs;  // parallel to train
};

// The tokenizer file the run trains with: options.tokenizer, or OUT/tokenizer.model, trained
// on the training split of options.data_dir when it is not there yet.
absl::StatusOr<std::string> EnsureTokenizer(const TrainOptions& options);

// Reads and prepares the training records (options.pretrain_file's documents, each labelled
// by its PseudoSummary, or options.data_dir's training split labelled by the oracle) and the
// validation split, whole as served. Prints a line of counts.
absl::StatusOr<TrainingData> LoadTrainingData(const TrainOptions& options,
                                              const model::ModelConfig& config,
                                              const model::Tokenizer& tokenizer);

// The pseudo-summary of a pre-training document (PEGASUS's gap sentences, chosen rather than
// masked): its units by content centrality, most central first, headings skipped, until `ratio`
// of the kept words, joined in document order. The centrality features are then zeroed in
// `doc`, so the network has to learn salience from the text instead of copying them.
std::string PseudoSummary(EvalDoc* doc, double ratio);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_TRAINER_DATA_H_
