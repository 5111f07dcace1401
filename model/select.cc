#include "model/select.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <set>
#include <tuple>

#include "model/document.h"

namespace rpsum::model {

namespace {

using Trigram = std::tuple<std::string, std::string, std::string>;

std::set<Trigram> Trigrams(std::string_view text) {
  const auto t = AsciiWords(text);
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

std::vector<float> ZScores(const std::vector<float>& x) {
  const size_t n = x.size();
  std::vector<float> z(n, 0.f);
  if (n == 0) return z;
  double mean = 0, var = 0;
  for (float v : x) mean += v;
  mean /= static_cast<double>(n);
  for (float v : x) var += (v - mean) * (v - mean);
  const double sd = std::sqrt(var / static_cast<double>(n));
  if (sd <= 1e-6) return z;
  for (size_t i = 0; i < n; ++i) z[i] = static_cast<float>((x[i] - mean) / sd);
  return z;
}

std::vector<float> ServedScores(const PreparedDocument& doc, const std::vector<float>& logits,
                                const ScoringConfig& scoring) {
  const size_t n = logits.size();
  const double w = scoring.centrality_weight;
  std::vector<float> z(n, 0.f);
  if (w != 0 && doc.features.size() == n * kNumFeatures) {
    std::vector<float> centrality(n);
    for (size_t i = 0; i < n; ++i) {
      centrality[i] = doc.features[(i * kNumFeatures) + kFeatureContentCentrality];
    }
    z = ZScores(centrality);
  }
  std::vector<float> out(n);
  for (size_t i = 0; i < n; ++i) {
    out[i] = static_cast<float>(1.0 / (1.0 + std::exp(-(logits[i] + w * z[i]))));
  }
  return out;
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

}  // namespace rpsum::model
