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

// One selection of the beam search: its units in the order added, its counts of the
// reference's n-grams (clipped overlap needs them), its token and bigram totals, and its score.
struct BeamState {
  std::vector<int32_t> units;
  std::vector<int> count1, count2;  // per reference unigram / bigram (ids below)
  int overlap1 = 0, overlap2 = 0, total1 = 0, total2 = 0;
  int64_t words = 0;
  double score = 0;
  bool done = false;
};

// The beam search behind GreedyOracle (beam 1) and OracleExpectation: the final selections, best
// first.
std::vector<BeamState> OracleBeam(const std::vector<std::string_view>& texts,
                                  std::string_view reference, int beam) {
  const size_t n = texts.size();
  const auto ref = RougeTokenize(reference);
  const int64_t ref_words = CountWords(reference);
  // Ids of the reference's distinct unigrams and bigrams and their counts there.
  std::map<std::string, int> id1;
  std::map<std::pair<std::string, std::string>, int> id2;
  std::vector<int> ref1, ref2;
  for (size_t i = 0; i < ref.size(); ++i) {
    auto [a, fresh1] = id1.emplace(ref[i], static_cast<int>(ref1.size()));
    if (fresh1) ref1.push_back(0);
    ++ref1[a->second];
    if (i + 1 < ref.size()) {
      auto [b, fresh2] =
          id2.emplace(std::make_pair(ref[i], ref[i + 1]), static_cast<int>(ref2.size()));
      if (fresh2) ref2.push_back(0);
      ++ref2[b->second];
    }
  }
  const int ref1_total = static_cast<int>(ref.size());
  const int ref2_total = std::max<int>(0, ref1_total - 1);
  // Per unit: its counts of each reference n-gram it contains, its totals and its words.
  struct UnitGrams {
    std::vector<std::pair<int, int>> g1, g2;  // (reference n-gram id, count in the unit)
    int total1 = 0, total2 = 0;
    int64_t words = 0;
  };
  std::vector<UnitGrams> grams(n);
  for (size_t u = 0; u < n; ++u) {
    const auto t = RougeTokenize(texts[u]);
    std::map<int, int> c1, c2;
    for (size_t i = 0; i < t.size(); ++i) {
      if (auto it = id1.find(t[i]); it != id1.end()) ++c1[it->second];
      if (i + 1 < t.size()) {
        if (auto it = id2.find({t[i], t[i + 1]}); it != id2.end()) ++c2[it->second];
      }
    }
    grams[u] = {{c1.begin(), c1.end()},
                {c2.begin(), c2.end()},
                static_cast<int>(t.size()),
                static_cast<int>(t.empty() ? 0 : t.size() - 1),
                CountWords(texts[u])};
  }
  auto f = [](int overlap, int pred, int target) {
    if (pred == 0 || target == 0 || overlap == 0) return 0.0;
    const double p = static_cast<double>(overlap) / pred, r = static_cast<double>(overlap) / target;
    return 2 * p * r / (p + r);
  };
  auto gained = [](const std::vector<std::pair<int, int>>& unit, const std::vector<int>& have,
                   const std::vector<int>& cap) {
    int more = 0;
    for (const auto& [g, c] : unit) {
      more += std::min(cap[g], have[g] + c) - std::min(cap[g], have[g]);
    }
    return more;
  };

  BeamState start;
  start.count1.assign(ref1.size(), 0);
  start.count2.assign(ref2.size(), 0);
  start.done = ref_words <= 0;
  std::vector<BeamState> states = {start};
  beam = std::max(beam, 1);
  while (std::any_of(states.begin(), states.end(), [](const BeamState& s) { return !s.done; })) {
    // Candidates: a finished state as it is, or an open state plus one unit that raises its
    // score (an open state that nothing raises finishes), in state then unit order so that
    // ties keep the greedy oracle's choice (the first unit).
    struct Candidate {
      size_t state;
      int32_t unit;  // -1: the state as it is
      double score;
      std::vector<int32_t> key;  // the sorted units, to drop duplicate selections
    };
    std::vector<Candidate> candidates;
    for (size_t s = 0; s < states.size(); ++s) {
      BeamState& st = states[s];
      const size_t before = candidates.size();
      if (!st.done) {
        std::vector<char> used(n, 0);
        for (int32_t u : st.units) used[u] = 1;
        for (size_t u = 0; u < n; ++u) {
          const UnitGrams& g = grams[u];
          if (used[u] || g.total1 == 0) continue;
          const double score =
              f(st.overlap1 + gained(g.g1, st.count1, ref1), st.total1 + g.total1, ref1_total) +
              f(st.overlap2 + gained(g.g2, st.count2, ref2), st.total2 + g.total2, ref2_total);
          if (score > st.score) candidates.push_back({s, static_cast<int32_t>(u), score, {}});
        }
      }
      if (candidates.size() == before) {
        st.done = true;
        candidates.push_back({s, -1, st.score, {}});
      }
    }
    for (Candidate& c : candidates) {
      c.key = states[c.state].units;
      if (c.unit >= 0) c.key.push_back(c.unit);
      std::sort(c.key.begin(), c.key.end());
    }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& a, const Candidate& b) { return a.score > b.score; });
    std::vector<BeamState> next;
    std::set<std::vector<int32_t>> seen;
    for (const Candidate& c : candidates) {
      if (static_cast<int>(next.size()) == beam) break;
      if (!seen.insert(c.key).second) continue;
      BeamState st = states[c.state];
      if (c.unit >= 0) {
        const UnitGrams& g = grams[c.unit];
        st.overlap1 += gained(g.g1, st.count1, ref1);
        st.overlap2 += gained(g.g2, st.count2, ref2);
        for (const auto& [id, count] : g.g1) st.count1[id] += count;
        for (const auto& [id, count] : g.g2) st.count2[id] += count;
        st.total1 += g.total1;
        st.total2 += g.total2;
        st.words += g.words;
        st.units.push_back(c.unit);
        st.score = c.score;
        st.done = st.words >= ref_words;
      }
      next.push_back(std::move(st));
    }
    states = std::move(next);
  }
  return states;
}

}  // namespace

std::vector<int32_t> GreedyOracle(const std::vector<std::string_view>& texts,
                                  std::string_view reference) {
  std::vector<int32_t> chosen = OracleBeam(texts, reference, 1).front().units;
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

std::vector<float> OracleExpectation(const std::vector<std::string_view>& texts,
                                     std::string_view reference, int beam) {
  std::vector<float> out(texts.size(), 0.f);
  const std::vector<BeamState> states = OracleBeam(texts, reference, beam);
  double mass = 0;
  for (const BeamState& st : states) mass += st.score;
  if (mass <= 0) return out;
  for (const BeamState& st : states) {
    for (int32_t u : st.units) out[u] += static_cast<float>(st.score / mass);
  }
  return out;
}

std::vector<float> TrainingLabels(const std::vector<std::string_view>& texts,
                                  std::string_view reference, const std::vector<int32_t>& oracle,
                                  double soft) {
  std::vector<float> in_oracle(texts.size(), 0.f);
  for (int32_t u : oracle) in_oracle[u] = 1.f;
  return TrainingLabels(texts, reference, in_oracle, soft);
}

std::vector<float> TrainingLabels(const std::vector<std::string_view>& texts,
                                  std::string_view reference, const std::vector<float>& in_oracle,
                                  double soft) {
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

}  // namespace rpsum::model
