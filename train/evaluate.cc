#include "train/evaluate.h"

#include <algorithm>

#include "model/select.h"
#include "train/oracle.h"

namespace rpsum::train {

using model::Budget;
using model::CountWords;
using model::JoinAndCut;
using model::PrepareOptions;
using model::RerankConfig;
using model::SelectOptions;
using model::Tokenizer;
using model::UnitStates;
std::vector<EvalDoc> PrepareCorpus(const std::vector<CorpusRecord>& records,
                                   const Tokenizer& tokenizer, const PrepareOptions& options,
                                   bool with_oracle, int* skipped) {
  std::vector<EvalDoc> out;
  out.reserve(records.size());
  *skipped = 0;
  for (const CorpusRecord& r : records) {
    EvalDoc d;
    d.record = &r;
    d.input.document = r.document;
    d.input.title = r.title;
    auto p = Prepare(d.input, tokenizer, options);
    if (!p.ok()) {
      ++*skipped;
      continue;
    }
    d.prepared = *std::move(p);
    d.texts = d.prepared.KeptTexts(d.input);
    for (int32_t u : d.prepared.kept) d.words.push_back(d.prepared.units[u].words);
    d.reference_words = CountWords(r.summary);
    if (with_oracle) d.oracle = GreedyOracle(d.texts, r.summary);
    out.push_back(std::move(d));
  }
  return out;
}

std::string SummaryFromUnits(const EvalDoc& doc, const std::vector<int32_t>& chosen) {
  return JoinAndCut(doc.texts, chosen, doc.reference_words);
}

SelectOptions ServedOptions(const EvalDoc& doc, const RerankConfig& rerank) {
  SelectOptions o;  // what the server makes of a request with max_words only
  o.budget = {Budget::Kind::kWords, std::max<double>(1, static_cast<double>(doc.reference_words))};
  o.rerank = rerank;
  return o;
}

std::string SummaryFromScores(const EvalDoc& doc, const std::vector<float>& scores,
                              const RerankConfig& rerank, UnitStates states) {
  return JoinAndCut(
      doc.texts, SelectSummary(doc.prepared, doc.texts, scores, ServedOptions(doc, rerank), states),
      0);
}

RougeScores ScoreSummary(const EvalDoc& doc, const std::string& summary) {
  RougeScores best;
  for (const std::string& ref : doc.record->references) {
    const RougeScores s = Rouge(ref, summary);
    if (s.rouge1.f > best.rouge1.f) best.rouge1 = s.rouge1;
    if (s.rouge2.f > best.rouge2.f) best.rouge2 = s.rouge2;
    if (s.rougeL.f > best.rougeL.f) best.rougeL = s.rougeL;
    if (s.rougeLsum.f > best.rougeLsum.f) best.rougeLsum = s.rougeLsum;
  }
  return best;
}

void RougeMean::Add(const RougeScores& s) {
  r1 += s.rouge1.f;
  r2 += s.rouge2.f;
  rl += s.rougeL.f;
  rlsum += s.rougeLsum.f;
  ++n;
}

RougeMean RougeMean::Mean() const {
  RougeMean m = *this;
  if (n > 0) {
    m.r1 = 100 * r1 / n;
    m.r2 = 100 * r2 / n;
    m.rl = 100 * rl / n;
    m.rlsum = 100 * rlsum / n;
  }
  return m;
}

std::vector<float> LeadScores(const EvalDoc& doc) {
  std::vector<float> s(doc.texts.size());
  for (size_t i = 0; i < s.size(); ++i) s[i] = -static_cast<float>(i);
  return s;
}

std::vector<float> TextRankBaseline(const EvalDoc& doc) { return TextRankScores(doc.texts); }

}  // namespace rpsum::train
