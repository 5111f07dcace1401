#include "train/eval_run.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "model/torch/inference.h"

namespace rpsum::train {
namespace {

using Clock = std::chrono::steady_clock;
using model::ClipDistanceFor;
using model::DocumentScores;
using model::NeedsUnitStates;
using model::RerankConfig;
using model::UnitKind;
using net::Checkpoint;

std::string Bucket(int64_t words) {
  if (words < 1000) return "<1k words";
  if (words < 2000) return "1k-2k";
  if (words < 4000) return "2k-4k";
  return ">=4k";
}

nlohmann::json ToJson(const RougeMean& m) {
  return {{"rouge1", m.r1}, {"rouge2", m.r2}, {"rougeL", m.rl}, {"rougeLsum", m.rlsum}, {"n", m.n}};
}

constexpr const char* kSystems[] = {"lead", "textrank", "rpsum", "oracle"};

// Lead: leading units in document order, headings skipped (a stronger lead than one that
// spends the budget on section titles).
std::vector<int32_t> LeadUnits(const EvalDoc& d) {
  std::vector<int32_t> lead;
  for (size_t u = 0; u < d.texts.size(); ++u) {
    if (d.prepared.units[d.prepared.kept[u]].kind != UnitKind::kHeading) {
      lead.push_back(static_cast<int32_t>(u));
    }
  }
  return lead;
}

void PrintOverall(Tables& t, const ModelRun& run, size_t docs, nlohmann::json* out) {
  std::printf(
      "| system | ROUGE-1 | ROUGE-2 | ROUGE-L | ROUGE-Lsum |\n| --- | --- | --- | --- | --- |\n");
  for (const char* s : kSystems) {
    const RougeMean m = t.overall[s].Mean();
    std::printf("| %s | %.2f | %.2f | %.2f | %.2f |\n", s, m.r1, m.r2, m.rl, m.rlsum);
    (*out)["overall"][s] = ToJson(m);
  }
  std::printf("\nmodel time: %.1f s for %lld tokens (%.0f tokens/s, %.0f ms per document)\n",
              run.seconds, static_cast<long long>(run.tokens),
              static_cast<double>(run.tokens) / run.seconds,
              1000 * run.seconds / static_cast<double>(std::max<size_t>(docs, 1)));
}

void PrintByLength(Tables& t, nlohmann::json* out) {
  std::printf("\n### By document length (ROUGE-1 / ROUGE-2 / ROUGE-Lsum)\n\n| length | n |");
  for (const char* s : kSystems) std::printf(" %s |", s);
  std::printf("\n| --- | --- |%s\n", " --- | --- | --- | --- |");
  for (const char* b : {"<1k words", "1k-2k", "2k-4k", ">=4k"}) {
    std::printf("| %s | %d |", b, t.by_bucket["lead"][b].n);
    for (const char* s : kSystems) {
      const RougeMean m = t.by_bucket[s][b].Mean();
      std::printf(" %.1f / %.1f / %.1f |", m.r1, m.r2, m.rlsum);
      (*out)["by_length"][b][s] = ToJson(m);
    }
    std::printf("\n");
  }
}

void PrintBySource(Tables& t, nlohmann::json* out) {
  std::printf(
      "\n### By source (ROUGE-1 / ROUGE-2 / ROUGE-Lsum)\n\n| source | n | lead | textrank | rpsum "
      "|\n| --- | --- | --- | --- | --- |\n");
  for (const auto& [src, m0] : t.by_source["lead"]) {
    std::printf("| %s | %d |", src.c_str(), m0.n);
    for (const char* s : {"lead", "textrank", "rpsum"}) {
      const RougeMean m = t.by_source[s][src].Mean();
      std::printf(" %.1f / %.1f / %.1f |", m.r1, m.r2, m.rlsum);
      (*out)["by_source"][src][s] = ToJson(m);
    }
    std::printf("\n");
  }
}

}  // namespace

ModelRun RunModel(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                  bool with_states) {
  ModelRun r;
  with_states = with_states || NeedsUnitStates(ck.config.scoring.rerank);
  for (const EvalDoc& d : docs) {
    const int64_t k = ClipDistanceFor(ck.config, d.prepared.num_tokens(), 0);
    const auto t0 = Clock::now();
    auto s = ScoreDocuments(ck, {&d.prepared}, k, pad, with_states);
    r.document_seconds.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    r.seconds += r.document_seconds.back();
    r.tokens += d.prepared.num_tokens();
    r.scores.push_back(s.ok() ? (*s)[0].scores : std::vector<float>(d.texts.size(), 0.f));
    if (with_states) r.states.push_back(s.ok() ? (*s)[0] : DocumentScores{});
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", d.record->id.c_str(), s.status().ToString().c_str());
    }
  }
  return r;
}

Tables ScoreSystems(const std::vector<EvalDoc>& docs, const ModelRun& run,
                    const RerankConfig& rerank, std::ofstream* dump) {
  Tables t;
  for (size_t i = 0; i < docs.size(); ++i) {
    const EvalDoc& d = docs[i];
    const std::string summaries[] = {
        SummaryFromUnits(d, LeadUnits(d)), SummaryFromScores(d, TextRankBaseline(d), {}),
        SummaryFromScores(d, run.scores[i], rerank, run.States(i)), SummaryFromUnits(d, d.oracle)};
    nlohmann::json line;
    for (int s = 0; s < 4; ++s) {
      const RougeScores r = ScoreSummary(d, summaries[s]);
      t.overall[kSystems[s]].Add(r);
      t.by_bucket[kSystems[s]][Bucket(d.prepared.total_words)].Add(r);
      t.by_source[kSystems[s]][d.record->source].Add(r);
      if (dump != nullptr) {
        line[kSystems[s]] = {{"summary", summaries[s]},
                             {"rouge1", 100 * r.rouge1.f},
                             {"rouge2", 100 * r.rouge2.f},
                             {"rougeLsum", 100 * r.rougeLsum.f}};
      }
    }
    if (dump != nullptr) {
      line["id"] = d.record->id;
      line["source"] = d.record->source;
      line["title"] = d.record->title;
      line["reference"] = d.record->summary;
      line["units"] = d.texts;
      line["reference_words"] = d.reference_words;
      line["document_words"] = d.prepared.total_words;
      line["tokens"] = d.prepared.num_tokens();  // what the network read (bench/longdoc)
      line["oracle_units"] = d.oracle;
      line["unit_scores"] = run.scores[i];
      *dump << line.dump() << "\n";
    }
  }
  return t;
}

void PrintTables(Tables& t, const ModelRun& run, size_t docs, nlohmann::json* out) {
  PrintOverall(t, run, docs, out);
  PrintByLength(t, out);
  PrintBySource(t, out);
}

}  // namespace rpsum::train
