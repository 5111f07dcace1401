// The trainer's resumable state (train/trainer.h): OUT/state/ holds the network's weights, the
// masked-token head's when pre-training with one, the optimizer and the progress record.
#ifndef RPSUM_TRAIN_TRAINER_STATE_H_
#define RPSUM_TRAIN_TRAINER_STATE_H_

#include <filesystem>
#include <vector>

#include "absl/status/statusor.h"
#include "model/torch/encoder.h"
#include "train/schedule.h"
#include "train/training.h"

// clang-format off
#include <torch/types.h>  // first: adamw.h's includes need it
// clang-format on
#include <torch/optim/adamw.h>

namespace rpsum::train {

// What the optimizer trains: the network and, pre-training with a masked-token loss, its head,
// which trains beside the network and is not part of the checkpoint (null without one).
struct TrainedModules {
  net::ExtractiveScorer& model;
  MaskedTokenHead& mlm;

  // The network's parameters, then the head's: what the optimizer trains and the gradient
  // clipping reads, in one order.
  std::vector<at::Tensor> Parameters() const;
};

// Writes the state: each file to a temporary name and renamed, so an interrupted save leaves
// the last good state.
absl::Status SaveState(const std::filesystem::path& state, const TrainedModules& modules,
                       torch::optim::AdamW& opt, const Progress& progress);

// Loads the state when there is one (a fresh Progress otherwise).
absl::StatusOr<Progress> LoadState(const std::filesystem::path& state,
                                   const TrainedModules& modules, torch::optim::AdamW& opt);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_TRAINER_STATE_H_
