#include "model/internal/features.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace rpsum::model {
namespace {

// The share of a unit's words that are title words (0 without a title).
float TitleOverlap(const std::vector<std::string>& words,
                   const std::set<std::string>& title_words) {
  if (title_words.empty()) return 0.f;
  int hits = 0;
  for (const std::string& w : words) hits += title_words.count(w) > 0;
  return words.empty() ? 0.f : static_cast<float>(hits) / static_cast<float>(words.size());
}

// Centrality of each unit against the rest of the document, linear in the document's words:
// [0] ROUGE-1 F1 of the unit's words against all other units' words (PEGASUS's "independent"
// gap-sentence score), [1] cosine of the unit's content-word counts (words of 4+ characters, a
// stop-word filter without a list) with the rest's. Each is divided by the document's largest.
// `want` says which of the two to compute; the other stays 0.
std::vector<std::array<float, 2>> Centrality(const std::vector<std::vector<std::string>>& words,
                                             std::array<bool, 2> want) {
  absl::flat_hash_map<std::string_view, int64_t> total;
  int64_t total_words = 0;
  for (const auto& u : words) {
    for (const std::string& w : u) ++total[w];
    total_words += static_cast<int64_t>(u.size());
  }
  // Squared norm of the whole document's content-word vector.
  double total_sq = 0;
  for (const auto& [w, c] : total) {
    if (IsContentWord(w)) total_sq += static_cast<double>(c) * static_cast<double>(c);
  }
  std::vector<std::array<float, 2>> out(words.size(), {0.f, 0.f});
  if (!want[0] && !want[1]) return out;
  std::array<float, 2> best = {0.f, 0.f};
  absl::flat_hash_map<std::string_view, int64_t> own;
  for (size_t i = 0; i < words.size(); ++i) {
    own.clear();
    for (const std::string& w : words[i]) ++own[w];
    const int64_t n = static_cast<int64_t>(words[i].size());
    const int64_t rest = total_words - n;
    if (n == 0 || rest == 0) continue;
    int64_t overlap = 0;
    double dot = 0, own_sq = 0, cross = 0;
    for (const auto& [w, c] : own) {
      const int64_t other = total.at(w) - c;
      overlap += std::min(c, other);
      if (want[1] && IsContentWord(w)) {
        dot += static_cast<double>(c) * static_cast<double>(other);
        own_sq += static_cast<double>(c) * static_cast<double>(c);
        cross += static_cast<double>(c) * static_cast<double>(total.at(w));
      }
    }
    const double p = static_cast<double>(overlap) / static_cast<double>(n);
    const double r = static_cast<double>(overlap) / static_cast<double>(rest);
    out[i][0] = want[0] && p + r > 0 ? static_cast<float>(2 * p * r / (p + r)) : 0.f;
    // |rest|^2 = |total|^2 - 2 own.total + |own|^2.
    const double rest_sq = total_sq - 2 * cross + own_sq;
    out[i][1] =
        own_sq > 0 && rest_sq > 0 ? static_cast<float>(dot / std::sqrt(own_sq * rest_sq)) : 0.f;
    best = {std::max(best[0], out[i][0]), std::max(best[1], out[i][1])};
  }
  for (auto& c : out) {
    for (int k = 0; k < 2; ++k) c[k] = best[k] > 0 ? c[k] / best[k] : 0.f;
  }
  return out;
}

// Each unit's place in its section (the units between two headings; the whole input when it
// has none): [0] its index among the section's units over their count, [1] 1 for the section's
// first unit. Headings get 0 and 0.
std::vector<std::array<float, 2>> SectionPositions(const std::vector<Unit>& units) {
  std::vector<std::array<float, 2>> out(units.size(), {0.f, 0.f});
  size_t begin = 0;
  while (begin < units.size()) {
    if (units[begin].kind == UnitKind::kHeading) {
      ++begin;
      continue;
    }
    size_t end = begin;
    while (end < units.size() && units[end].kind != UnitKind::kHeading) ++end;
    for (size_t i = begin; i < end; ++i) {
      out[i] = {static_cast<float>(i - begin) / static_cast<float>(end - begin),
                i == begin ? 1.f : 0.f};
    }
    begin = end;
  }
  return out;
}

}  // namespace

void AddModelInput(const DocumentInput& in, const Tokenizer& tokenizer,
                   const std::vector<std::vector<int32_t>>& pieces, const std::vector<char>& keep,
                   const std::bitset<kNumFeatures>& want, PreparedDocument* out) {
  const auto n = static_cast<int64_t>(out->units.size());
  std::vector<std::vector<std::string>> kept_words;
  if (want[kFeatureTitleOverlap] || want[kFeatureRougeCentrality] ||
      want[kFeatureContentCentrality]) {
    for (int64_t i = 0; i < n; ++i) {
      if (keep[i]) kept_words.push_back(Words(out->UnitText(in, static_cast<int32_t>(i))));
    }
  }
  const auto kept_count = static_cast<size_t>(std::count(keep.begin(), keep.end(), 1));
  std::vector<std::array<float, 2>> centrality =
      Centrality(kept_words, {want[kFeatureRougeCentrality], want[kFeatureContentCentrality]});
  centrality.resize(kept_count, {0.f, 0.f});  // no words read: no unit has a centrality
  std::set<std::string> title_words;
  if (want[kFeatureTitleOverlap]) {
    const std::vector<std::string> title = Words(in.title);
    title_words.insert(title.begin(), title.end());
  }
  const std::vector<std::array<float, 2>> in_section =
      want[kFeatureSectionPosition] || want[kFeatureSectionStart]
          ? SectionPositions(out->units)
          : std::vector<std::array<float, 2>>(out->units.size(), {0.f, 0.f});
  out->features.reserve(kept_count * kNumFeatures);
  for (int64_t i = 0; i < n; ++i) {
    if (!keep[i]) continue;
    const size_t k = out->kept.size();
    const Unit& u = out->units[i];
    out->kept.push_back(static_cast<int32_t>(i));
    out->unit_pos.push_back(static_cast<int32_t>(out->tokens.size()));
    out->tokens.push_back(tokenizer.marker_id());
    out->tokens.insert(out->tokens.end(), pieces[i].begin(), pieces[i].end());
    float f[kNumFeatures] = {
        static_cast<float>(i) / static_cast<float>(n),
        u.kind == UnitKind::kHeading ? 1.f : 0.f,
        u.kind == UnitKind::kListItem ? 1.f : 0.f,
        u.is_short ? 1.f : 0.f,
        want[kFeatureTitleOverlap] ? TitleOverlap(kept_words[k], title_words) : 0.f,
        u.paragraph_start ? 1.f : 0.f,
        centrality[k][0],
        centrality[k][1],
        in_section[i][0],
        in_section[i][1]};
    for (int c = 0; c < kNumFeatures; ++c) {
      if (!want[c]) f[c] = 0.f;
    }
    out->features.insert(out->features.end(), f, f + kNumFeatures);
  }
}

}  // namespace rpsum::model
