#include "train/rouge.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "model/document.h"

namespace rpsum::train {

using model::AsciiWords;

namespace {

// ---- Porter stemmer, original algorithm (Porter 1980; NLTK's ORIGINAL_ALGORITHM mode) ----

bool IsVowelLetter(char c) { return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u'; }

bool IsConsonant(const std::string& w, size_t i) {
  if (IsVowelLetter(w[i])) return false;
  if (w[i] == 'y') return i == 0 ? true : !IsConsonant(w, i - 1);
  return true;
}

int Measure(const std::string& stem) {
  int m = 0;
  bool prev_vowel = false;
  for (size_t i = 0; i < stem.size(); ++i) {
    const bool consonant = IsConsonant(stem, i);
    if (consonant && prev_vowel) ++m;  // a "vc" pair
    prev_vowel = !consonant;
  }
  return m;
}

bool ContainsVowel(const std::string& stem) {
  for (size_t i = 0; i < stem.size(); ++i) {
    if (!IsConsonant(stem, i)) return true;
  }
  return false;
}

bool EndsDoubleConsonant(const std::string& w) {
  const size_t n = w.size();
  return n >= 2 && w[n - 1] == w[n - 2] && IsConsonant(w, n - 1);
}

bool EndsCvc(const std::string& w) {
  const size_t n = w.size();
  return n >= 3 && IsConsonant(w, n - 3) && !IsConsonant(w, n - 2) && IsConsonant(w, n - 1) &&
         w[n - 1] != 'w' && w[n - 1] != 'x' && w[n - 1] != 'y';
}

bool EndsWith(const std::string& w, std::string_view s) {
  return w.size() >= s.size() && w.compare(w.size() - s.size(), s.size(), s) == 0;
}

enum class Cond { kNone, kPositiveMeasure, kMeasureGt1, kIonRule };

struct Rule {
  std::string_view suffix, replacement;
  Cond cond;
};

bool Holds(Cond c, const std::string& stem) {
  switch (c) {
    case Cond::kNone:
      return true;
    case Cond::kPositiveMeasure:
      return Measure(stem) > 0;
    case Cond::kMeasureGt1:
      return Measure(stem) > 1;
    case Cond::kIonRule:
      return Measure(stem) > 1 && !stem.empty() && (stem.back() == 's' || stem.back() == 't');
  }
  return false;
}

// The first rule whose suffix matches decides: replaced if its condition holds, else the word
// is returned unchanged.
std::string ApplyRules(const std::string& word, const std::vector<Rule>& rules) {
  for (const Rule& r : rules) {
    if (EndsWith(word, r.suffix)) {
      std::string stem = word.substr(0, word.size() - r.suffix.size());
      if (Holds(r.cond, stem)) return stem + std::string(r.replacement);
      return word;
    }
  }
  return word;
}

std::string Step1a(const std::string& w) {
  return ApplyRules(w, {{"sses", "ss", Cond::kNone},
                        {"ies", "i", Cond::kNone},
                        {"ss", "ss", Cond::kNone},
                        {"s", "", Cond::kNone}});
}

std::string Step1b(const std::string& w) {
  if (EndsWith(w, "eed")) {
    std::string stem = w.substr(0, w.size() - 3);
    return Measure(stem) > 0 ? stem + "ee" : w;
  }
  std::string stem;
  bool ok = false;
  for (std::string_view suffix : {std::string_view("ed"), std::string_view("ing")}) {
    if (EndsWith(w, suffix)) {
      stem = w.substr(0, w.size() - suffix.size());
      if (ContainsVowel(stem)) {
        ok = true;
        break;
      }
    }
  }
  if (!ok) return w;
  if (EndsWith(stem, "at") || EndsWith(stem, "bl") || EndsWith(stem, "iz")) return stem + "e";
  if (EndsDoubleConsonant(stem)) {
    const char last = stem.back();
    if (last != 'l' && last != 's' && last != 'z') return stem.substr(0, stem.size() - 1);
    return stem;
  }
  if (Measure(stem) == 1 && EndsCvc(stem)) return stem + "e";
  return stem;
}

std::string Step1c(const std::string& w) {
  if (EndsWith(w, "y")) {
    std::string stem = w.substr(0, w.size() - 1);
    return ContainsVowel(stem) ? stem + "i" : w;
  }
  return w;
}

std::string Step2(const std::string& w) {
  const Cond p = Cond::kPositiveMeasure;
  return ApplyRules(
      w,
      {{"ational", "ate", p}, {"tional", "tion", p}, {"enci", "ence", p},   {"anci", "ance", p},
       {"izer", "ize", p},    {"abli", "able", p},   {"alli", "al", p},     {"entli", "ent", p},
       {"eli", "e", p},       {"ousli", "ous", p},   {"ization", "ize", p}, {"ation", "ate", p},
       {"ator", "ate", p},    {"alism", "al", p},    {"iveness", "ive", p}, {"fulness", "ful", p},
       {"ousness", "ous", p}, {"aliti", "al", p},    {"iviti", "ive", p},   {"biliti", "ble", p}});
}

std::string Step3(const std::string& w) {
  const Cond p = Cond::kPositiveMeasure;
  return ApplyRules(w, {{"icate", "ic", p},
                        {"ative", "", p},
                        {"alize", "al", p},
                        {"iciti", "ic", p},
                        {"ical", "ic", p},
                        {"ful", "", p},
                        {"ness", "", p}});
}

std::string Step4(const std::string& w) {
  const Cond g = Cond::kMeasureGt1;
  return ApplyRules(w, {{"al", "", g},
                        {"ance", "", g},
                        {"ence", "", g},
                        {"er", "", g},
                        {"ic", "", g},
                        {"able", "", g},
                        {"ible", "", g},
                        {"ant", "", g},
                        {"ement", "", g},
                        {"ment", "", g},
                        {"ent", "", g},
                        {"ion", "", Cond::kIonRule},
                        {"ou", "", g},
                        {"ism", "", g},
                        {"ate", "", g},
                        {"iti", "", g},
                        {"ous", "", g},
                        {"ive", "", g},
                        {"ize", "", g}});
}

std::string Step5a(const std::string& w) {
  if (EndsWith(w, "e")) {
    std::string stem = w.substr(0, w.size() - 1);
    const int m = Measure(stem);
    if (m > 1) return stem;
    if (m == 1 && !EndsCvc(stem)) return stem;
  }
  return w;
}

std::string Step5b(const std::string& w) {
  if (EndsWith(w, "ll") && Measure(w.substr(0, w.size() - 1)) > 1) {
    return w.substr(0, w.size() - 1);
  }
  return w;
}

// ---- ROUGE ----

RougeScore Fmeasure(double precision, double recall) {
  RougeScore s{precision, recall, 0};
  if (precision + recall > 0) s.f = 2 * precision * recall / (precision + recall);
  return s;
}

std::vector<std::vector<int>> LcsTable(const std::vector<std::string>& a,
                                       const std::vector<std::string>& b) {
  std::vector<std::vector<int>> t(a.size() + 1, std::vector<int>(b.size() + 1, 0));
  for (size_t i = 1; i <= a.size(); ++i) {
    for (size_t j = 1; j <= b.size(); ++j) {
      t[i][j] = a[i - 1] == b[j - 1] ? t[i - 1][j - 1] + 1 : std::max(t[i - 1][j], t[i][j - 1]);
    }
  }
  return t;
}

// Indices into `ref` of one LCS with `can` (rouge-score's _backtrack_norec).
std::vector<size_t> LcsIndices(const std::vector<std::string>& ref,
                               const std::vector<std::string>& can) {
  const auto t = LcsTable(ref, can);
  std::vector<size_t> out;
  size_t i = ref.size(), j = can.size();
  while (i > 0 && j > 0) {
    if (ref[i - 1] == can[j - 1]) {
      out.push_back(i - 1);
      --i;
      --j;
    } else if (t[i][j - 1] > t[i - 1][j]) {
      --j;
    } else {
      --i;
    }
  }
  std::reverse(out.begin(), out.end());
  return out;
}

}  // namespace

std::string PorterStem(std::string w) {
  w = Step1a(w);
  w = Step1b(w);
  w = Step1c(w);
  w = Step2(w);
  w = Step3(w);
  w = Step4(w);
  w = Step5a(w);
  w = Step5b(w);
  return w;
}

std::vector<std::string> RougeTokenize(std::string_view text, bool stem) {
  std::vector<std::string> out = AsciiWords(text);
  if (stem) {
    for (std::string& w : out) {
      if (w.size() > 3) w = PorterStem(std::move(w));
    }
  }
  return out;
}

RougeScore RougeN(const std::vector<std::string>& target, const std::vector<std::string>& pred,
                  int n) {
  auto grams = [n](const std::vector<std::string>& t) {
    std::map<std::vector<std::string>, int> m;
    for (size_t i = 0; i + n <= t.size(); ++i) {
      ++m[std::vector<std::string>(t.begin() + i, t.begin() + i + n)];
    }
    return m;
  };
  const auto tg = grams(target), pg = grams(pred);
  int overlap = 0, tt = 0, pt = 0;
  for (const auto& [g, c] : tg) {
    tt += c;
    auto it = pg.find(g);
    if (it != pg.end()) overlap += std::min(c, it->second);
  }
  for (const auto& [g, c] : pg) pt += c;
  return Fmeasure(static_cast<double>(overlap) / std::max(pt, 1),
                  static_cast<double>(overlap) / std::max(tt, 1));
}

RougeScore RougeL(const std::vector<std::string>& target, const std::vector<std::string>& pred) {
  if (target.empty() || pred.empty()) return {};
  const int lcs = LcsTable(target, pred)[target.size()][pred.size()];
  return Fmeasure(static_cast<double>(lcs) / pred.size(), static_cast<double>(lcs) / target.size());
}

RougeScore RougeLsum(const std::vector<std::vector<std::string>>& ref,
                     const std::vector<std::vector<std::string>>& can) {
  if (ref.empty() || can.empty()) return {};
  size_t m = 0, n = 0;
  std::map<std::string, int> count_r, count_c;
  for (const auto& s : ref) {
    m += s.size();
    for (const auto& t : s) ++count_r[t];
  }
  for (const auto& s : can) {
    n += s.size();
    for (const auto& t : s) ++count_c[t];
  }
  if (m == 0 || n == 0) return {};
  int hits = 0;
  for (const auto& r : ref) {
    std::set<size_t> uni;
    for (const auto& c : can) {
      for (size_t i : LcsIndices(r, c)) uni.insert(i);
    }
    for (size_t i : uni) {
      const std::string& t = r[i];
      if (count_c[t] > 0 && count_r[t] > 0) {
        ++hits;
        --count_c[t];
        --count_r[t];
      }
    }
  }
  return Fmeasure(static_cast<double>(hits) / n, static_cast<double>(hits) / m);
}

RougeScores Rouge(std::string_view target, std::string_view prediction, bool stem) {
  const auto t = RougeTokenize(target, stem), p = RougeTokenize(prediction, stem);
  auto lines = [stem](std::string_view text) {  // ROUGE-Lsum's units: one per line
    std::vector<std::vector<std::string>> out;
    size_t pos = 0;
    while (pos <= text.size()) {
      size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      if (end > pos) out.push_back(RougeTokenize(text.substr(pos, end - pos), stem));
      pos = end + 1;
    }
    return out;
  };
  RougeScores s;
  s.rouge1 = RougeN(t, p, 1);
  s.rouge2 = RougeN(t, p, 2);
  s.rougeL = RougeL(t, p);
  s.rougeLsum = RougeLsum(lines(target), lines(prediction));
  return s;
}

}  // namespace rpsum::train
