// ROUGE-1, -2, -L and -Lsum F1 following Google's rouge-score package (the rules of
// docs/design.md, section 6): lowercase, every run of characters other than [a-z0-9] separates
// tokens, tokens longer than 3 characters go through the Porter stemmer (the original 1980
// algorithm, as NLTK's PorterStemmer(mode=ORIGINAL_ALGORITHM)), ROUGE-Lsum is the summary-level
// union LCS over newline-separated lines. Torch-free.
#ifndef RPSUM_TRAIN_ROUGE_H_
#define RPSUM_TRAIN_ROUGE_H_

#include <string>
#include <string_view>
#include <vector>

namespace rpsum::train {

// Porter's original algorithm on one lowercase ASCII word (NLTK ORIGINAL_ALGORITHM mode).
std::string PorterStem(std::string word);

// rouge-score's tokenizer. Non-ASCII characters are separators (as after Python's lower() and
// the [^a-z0-9] substitution, apart from the rare characters whose lowercase is ASCII).
std::vector<std::string> RougeTokenize(std::string_view text, bool stem = true);

struct RougeScore {
  double precision = 0, recall = 0, f = 0;
};

struct RougeScores {
  RougeScore rouge1, rouge2, rougeL, rougeLsum;
};

// Scores `prediction` against `target` (the reference). Thread-safe.
RougeScores Rouge(std::string_view target, std::string_view prediction, bool stem = true);

// Building blocks on token lists (exposed for tests and the oracle).
RougeScore RougeN(const std::vector<std::string>& target, const std::vector<std::string>& pred,
                  int n);
RougeScore RougeL(const std::vector<std::string>& target, const std::vector<std::string>& pred);
RougeScore RougeLsum(const std::vector<std::vector<std::string>>& target_lines,
                     const std::vector<std::vector<std::string>>& pred_lines);

}  // namespace rpsum::train

#endif  // RPSUM_TRAIN_ROUGE_H_
