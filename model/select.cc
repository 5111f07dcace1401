#include "model/select.h"

#include <algorithm>
#include <array>
#include <bitset>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "model/document.h"
#include "model/internal/select.h"
#include "model/internal/state_geometry.h"

namespace rpsum::model {

namespace {

using Trigram = std::tuple<std::string, std::string, std::string>;

std::set<Trigram> WordTrigrams(const std::vector<std::string>& t) {
  std::set<Trigram> out;
  for (size_t i = 0; i + 3 <= t.size(); ++i) out.emplace(t[i], t[i + 1], t[i + 2]);
  return out;
}

std::set<Trigram> Trigrams(std::string_view text) { return WordTrigrams(Words(text)); }

// Whether `a` and `seen` share a trigram.
bool SharesTrigram(const std::set<Trigram>& a, const std::set<Trigram>& seen) {
  for (const auto& t : a) {
    if (seen.count(t)) return true;
  }
  return false;
}

}  // namespace

double BudgetWords(const Budget& budget, const PreparedDocument& doc) {
  switch (budget.kind) {
    case Budget::Kind::kWords:
      return budget.value;
    case Budget::Kind::kRatio:
      return std::max(1.0, budget.value * static_cast<double>(doc.total_words));
    case Budget::Kind::kUnits:
      break;
  }
  int64_t words = 0, units = 0, all_words = 0;
  for (int32_t u : doc.kept) {
    all_words += doc.units[u].words;
    if (doc.units[u].kind == UnitKind::kHeading) continue;
    words += doc.units[u].words;
    ++units;
  }
  if (units == 0) {
    words = all_words;
    units = static_cast<int64_t>(doc.kept.size());
  }
  const double mean = units > 0 ? static_cast<double>(words) / static_cast<double>(units) : 1.0;
  return budget.value * mean;
}

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
  const bool by_words = o.budget.kind != Budget::Kind::kUnits;

  std::vector<int32_t> chosen;
  std::set<Trigram> seen;
  int64_t used = 0;
  for (int32_t i : order) {
    if (!by_words && static_cast<double>(chosen.size()) >= limit) break;
    if (by_words && used >= limit) break;
    std::set<Trigram> tri;
    if (o.trigram_blocking) {
      tri = Trigrams(texts[i]);
      if (SharesTrigram(tri, seen)) continue;
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

bool IsFragment(std::string_view text, int64_t words) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return words <= kFragmentWords || (!text.empty() && text.back() == ':' && words <= kIntroWords);
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

namespace {

// What SelectSummary and SummaryCandidates share: words per kept unit, the ranking scores
// (headings and fragments at -1 when the input has content) and the options with a ratio budget
// in words.
struct SelectionInputs {
  std::vector<int32_t> words;
  std::vector<float> ranked;
  bool any_content = false;
  SelectOptions options;
};

// Whether each kept unit is content: not a heading, not a fragment (IsFragment), not
// boilerplate (FindBoilerplate) unless the options keep it.
std::vector<bool> ContentUnits(const PreparedDocument& doc,
                               const std::vector<std::string_view>& texts, const SelectOptions& o) {
  std::vector<bool> content(doc.kept.size());
  Boilerplate found;
  if (!o.keep_boilerplate && o.boilerplate == nullptr) found = FindBoilerplate(doc, texts);
  const Boilerplate& boilerplate = o.boilerplate != nullptr ? *o.boilerplate : found;
  for (size_t i = 0; i < content.size(); ++i) {
    const Unit& u = doc.units[doc.kept[i]];
    content[i] = u.kind != UnitKind::kHeading && !IsFragment(texts[i], u.words) &&
                 (o.keep_boilerplate || !boilerplate.units[i]);
  }
  return content;
}

SelectionInputs MakeInputs(const PreparedDocument& doc, const std::vector<std::string_view>& texts,
                           const std::vector<float>& scores, SelectOptions o) {
  SelectionInputs in;
  const size_t n = doc.kept.size();
  in.words.resize(n);
  const std::vector<bool> content = ContentUnits(doc, texts, o);
  for (size_t i = 0; i < n; ++i) {
    in.words[i] = doc.units[doc.kept[i]].words;
    in.any_content = in.any_content || content[i];
  }
  if (o.budget.kind == Budget::Kind::kRatio) {
    o.budget = {Budget::Kind::kWords, BudgetWords(o.budget, doc)};  // of the whole input
  }
  in.ranked = scores;
  if (in.any_content) {
    for (size_t i = 0; i < n; ++i) {
      if (!content[i]) in.ranked[i] = -1.f;
    }
  }
  in.options = o;
  return in;
}

std::vector<int32_t> GreedySelection(const SelectionInputs& in,
                                     const std::vector<std::string_view>& texts) {
  std::vector<int32_t> chosen = SelectByScore(in.ranked, texts, in.words, in.options);
  if (in.any_content) {
    chosen.erase(
        std::remove_if(chosen.begin(), chosen.end(), [&](int32_t i) { return in.ranked[i] < 0; }),
        chosen.end());
  }
  return chosen;
}

// The document's words as integers, built once per document so that a candidate's features and
// trigram checks touch no strings: each distinct word (Words) and word trigram gets an id.
struct UnitWords {
  size_t words = 0;
  std::vector<int32_t> distinct;                     // word ids, sorted, unique
  std::vector<std::pair<int32_t, int64_t>> content;  // content word (4+ characters) id, count
  std::vector<int32_t> trigrams;                     // trigram ids, sorted, unique
};

struct DocumentWords {
  std::vector<UnitWords> units;
  std::vector<int64_t> content;  // the whole document's count of each content word id
  size_t num_words = 0;
  size_t num_trigrams = 0;
};

DocumentWords MakeDocumentWords(const std::vector<std::string_view>& texts) {
  DocumentWords d;
  std::map<std::string, int32_t> word_id;
  std::map<std::array<int32_t, 3>, int32_t> trigram_id;
  d.units.resize(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    UnitWords& u = d.units[i];
    const std::vector<std::string> w = Words(texts[i]);
    u.words = w.size();
    std::vector<int32_t> ids(w.size());
    std::map<int32_t, int64_t> content;
    for (size_t k = 0; k < w.size(); ++k) {
      ids[k] = word_id.emplace(w[k], static_cast<int32_t>(word_id.size())).first->second;
      if (IsContentWord(w[k])) ++content[ids[k]];
    }
    u.content.assign(content.begin(), content.end());
    for (size_t k = 0; k + 3 <= ids.size(); ++k) {
      const std::array<int32_t, 3> key = {ids[k], ids[k + 1], ids[k + 2]};
      u.trigrams.push_back(
          trigram_id.emplace(key, static_cast<int32_t>(trigram_id.size())).first->second);
    }
    std::sort(u.trigrams.begin(), u.trigrams.end());
    u.trigrams.erase(std::unique(u.trigrams.begin(), u.trigrams.end()), u.trigrams.end());
    u.distinct = std::move(ids);
    std::sort(u.distinct.begin(), u.distinct.end());
    u.distinct.erase(std::unique(u.distinct.begin(), u.distinct.end()), u.distinct.end());
  }
  d.num_words = word_id.size();
  d.num_trigrams = trigram_id.size();
  d.content.assign(d.num_words, 0);
  for (const UnitWords& u : d.units) {
    for (const auto& [id, c] : u.content) d.content[id] += c;
  }
  return d;
}

// The trigrams of one growing selection as stamps: trigram t is in selection s when
// stamp[t] == s, so starting the next selection (Next) clears nothing.
class TrigramSet {
 public:
  explicit TrigramSet(size_t num_trigrams) : stamp_(num_trigrams, 0) {}
  void Next() { ++serial_; }
  bool Shares(const std::vector<int32_t>& trigrams) const {
    for (int32_t t : trigrams) {
      if (stamp_[t] == serial_) return true;
    }
    return false;
  }
  void Insert(const std::vector<int32_t>& trigrams) {
    for (int32_t t : trigrams) stamp_[t] = serial_;
  }

 private:
  std::vector<int64_t> stamp_;
  int64_t serial_ = 0;
};

}  // namespace

std::vector<double> DocumentState(const PreparedDocument& doc,
                                  const std::vector<std::string_view>& texts, UnitStates states,
                                  const SelectOptions& options) {
  if (states.empty()) return {};
  const std::vector<bool> content = ContentUnits(doc, texts, options);
  const bool any_content = std::find(content.begin(), content.end(), true) != content.end();
  const auto width = static_cast<size_t>(states.width);
  std::vector<double> mean(width, 0.0);
  size_t count = 0;
  for (size_t i = 0; i < content.size(); ++i) {
    if (any_content && !content[i]) continue;
    const float* r = states.values + (i * width);
    for (size_t j = 0; j < width; ++j) mean[j] += r[j];
    ++count;
  }
  for (double& x : mean) x /= static_cast<double>(std::max<size_t>(count, 1));
  return mean;
}

namespace {

// The candidate summaries' unit sets (kept indices, ascending): the greedy selection first, then
// every subset of at most max_units of the `top` best units (the first positions of `order`)
// that fits the budget (a single unit always) and keeps trigram blocking, filled from the units
// below the top by SelectByScore's rule; each set once.
std::vector<std::vector<int32_t>> CandidateSets(const SelectionInputs& in,
                                                const std::vector<std::string_view>& texts,
                                                const std::vector<int32_t>& order, size_t top,
                                                const DocumentWords& dw) {
  const SelectOptions& o = in.options;
  const double limit = o.budget.value;
  std::vector<std::vector<int32_t>> sets = {GreedySelection(in, texts)};
  std::set<std::vector<int32_t>> seen_sets = {sets[0]};
  const size_t max_units = std::min(top, static_cast<size_t>(o.rerank.max_units));
  TrigramSet tri(dw.num_trigrams);
  std::vector<size_t> pick;  // positions in `order` of the subset's members, increasing
  for (size_t m = 1; m <= max_units; ++m) {
    pick.resize(m);
    std::iota(pick.begin(), pick.end(), size_t{0});
    while (true) {
      int64_t used = 0;
      for (size_t p : pick) used += in.words[order[p]];
      bool ok = m == 1 || static_cast<double>(used) <= limit;
      tri.Next();
      for (size_t p = 0; ok && o.trigram_blocking && p < m; ++p) {
        const auto& t = dw.units[order[pick[p]]].trigrams;
        ok = !tri.Shares(t);
        tri.Insert(t);
      }
      if (ok) {
        std::vector<int32_t> chosen;
        chosen.reserve(m);
        for (size_t p : pick) chosen.push_back(order[p]);
        // Fill by SelectByScore's rule from the units below the top.
        for (size_t r = top; r < order.size() && static_cast<double>(used) < limit; ++r) {
          const int32_t i = order[r];
          if (static_cast<double>(used + in.words[i]) > limit) continue;
          if (o.trigram_blocking) {
            if (tri.Shares(dw.units[i].trigrams)) continue;
            tri.Insert(dw.units[i].trigrams);
          }
          chosen.push_back(i);
          used += in.words[i];
        }
        std::sort(chosen.begin(), chosen.end());
        if (seen_sets.insert(chosen).second) sets.push_back(std::move(chosen));
      }
      // Next combination of m positions out of `top`, in lexicographic order.
      size_t k = m;
      while (k > 0 && pick[k - 1] == top - m + k - 1) --k;
      if (k == 0) break;
      ++pick[k - 1];
      for (size_t j = k; j < m; ++j) pick[j] = pick[j - 1] + 1;
    }
  }
  return sets;
}

// The reranking features of candidate summaries (model/select.h Candidate), those with a weight
// only (RerankFeaturesRead). A candidate's content-word counts and distinct words live in arrays
// over the document's word ids, reset through `touched_` (distinct: stamped with the candidate's
// serial number), so one candidate's leave nothing for the next.
class CandidateFeatures {
 public:
  CandidateFeatures(const PreparedDocument& doc, const SelectionInputs& in,
                    const std::vector<float>& scores, std::vector<int32_t> rank,
                    const DocumentWords& dw, StateGeometry* geometry)
      : doc_(doc),
        in_(in),
        scores_(scores),
        rank_(std::move(rank)),
        dw_(dw),
        geometry_(geometry),
        read_(RerankFeaturesRead(in.options.rerank)),
        with_title_(read_[kRerankTitleShare] &&
                    doc.features.size() == doc.kept.size() * kNumFeatures),
        content_(dw.num_words, 0),
        stamp_(dw.num_words, -1) {
    for (int64_t c : dw.content) document_sq_ += static_cast<double>(c) * c;
  }

  Candidate Make(std::vector<int32_t> set) {
    const int64_t serial = serial_++;
    const auto n = static_cast<double>(doc_.kept.size());
    const double limit = in_.options.budget.value;
    double words = 0, score_words = 0, title = 0, position = 0, ranks = 0;
    double max_score = -1e30, min_score = 1e30;
    size_t tokens = 0, distinct = 0;
    touched_.clear();
    for (int32_t i : set) {
      const double w = in_.words[i];
      words += w;
      score_words += scores_[i] * w;
      max_score = std::max<double>(max_score, scores_[i]);
      min_score = std::min<double>(min_score, scores_[i]);
      if (with_title_) {
        title += doc_.features[(static_cast<size_t>(i) * kNumFeatures) + kFeatureTitleOverlap] * w;
      }
      position += static_cast<double>(i) / n;
      ranks += rank_[i];
      tokens += dw_.units[i].words;
      for (const auto& [x, k] : dw_.units[i].content) {
        if (content_[x] == 0) touched_.push_back(x);
        content_[x] += k;
      }
      if (read_[kRerankDistinct]) distinct += CountNew(dw_.units[i].distinct, serial);
    }
    // Sums of products of word counts: exact in doubles, so the order does not matter.
    double dot = 0, own_sq = 0;
    for (int32_t x : touched_) {
      const int64_t k = content_[x];
      dot += static_cast<double>(k) * static_cast<double>(dw_.content[x]);
      own_sq += static_cast<double>(k) * k;
      content_[x] = 0;
    }
    const double count = static_cast<double>(set.size());
    Candidate c;
    c.features = {words > 0 ? score_words / words : 0.0,
                  max_score,
                  min_score,
                  count,
                  std::min(words, limit) / limit,
                  own_sq > 0 && document_sq_ > 0 ? dot / std::sqrt(own_sq * document_sq_) : 0.0,
                  words > 0 ? title / words : 0.0,
                  position / count,
                  static_cast<double>(set.front()) / n,
                  ranks / count,
                  tokens > 0 ? static_cast<double>(distinct) / tokens : 0.0};
    if (geometry_ != nullptr) {
      const auto net = geometry_->Features(set, in_.words);
      std::copy(net.begin(), net.end(), c.features.begin() + kFirstNetRerankFeature);
    }
    for (int f = 0; f < kNumRerankFeatures; ++f) {
      if (!read_[f]) c.features[f] = 0.0;
    }
    c.units = std::move(set);
    return c;
  }

 private:
  // How many of `ids` this candidate has not seen yet; marks them seen.
  size_t CountNew(const std::vector<int32_t>& ids, int64_t serial) {
    size_t added = 0;
    for (int32_t x : ids) {
      if (stamp_[x] != serial) {
        stamp_[x] = serial;
        ++added;
      }
    }
    return added;
  }

  const PreparedDocument& doc_;
  const SelectionInputs& in_;
  const std::vector<float>& scores_;
  std::vector<int32_t> rank_;
  const DocumentWords& dw_;
  StateGeometry* geometry_;
  std::bitset<kNumRerankFeatures> read_;
  bool with_title_;
  double document_sq_ = 0;
  std::vector<int64_t> content_, stamp_;
  std::vector<int32_t> touched_;
  int64_t serial_ = 0;
};

}  // namespace

std::vector<Candidate> SummaryCandidates(const PreparedDocument& doc,
                                         const std::vector<std::string_view>& texts,
                                         const std::vector<float>& scores,
                                         const SelectOptions& options, UnitStates states) {
  const SelectionInputs in = MakeInputs(doc, texts, scores, options);
  const SelectOptions& o = in.options;
  const int32_t n = static_cast<int32_t>(doc.kept.size());
  if (o.rerank.top_k <= 0 || o.budget.kind != Budget::Kind::kWords || n == 0) return {};
  // Content units (all units when there are none) in score order, and each one's rank.
  std::vector<int32_t> order;
  for (int32_t i = 0; i < n; ++i) {
    if (in.ranked[i] >= 0 || !in.any_content) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](int32_t a, int32_t b) { return in.ranked[a] > in.ranked[b]; });
  std::vector<int32_t> rank(n, static_cast<int32_t>(order.size()));
  for (size_t r = 0; r < order.size(); ++r) rank[order[r]] = static_cast<int32_t>(r);
  const size_t top = std::min(order.size(), static_cast<size_t>(o.rerank.top_k));
  const DocumentWords dw = MakeDocumentWords(texts);
  std::vector<std::vector<int32_t>> sets = CandidateSets(in, texts, order, top, dw);
  std::optional<StateGeometry> geometry;
  if (!states.empty()) {
    geometry.emplace(states, static_cast<size_t>(n), DocumentState(doc, texts, states, o));
  }
  CandidateFeatures features(doc, in, scores, std::move(rank), dw, geometry ? &*geometry : nullptr);
  std::vector<Candidate> out;
  out.reserve(sets.size());
  for (auto& set : sets) out.push_back(features.Make(std::move(set)));
  return out;
}

std::vector<std::array<double, kNumRerankFeatures>> StandardisedFeatures(
    const std::vector<Candidate>& candidates) {
  const size_t n = candidates.size();
  std::vector<std::array<double, kNumRerankFeatures>> z(n);
  for (auto& row : z) row.fill(0.0);
  if (n < 2) return z;
  for (int f = 0; f < kNumRerankFeatures; ++f) {
    double mean = 0, var = 0;
    for (const Candidate& c : candidates) mean += c.features[f];
    mean /= static_cast<double>(n);
    for (const Candidate& c : candidates) var += (c.features[f] - mean) * (c.features[f] - mean);
    const double sd = std::sqrt(var / static_cast<double>(n - 1));
    for (size_t k = 0; k < n; ++k) z[k][f] = (candidates[k].features[f] - mean) / (sd + 1e-6);
  }
  return z;
}

size_t ChooseCandidate(const std::vector<Candidate>& candidates,
                       const std::vector<double>& weights) {
  const auto z = StandardisedFeatures(candidates);
  size_t best = 0;
  double best_score = 0;
  for (size_t k = 0; k < z.size(); ++k) {
    double s = 0;
    for (int f = 0; f < kNumRerankFeatures && f < static_cast<int>(weights.size()); ++f) {
      s += weights[f] * z[k][f];
    }
    if (k == 0 || s > best_score) {
      best = k;
      best_score = s;
    }
  }
  return best;
}

std::vector<int32_t> SelectSummary(const PreparedDocument& doc,
                                   const std::vector<std::string_view>& texts,
                                   const std::vector<float>& scores, const SelectOptions& o,
                                   UnitStates states) {
  if (o.rerank.top_k > 0) {
    std::vector<Candidate> candidates = SummaryCandidates(doc, texts, scores, o, states);
    if (!candidates.empty()) {
      return std::move(candidates[ChooseCandidate(candidates, o.rerank.weights)].units);
    }
  }
  return GreedySelection(MakeInputs(doc, texts, scores, o), texts);
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
