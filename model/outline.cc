// The outline (docs/design.md, section 2, "Outline"): a document's sections, each with its own
// summary from the same scores; and the service's selection, which reads both.
#include <algorithm>
#include <cmath>

#include "model/internal/select.h"
#include "model/select.h"

namespace rpsum::model {

Selection SelectForResponse(const PreparedDocument& doc, const std::vector<std::string_view>& texts,
                            const std::vector<float>& scores, SelectOptions options,
                            UnitStates states, bool outline, const std::vector<bool>& headings) {
  Selection out;
  if (!options.keep_boilerplate) {
    out.boilerplate = FindBoilerplate(doc, texts);
    options.boilerplate = &out.boilerplate;
  }
  out.chosen = SelectSummary(doc, texts, scores, options, states);
  if (outline && !doc.kept.empty()) {
    out.outline = SummarizeSections(doc, texts, scores, options, headings);
  }
  return out;
}

std::vector<OutlineSection> SummarizeSections(const PreparedDocument& doc,
                                              const std::vector<std::string_view>& texts,
                                              const std::vector<float>& scores,
                                              const SelectOptions& options,
                                              const std::vector<bool>& headings) {
  const size_t n = doc.kept.size();
  Boilerplate found;
  if (!options.keep_boilerplate && options.boilerplate == nullptr) {
    found = FindBoilerplate(doc, texts);
  }
  const Boilerplate& boilerplate = options.boilerplate != nullptr ? *options.boilerplate : found;
  std::vector<OutlineSection> out;
  for (size_t i = 0; i < n; ++i) {
    const bool heading =
        headings.empty() ? doc.units[doc.kept[i]].kind == UnitKind::kHeading : headings[i];
    if (out.empty() || heading) {
      OutlineSection s;
      s.heading = heading ? static_cast<int32_t>(i) : -1;
      s.first = static_cast<int32_t>(i);
      s.boilerplate = !options.keep_boilerplate && heading && IsBoilerplateHeading(texts[i]);
      out.push_back(s);
    }
    out.back().end = static_cast<int32_t>(i + 1);
  }
  // Content: what SelectSummary would choose from (no heading, fragment or boilerplate).
  std::vector<int32_t> words(n);
  std::vector<bool> content(n);
  for (size_t i = 0; i < n; ++i) {
    const Unit& u = doc.units[doc.kept[i]];
    words[i] = u.words;
    content[i] = u.kind != UnitKind::kHeading && !IsFragment(texts[i], u.words) &&
                 (options.keep_boilerplate || !boilerplate.units[i]);
  }
  int64_t total = 0;
  for (OutlineSection& s : out) {
    for (int32_t i = s.first; i < s.end; ++i) s.words += content[i] ? words[i] : 0;
    if (s.words >= kMinSectionWords && !s.boilerplate) total += s.words;
  }
  const double budget = BudgetWords(options.budget, doc);
  for (OutlineSection& s : out) {
    if (s.words < kMinSectionWords || total == 0 || s.boilerplate) continue;
    // The section's share of the summary's words is its share of the content words; its best
    // unit comes back even when that share is smaller (SelectByScore's rule).
    SelectOptions o = options;
    o.budget = {Budget::Kind::kWords,
                std::floor(budget * static_cast<double>(s.words) / static_cast<double>(total))};
    std::vector<float> ranked;
    std::vector<std::string_view> t;
    std::vector<int32_t> w, index;
    for (int32_t i = s.first; i < s.end; ++i) {
      if (!content[i]) continue;
      ranked.push_back(scores[i]);
      t.push_back(texts[i]);
      w.push_back(words[i]);
      index.push_back(i);
    }
    for (int32_t k : SelectByScore(ranked, t, w, o)) s.chosen.push_back(index[k]);
  }
  return out;
}

}  // namespace rpsum::model
