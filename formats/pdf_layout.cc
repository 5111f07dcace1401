// Column layout of a PDF page's lines (formats/internal/pdf_layout.h).
#include "formats/internal/pdf_layout.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace rpsum::formats::internal {

void Extend(Box* a, const Box& b) {
  a->x0 = std::min(a->x0, b.x0);
  a->y0 = std::min(a->y0, b.y0);
  a->x1 = std::max(a->x1, b.x1);
  a->y1 = std::max(a->y1, b.y1);
}

Line LineOf(std::vector<Word> words, int32_t page) {
  Line l;
  l.page = page;
  l.box = words.front().box;
  for (const Word& w : words) {
    Extend(&l.box, w.box);
    l.font_size = std::max(l.font_size, w.font_size);
  }
  l.words = std::move(words);
  return l;
}

// A page's words as lines across the whole page, top to bottom, each left to right (words of
// two columns at the same height share a line here; ColumnsInReadingOrder splits them).
std::vector<Line> PageLines(std::vector<Word> words, int32_t page) {
  // Indices are sorted, and each word moved once: a page may hold thousands of one-letter words.
  std::vector<uint32_t> order(words.size());
  std::vector<double> mid(words.size());
  for (size_t i = 0; i < words.size(); ++i) {
    order[i] = static_cast<uint32_t>(i);
    mid[i] = words[i].box.y0 + words[i].box.y1;
  }
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return mid[a] < mid[b]; });
  std::vector<std::vector<uint32_t>> rows;
  Box row;
  for (uint32_t i : order) {
    const Box& b = words[i].box;
    const double overlap = rows.empty() ? 0 : std::min(row.y1, b.y1) - std::max(row.y0, b.y0);
    if (rows.empty() || overlap <= 0.5 * std::min(row.y1 - row.y0, b.y1 - b.y0)) {
      rows.emplace_back();
      row = b;
    }
    Extend(&row, b);
    rows.back().push_back(i);
  }
  std::vector<Line> lines;
  for (std::vector<uint32_t>& r : rows) {
    std::stable_sort(r.begin(), r.end(),
                     [&](uint32_t a, uint32_t b) { return words[a].box.x0 < words[b].box.x0; });
    // A soft hyphen poppler gave as a word of its own belongs to the word before it.
    std::vector<Word> kept;
    kept.reserve(r.size());
    for (uint32_t i : r) {
      Word& w = words[i];
      if (w.text.empty()) {
        if (w.soft_hyphen_end && !kept.empty()) kept.back().soft_hyphen_end = true;
        continue;
      }
      if (!kept.empty()) kept.back().soft_hyphen_end = false;  // not at the line's end
      kept.push_back(std::move(w));
    }
    if (!kept.empty()) lines.push_back(LineOf(std::move(kept), page));
  }
  return lines;
}

namespace {
int SizeKey(double size) { return static_cast<int>(std::lround(2 * size)); }
}  // namespace

HeadingSizes::HeadingSizes(const std::vector<Line>& lines) {
  std::map<int, size_t> words;
  for (const Line& l : lines) words[SizeKey(l.font_size)] += l.words.size();
  size_t most = 0;
  for (const auto& [size, n] : words) {
    if (n > most) {  // ascending sizes: the smallest of equal counts wins
      most = n;
      body_ = size;
    }
  }
  for (const Line& l : lines) {
    if (IsHeadingSize(l)) sizes_.push_back(SizeKey(l.font_size));
  }
  std::sort(sizes_.begin(), sizes_.end(), std::greater<>());
  sizes_.erase(std::unique(sizes_.begin(), sizes_.end()), sizes_.end());
}

int32_t HeadingSizes::LevelOf(const Line& l) const {
  if (!IsHeadingSize(l)) return 0;
  const auto at = std::find(sizes_.begin(), sizes_.end(), SizeKey(l.font_size));
  return std::min<int32_t>(6, static_cast<int32_t>(at - sizes_.begin()) + 1);
}

bool HeadingSizes::IsHeadingSize(const Line& l) const {
  return body_ > 0 && l.words.size() <= 12 && SizeKey(l.font_size) * 20 > body_ * 23;
}

namespace {

// The bins [first, end) a box covers on a page's axis from `lo`: bin b holds x in [lo + b, lo + b +
// 1).
std::pair<size_t, size_t> Bins(const Box& box, double lo, size_t bins) {
  const auto first = static_cast<size_t>(std::max(0.0, box.x0 - lo));
  const double end = std::ceil(box.x1 - lo);
  return {std::min(first, bins), end <= 0 ? 0 : std::min(bins, static_cast<size_t>(end))};
}

// How many lines cover each bin: per line the union of its words' spans, added to a difference
// array (words + bins per line, where marking every bin a word covers cost lines x bins).
std::vector<int> Coverage(const std::vector<const Line*>& lines, double lo, size_t bins) {
  std::vector<int> diff(bins + 1, 0);
  std::vector<std::pair<size_t, size_t>> spans;
  for (const Line* l : lines) {
    spans.clear();
    for (const Word& w : l->words) {
      const auto span = Bins(w.box, lo, bins);
      if (span.first < span.second) spans.push_back(span);
    }
    std::sort(spans.begin(), spans.end());
    bool open = false;
    size_t b = 0, e = 0;
    for (const auto& [sb, se] : spans) {
      if (open && sb <= e) {
        e = std::max(e, se);
        continue;
      }
      if (open) {
        ++diff[b];
        --diff[e];
      }
      b = sb;
      e = se;
      open = true;
    }
    if (open) {
      ++diff[b];
      --diff[e];
    }
  }
  std::vector<int> cover(bins, 0);
  int run = 0;
  for (size_t b = 0; b < bins; ++b) cover[b] = run += diff[b];
  return cover;
}

constexpr size_t kMaxGutters = 7;

// Column gutters of a page: x ranges at least 8 points wide, inside its text, that at most
// one line in twenty crosses, with a quarter of the lines on each side. Linear in the page's
// words and width (the counts of lines on each side by binary search).
std::vector<std::pair<double, double>> Gutters(const std::vector<const Line*>& lines) {
  std::vector<std::pair<double, double>> gutters;
  if (lines.size() < 6) return gutters;
  double lo = 1e9, hi = -1e9;
  std::vector<double> starts, ends;
  for (const Line* l : lines) {
    lo = std::min(lo, l->box.x0);
    hi = std::max(hi, l->box.x1);
    starts.push_back(l->box.x0);
    ends.push_back(l->box.x1);
  }
  if (!(hi - lo > 50) || hi - lo > 1e5) return gutters;
  std::sort(starts.begin(), starts.end());
  std::sort(ends.begin(), ends.end());
  const auto bins = static_cast<size_t>(hi - lo) + 1;
  const std::vector<int> cover = Coverage(lines, lo, bins);
  const auto n = static_cast<int>(lines.size());
  size_t b = 0;
  while (b < bins) {
    if (cover[b] * 20 > n) {
      ++b;
      continue;
    }
    size_t e = b;
    while (e < bins && cover[e] * 20 <= n) ++e;
    const double x0 = lo + static_cast<double>(b), x1 = lo + static_cast<double>(e);
    const auto left = std::lower_bound(starts.begin(), starts.end(), x0) - starts.begin();
    const auto right = ends.end() - std::upper_bound(ends.begin(), ends.end(), x1);
    if (x1 - x0 >= 8 && 4 * left >= n && 4 * right >= n) gutters.emplace_back(x0, x1);
    b = e;
  }
  // More columns than a page of prose has: a table or scattered words, read as one column
  // (which also bounds the work per line by the number of columns).
  if (gutters.size() > kMaxGutters) gutters.clear();
  return gutters;
}

// The column of a word left of the first gutter that ends after its start (gutters ascend and
// do not overlap), and whether the word crosses that gutter.
size_t ColumnOf(const std::vector<std::pair<double, double>>& gutters, const Box& box,
                bool* crosses) {
  const auto it = std::upper_bound(gutters.begin(), gutters.end(), box.x0,
                                   [](double x, const auto& g) { return x < g.second; });
  *crosses = it != gutters.end() && box.x1 > it->first;
  return static_cast<size_t>(it - gutters.begin());
}

}  // namespace

void ColumnsInReadingOrder(const std::vector<Line*>& lines, std::vector<Line>* out) {
  const std::vector<std::pair<double, double>> gutters =
      Gutters(std::vector<const Line*>(lines.begin(), lines.end()));
  std::vector<std::vector<Line>> columns(gutters.size() + 1);
  auto flush = [&] {
    for (auto& c : columns) {
      for (Line& l : c) out->push_back(std::move(l));
      c.clear();
    }
  };
  std::vector<size_t> column_of;
  for (Line* l : lines) {
    bool spans = false;
    column_of.clear();
    for (const Word& w : l->words) {
      bool crosses = false;
      column_of.push_back(ColumnOf(gutters, w.box, &crosses));
      spans |= crosses;
    }
    if (spans) {
      flush();
      out->push_back(std::move(*l));
      continue;
    }
    std::vector<std::vector<Word>> parts(columns.size());
    for (size_t i = 0; i < l->words.size(); ++i) {
      parts[column_of[i]].push_back(std::move(l->words[i]));
    }
    for (size_t c = 0; c < parts.size(); ++c) {
      if (!parts[c].empty()) columns[c].push_back(LineOf(std::move(parts[c]), l->page));
    }
  }
  flush();
}

}  // namespace rpsum::formats::internal
