// Training labels and the extractive reference points of evaluation: the greedy ROUGE oracle,
// TextRank, and the labels the trainer fits (docs/design.md, section 3). Torch-free.
#include "train/oracle.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>

#include "model/document.h"
#include "train/rouge.h"

namespace rpsum::model {

std::vector<int32_t> GreedyOracle(const std::vector<std::string_view>& texts,
                                  std::string_view reference) {
  const auto ref = RougeTokenize(reference);
  const int64_t ref_words = CountWords(reference);
  std::map<std::string, int> ref1;
  std::map<std::pair<std::string, std::string>, int> ref2;
  for (size_t i = 0; i < ref.size(); ++i) {
    ++ref1[ref[i]];
    if (i + 1 < ref.size()) ++ref2[{ref[i], ref[i + 1]}];
  }
  const int ref1_total = static_cast<int>(ref.size());
  const int ref2_total = std::max<int>(0, ref1_total - 1);
  std::vector<std::vector<std::string>> toks(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) toks[i] = RougeTokenize(texts[i]);

  // Counts of the selection's unigrams and bigrams (bigrams within units: the selection's
  // token stream concatenates units, the one bigram across each join is ignored).
  std::map<std::string, int> sel1;
  std::map<std::pair<std::string, std::string>, int> sel2;
  int sel1_total = 0, sel2_total = 0;
  auto f = [](int overlap, int pred, int target) {
    if (pred == 0 || target == 0 || overlap == 0) return 0.0;
    const double p = static_cast<double>(overlap) / pred, r = static_cast<double>(overlap) / target;
    return 2 * p * r / (p + r);
  };
  auto score_with = [&](int add) {
    std::map<std::string, int> s1 = sel1;
    auto s2 = sel2;
    int t1 = sel1_total, t2 = sel2_total;
    if (add >= 0) {
      const auto& t = toks[add];
      for (size_t i = 0; i < t.size(); ++i) {
        ++s1[t[i]];
        ++t1;
        if (i + 1 < t.size()) {
          ++s2[{t[i], t[i + 1]}];
          ++t2;
        }
      }
    }
    int o1 = 0, o2 = 0;
    for (const auto& [g, c] : ref1) {
      auto it = s1.find(g);
      if (it != s1.end()) o1 += std::min(c, it->second);
    }
    for (const auto& [g, c] : ref2) {
      auto it = s2.find(g);
      if (it != s2.end()) o2 += std::min(c, it->second);
    }
    return f(o1, t1, ref1_total) + f(o2, t2, ref2_total);
  };

  std::vector<int32_t> chosen;
  std::vector<char> used(texts.size(), 0);
  double best = 0;
  int64_t words = 0;
  while (words < ref_words) {
    int best_i = -1;
    double best_score = best;
    for (size_t i = 0; i < texts.size(); ++i) {
      if (used[i] || toks[i].empty()) continue;
      const double s = score_with(static_cast<int>(i));
      if (s > best_score) {
        best_score = s;
        best_i = static_cast<int>(i);
      }
    }
    if (best_i < 0) break;
    used[best_i] = 1;
    chosen.push_back(best_i);
    best = best_score;
    for (size_t i = 0; i < toks[best_i].size(); ++i) {
      ++sel1[toks[best_i][i]];
      ++sel1_total;
      if (i + 1 < toks[best_i].size()) {
        ++sel2[{toks[best_i][i], toks[best_i][i + 1]}];
        ++sel2_total;
      }
    }
    words += CountWords(texts[best_i]);
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

std::vector<float> TextRankScores(const std::vector<std::string_view>& texts) {
  const size_t n = texts.size();
  std::vector<std::set<std::string>> words(n);
  for (size_t i = 0; i < n; ++i) {
    for (auto& w : RougeTokenize(texts[i])) words[i].insert(std::move(w));
  }
  std::vector<std::vector<double>> w(n, std::vector<double>(n, 0));
  std::vector<double> out_sum(n, 0);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = i + 1; j < n; ++j) {
      if (words[i].size() < 2 || words[j].size() < 2) continue;
      int common = 0;
      for (const auto& x : words[i]) common += words[j].count(x) > 0;
      if (common == 0) continue;
      const double s = common / (std::log(static_cast<double>(words[i].size())) +
                                 std::log(static_cast<double>(words[j].size())));
      w[i][j] = w[j][i] = s;
      out_sum[i] += s;
      out_sum[j] += s;
    }
  }
  std::vector<double> pr(n, 1.0 / std::max<size_t>(n, 1)), next(n);
  for (int it = 0; it < 50; ++it) {
    for (size_t i = 0; i < n; ++i) {
      double s = 0;
      for (size_t j = 0; j < n; ++j) {
        if (w[j][i] > 0) s += w[j][i] / out_sum[j] * pr[j];
      }
      next[i] = 0.15 / n + 0.85 * s;
    }
    pr.swap(next);
  }
  return std::vector<float>(pr.begin(), pr.end());
}

std::vector<float> TrainingLabels(const std::vector<std::string_view>& texts,
                                  std::string_view reference, const std::vector<int32_t>& oracle,
                                  double soft) {
  std::vector<float> labels(texts.size(), 0.f);
  for (int32_t u : oracle) labels[u] = static_cast<float>(1.0 - soft);
  if (soft <= 0) {
    for (int32_t u : oracle) labels[u] = 1.f;
    return labels;
  }
  std::vector<double> gain(texts.size(), 0.0);
  double best = 0;
  for (size_t i = 0; i < texts.size(); ++i) {
    const RougeScores r = Rouge(reference, texts[i]);
    gain[i] = r.rouge1.f + r.rouge2.f;
    best = std::max(best, gain[i]);
  }
  if (best <= 0) return labels;
  for (size_t i = 0; i < texts.size(); ++i) {
    labels[i] += static_cast<float>(soft * gain[i] / best);
  }
  return labels;
}

}  // namespace rpsum::model
