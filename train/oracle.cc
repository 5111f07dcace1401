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

namespace rpsum::train {

using model::CountWords;

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

namespace {

// The reference's distinct unigrams and bigrams, by id, with their counts there: clipped overlap
// needs them.
struct ReferenceGrams {
  std::map<std::string, int> id1;
  std::map<std::pair<std::string, std::string>, int> id2;
  std::vector<int> count1, count2;  // per id
  int total1 = 0, total2 = 0;

  explicit ReferenceGrams(const std::vector<std::string>& ref) {
    for (size_t i = 0; i < ref.size(); ++i) {
      auto [a, fresh1] = id1.emplace(ref[i], static_cast<int>(count1.size()));
      if (fresh1) count1.push_back(0);
      ++count1[a->second];
      if (i + 1 < ref.size()) {
        auto [b, fresh2] =
            id2.emplace(std::make_pair(ref[i], ref[i + 1]), static_cast<int>(count2.size()));
        if (fresh2) count2.push_back(0);
        ++count2[b->second];
      }
    }
    total1 = static_cast<int>(ref.size());
    total2 = std::max<int>(0, total1 - 1);
  }
};

// A unit's counts of each reference n-gram it contains, its totals and its words.
struct UnitGrams {
  std::vector<std::pair<int, int>> g1, g2;  // (reference n-gram id, count in the unit)
  int total1 = 0, total2 = 0;
  int64_t words = 0;
};

UnitGrams GramsOf(std::string_view text, const ReferenceGrams& ref) {
  const auto t = RougeTokenize(text);
  std::map<int, int> c1, c2;
  for (size_t i = 0; i < t.size(); ++i) {
    if (auto it = ref.id1.find(t[i]); it != ref.id1.end()) ++c1[it->second];
    if (i + 1 < t.size()) {
      if (auto it = ref.id2.find({t[i], t[i + 1]}); it != ref.id2.end()) ++c2[it->second];
    }
  }
  return {{c1.begin(), c1.end()},
          {c2.begin(), c2.end()},
          static_cast<int>(t.size()),
          static_cast<int>(t.empty() ? 0 : t.size() - 1),
          CountWords(text)};
}

double F1(int overlap, int pred, int target) {
  if (pred == 0 || target == 0 || overlap == 0) return 0.0;
  const double p = static_cast<double>(overlap) / pred, r = static_cast<double>(overlap) / target;
  return 2 * p * r / (p + r);
}

// How much `unit` adds to the clipped overlap of a selection that holds `have` of each n-gram.
int Gained(const std::vector<std::pair<int, int>>& unit, const std::vector<int>& have,
           const std::vector<int>& cap) {
  int more = 0;
  for (const auto& [g, c] : unit) more += std::min(cap[g], have[g] + c) - std::min(cap[g], have[g]);
  return more;
}

// The greedy oracle's selection so far: its counts of the reference's n-grams, its token and
// bigram totals, its words and its score.
struct Selection {
  std::vector<int32_t> units;
  std::vector<int> count1, count2;
  int overlap1 = 0, overlap2 = 0, total1 = 0, total2 = 0;
  int64_t words = 0;
  double score = 0;

  double ScoreWith(const UnitGrams& g, const ReferenceGrams& ref) const {
    return F1(overlap1 + Gained(g.g1, count1, ref.count1), total1 + g.total1, ref.total1) +
           F1(overlap2 + Gained(g.g2, count2, ref.count2), total2 + g.total2, ref.total2);
  }

  void Add(int32_t unit, const UnitGrams& g, const ReferenceGrams& ref, double new_score) {
    overlap1 += Gained(g.g1, count1, ref.count1);
    overlap2 += Gained(g.g2, count2, ref.count2);
    for (const auto& [id, count] : g.g1) count1[id] += count;
    for (const auto& [id, count] : g.g2) count2[id] += count;
    total1 += g.total1;
    total2 += g.total2;
    words += g.words;
    units.push_back(unit);
    score = new_score;
  }
};

}  // namespace

std::vector<int32_t> GreedyOracle(const std::vector<std::string_view>& texts,
                                  std::string_view reference) {
  const ReferenceGrams ref(RougeTokenize(reference));
  const int64_t ref_words = CountWords(reference);
  std::vector<UnitGrams> grams;
  grams.reserve(texts.size());
  for (std::string_view t : texts) grams.push_back(GramsOf(t, ref));
  Selection sel;
  sel.count1.assign(ref.count1.size(), 0);
  sel.count2.assign(ref.count2.size(), 0);
  std::vector<char> used(texts.size(), 0);
  // Each round adds the first unit that raises the score most, until the selection reaches the
  // reference's word count or no unit raises it.
  while (sel.words < ref_words) {
    int32_t best = -1;
    double best_score = sel.score;
    for (size_t u = 0; u < texts.size(); ++u) {
      if (used[u] || grams[u].total1 == 0) continue;
      const double score = sel.ScoreWith(grams[u], ref);
      if (score > best_score) {
        best = static_cast<int32_t>(u);
        best_score = score;
      }
    }
    if (best < 0) break;
    used[best] = 1;
    sel.Add(best, grams[best], ref, best_score);
  }
  std::sort(sel.units.begin(), sel.units.end());
  return sel.units;
}

std::vector<float> TrainingLabels(const std::vector<std::string_view>& texts,
                                  std::string_view reference, const std::vector<int32_t>& oracle,
                                  double soft) {
  std::vector<float> in_oracle(texts.size(), 0.f);
  for (int32_t u : oracle) in_oracle[u] = 1.f;
  std::vector<float> labels(texts.size(), 0.f);
  if (soft <= 0) return in_oracle;
  for (size_t u = 0; u < texts.size(); ++u) {
    labels[u] = static_cast<float>((1.0 - soft) * in_oracle[u]);
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

}  // namespace rpsum::train
