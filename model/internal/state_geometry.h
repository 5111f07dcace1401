// The network's unit states against a document's state, for the summary-level reranking's
// net_* features (model/select.h Candidate; docs/design.md, section 2). Internal to model/.
#ifndef RPSUM_MODEL_INTERNAL_STATE_GEOMETRY_H_
#define RPSUM_MODEL_INTERNAL_STATE_GEOMETRY_H_

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "model/model_config.h"
#include "model/select.h"

namespace rpsum::model {

// The network's unit states against the document's state, with what several candidates read
// computed once per document: each unit's norm and cosine with the document, each pair's
// cosine (when first asked for).
class StateGeometry {
 public:
  StateGeometry(const UnitStates& states, size_t units, std::vector<double> document)
      : states_(states),
        width_(static_cast<size_t>(states.width)),
        document_(std::move(document)),
        document_norm_(Norm(document_.data())),
        unit_norm_(units, -1.0),
        document_cosine_(units, 0.0),
        have_document_cosine_(units, false) {}

  // The net_* features of one candidate (model/select.h Candidate): `units` its kept indices,
  // ascending; `words` every kept unit's words.
  std::array<double, kNumRerankFeatures - kFirstNetRerankFeature> Features(
      const std::vector<int32_t>& units, const std::vector<int32_t>& words) {
    std::vector<double> weighted(width_, 0.0), plain(width_, 0.0);
    double total_words = 0;
    for (int32_t u : units) {
      const float* r = Row(u);
      const double w = words[u];
      total_words += w;
      for (size_t j = 0; j < width_; ++j) {
        weighted[j] += w * r[j];
        plain[j] += r[j];
      }
    }
    for (size_t j = 0; j < width_; ++j) {
      weighted[j] /= std::max(total_words, 1.0);
      plain[j] /= static_cast<double>(units.size());
    }
    double sum_pair = 0, max_pair = 0, min_unit = 1e30, sum_unit = 0;
    size_t pairs = 0;
    for (size_t a = 0; a < units.size(); ++a) {
      const double c = DocumentCosine(units[a]);
      min_unit = std::min(min_unit, c);
      sum_unit += c;
      for (size_t b = a + 1; b < units.size(); ++b) {
        const double p = PairCosine(units[a], units[b]);
        max_pair = pairs == 0 ? p : std::max(max_pair, p);
        sum_pair += p;
        ++pairs;
      }
    }
    return {WithDocument(weighted.data(), Norm(weighted.data())),
            pairs > 0 ? sum_pair / static_cast<double>(pairs) : 0.0,
            max_pair,
            WithDocument(plain.data(), Norm(plain.data())),
            units.empty() ? 0.0 : min_unit,
            units.empty() ? 0.0 : sum_unit / static_cast<double>(units.size())};
  }

 private:
  const float* Row(int32_t u) const { return states_.values + (static_cast<size_t>(u) * width_); }

  template <typename T>
  double Norm(const T* x) const {
    double s = 0;
    for (size_t j = 0; j < width_; ++j) s += static_cast<double>(x[j]) * static_cast<double>(x[j]);
    return std::max(std::sqrt(s), 1e-12);
  }

  // Cosine of `x`, whose norm is `norm`, with the document's state.
  template <typename T>
  double WithDocument(const T* x, double norm) const {
    double dot = 0;
    for (size_t j = 0; j < width_; ++j) dot += static_cast<double>(x[j]) * document_[j];
    return dot / (norm * document_norm_);
  }

  double UnitNorm(int32_t u) {
    if (unit_norm_[u] < 0) unit_norm_[u] = Norm(Row(u));
    return unit_norm_[u];
  }

  double DocumentCosine(int32_t u) {
    if (!have_document_cosine_[u]) {
      document_cosine_[u] = WithDocument(Row(u), UnitNorm(u));
      have_document_cosine_[u] = true;
    }
    return document_cosine_[u];
  }

  double PairCosine(int32_t a, int32_t b) {
    auto [it, added] = pair_cosine_.emplace(std::make_pair(a, b), 0.0);
    if (added) {
      const float* x = Row(a);
      const float* y = Row(b);
      double dot = 0;
      for (size_t j = 0; j < width_; ++j) {
        dot += static_cast<double>(x[j]) * static_cast<double>(y[j]);
      }
      it->second = dot / (UnitNorm(a) * UnitNorm(b));
    }
    return it->second;
  }

  UnitStates states_;
  size_t width_;
  std::vector<double> document_;
  double document_norm_;
  std::vector<double> unit_norm_, document_cosine_;
  std::vector<bool> have_document_cosine_;
  std::map<std::pair<int32_t, int32_t>, double> pair_cosine_;
};

}  // namespace rpsum::model

#endif  // RPSUM_MODEL_INTERNAL_STATE_GEOMETRY_H_
