#include "model/select.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "model/document.h"
#include "model/rouge.h"

namespace rpsum::model {
namespace {

using Trigram = std::tuple<std::string, std::string, std::string>;

std::set<Trigram> Trigrams(std::string_view text) {
  const auto t = RougeTokenize(text, /*stem=*/false);
  std::set<Trigram> out;
  for (size_t i = 0; i + 3 <= t.size(); ++i) out.emplace(t[i], t[i + 1], t[i + 2]);
  return out;
}

}  // namespace

std::vector<int32_t> SelectByScore(const std::vector<float>& scores,
                                   const std::vector<std::string_view>& texts,
                                   const std::vector<int32_t>& words, const SelectOptions& o) {
  const int32_t n = static_cast<int32_t>(scores.size());
  std::vector<int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return scores[a] > scores[b]; });
  const int64_t total_words = std::accumulate(words.begin(), words.end(), int64_t{0});
  double limit = o.budget.value;
  if (o.budget.kind == Budget::Kind::kRatio) limit = std::max(1.0, o.budget.value * total_words);
  const bool by_words = o.budget.kind != Budget::Kind::kSentences;

  std::vector<int32_t> chosen;
  std::set<Trigram> seen;
  int64_t used = 0;
  for (int32_t i : order) {
    if (!by_words && static_cast<double>(chosen.size()) >= limit) break;
    if (by_words && used >= limit) break;
    std::set<Trigram> tri;
    if (o.trigram_blocking) {
      tri = Trigrams(texts[i]);
      bool blocked = false;
      for (const auto& t : tri) {
        if (seen.count(t)) {
          blocked = true;
          break;
        }
      }
      if (blocked) continue;
    }
    // A word budget takes a unit only if it fits, scanning on for ones that do.
    if (by_words && !chosen.empty() && used + words[i] > limit) continue;
    chosen.push_back(i);
    used += words[i];
    seen.insert(tri.begin(), tri.end());
  }
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

std::vector<int32_t> SelectSummary(const PreparedDocument& doc,
                                   const std::vector<std::string_view>& texts,
                                   const std::vector<float>& scores, SelectOptions o) {
  const size_t n = doc.kept.size();
  std::vector<int32_t> words(n);
  bool any_content = false;
  for (size_t i = 0; i < n; ++i) {
    const Unit& u = doc.units[doc.kept[i]];
    words[i] = u.words;
    any_content |= u.kind != UnitKind::kHeading;
  }
  if (o.budget.kind == Budget::Kind::kRatio) {
    o.budget = {Budget::Kind::kWords,
                std::max(1.0, o.budget.value * static_cast<double>(doc.total_words))};
  }
  std::vector<float> ranked = scores;
  if (any_content) {
    for (size_t i = 0; i < n; ++i) {
      if (doc.units[doc.kept[i]].kind == UnitKind::kHeading) ranked[i] = -1.f;
    }
  }
  std::vector<int32_t> chosen = SelectByScore(ranked, texts, words, o);
  if (any_content) {
    chosen.erase(
        std::remove_if(chosen.begin(), chosen.end(), [&](int32_t i) { return ranked[i] < 0; }),
        chosen.end());
  }
  return chosen;
}

std::string JoinAndCut(const std::vector<std::string_view>& texts,
                       const std::vector<int32_t>& chosen, int64_t max_words) {
  std::string out;
  int64_t words = 0;
  for (int32_t i : chosen) {
    if (max_words > 0 && words >= max_words) break;
    std::string_view t = texts[i];
    const int64_t w = CountWords(t);
    if (max_words > 0 && words + w > max_words) {
      // Keep the first (max_words - words) words of this unit.
      int64_t keep = max_words - words, seen_words = 0;
      bool in = false;
      size_t cut = t.size();
      for (size_t p = 0; p < t.size(); ++p) {
        const bool space = t[p] == ' ' || t[p] == '\t';
        if (!space && !in && ++seen_words > keep) {
          cut = p;
          break;
        }
        in = !space;
      }
      t = t.substr(0, cut);
      while (!t.empty() && (t.back() == ' ' || t.back() == '\t')) t.remove_suffix(1);
    }
    if (!out.empty()) out += '\n';
    out.append(t);
    words += CountWords(t);
  }
  return out;
}

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

}  // namespace rpsum::model
