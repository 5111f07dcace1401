// Training labels and the extractive reference points of evaluation: the greedy ROUGE oracle,
// TextRank, and the labels the trainer fits (docs/design.md, section 3). Torch-free.
#ifndef RPSUM_TRAIN_ORACLE_H_
#define RPSUM_TRAIN_ORACLE_H_

#include <cstdint>
#include <string_view>
#include <vector>

namespace rpsum::train {

// Greedy oracle: repeatedly adds the unit that most increases ROUGE-1 F1 + ROUGE-2 F1 of the
// selection against `reference`, until the selection reaches the reference's word count or no
// unit improves the score. Returns indices in document order.
std::vector<int32_t> GreedyOracle(const std::vector<std::string_view>& texts,
                                  std::string_view reference);

// Training targets for the kept units: 1 for units of `oracle`, 0 otherwise, mixed with a soft
// salience: label = (1 - soft) * in_oracle + soft * g / max g, where g is a unit's ROUGE-1 F1 +
// ROUGE-2 F1 against `reference` alone. soft = 0 gives the binary greedy-oracle labels; soft > 0
// credits the near-misses a single greedy oracle labels 0 (docs/design.md, section 3).
std::vector<float> TrainingLabels(const std::vector<std::string_view>& texts,
                                  std::string_view reference, const std::vector<int32_t>& oracle,
                                  double soft);

// TextRank (Mihalcea and Tarau 2004) scores: a graph of units with edge weight
// |common stemmed words| / (log|a| + log|b|), PageRank with damping 0.85, 50 iterations.
std::vector<float> TextRankScores(const std::vector<std::string_view>& texts);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_ORACLE_H_
