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

// One row of a clip-distance study: the served summaries' ROUGE and the model's time.
void PrintStudyRow(const char* study, const std::string& name, const std::vector<EvalDoc>& docs,
                   const ModelRun& r, const RerankConfig& rerank, nlohmann::json* out) {
  RougeMean m;
  nlohmann::json documents = nlohmann::json::array();
  for (size_t i = 0; i < docs.size(); ++i) {
    const RougeScores s =
        ScoreSummary(docs[i], SummaryFromScores(docs[i], r.scores[i], rerank, r.States(i)));
    m.Add(s);
    documents.push_back({{"id", docs[i].record->id},
                         {"tokens", docs[i].prepared.num_tokens()},
                         {"rouge1", 100 * s.rouge1.f},
                         {"rouge2", 100 * s.rouge2.f},
                         {"rougeLsum", 100 * s.rougeLsum.f},
                         {"ms", 1000 * r.document_seconds[i]}});
  }
  m = m.Mean();
  std::printf("| %s | %.2f | %.2f | %.2f | %.1f | %.0f |\n", name.c_str(), m.r1, m.r2, m.rlsum,
              r.seconds, static_cast<double>(r.tokens) / r.seconds);
  (*out)[study][name] = ToJson(m);
  (*out)[study][name]["model_seconds"] = r.seconds;
  (*out)[study][name]["documents"] = std::move(documents);
}

}  // namespace

ModelRun RunModel(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad, int64_t k_fixed,
                  bool with_states) {
  ModelRun r;
  with_states = with_states || NeedsUnitStates(ck.config.scoring.rerank);
  for (const EvalDoc& d : docs) {
    const int64_t k = k_fixed == 0 ? 0
                                   : ClipDistanceFor(ck.config, d.prepared.num_tokens(),
                                                     k_fixed == kPolicy ? 0 : k_fixed);
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

void PrintKStudy(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                 const ModelRun& run, const std::vector<int64_t>& study, nlohmann::json* out) {
  std::printf(
      "\n### Clip distance k (same model; ROUGE and model time)\n\n| k | ROUGE-1 | ROUGE-2 | "
      "ROUGE-Lsum | model s | tokens/s |\n| --- | --- | --- | --- | --- | --- |\n");
  std::vector<int64_t> ks = {kPolicy};
  ks.insert(ks.end(), study.begin(), study.end());
  for (int64_t k : ks) {
    const ModelRun r = k == kPolicy ? run : RunModel(ck, docs, pad, k);
    const std::string name = k == kPolicy ? "policy: " + ck.config.clip_policy.Describe()
                             : k == 0     ? "0 (no relative positions)"
                                          : std::to_string(k);
    PrintStudyRow("k_study", name, docs, r, ck.config.scoring.rerank, out);
  }
}

void PrintUnitKStudy(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                     const std::vector<int64_t>& ks, nlohmann::json* out) {
  std::printf(
      "\n### Unit-level clip distance (same model, token k by policy; ROUGE and model time)\n\n"
      "| unit k | ROUGE-1 | ROUGE-2 | ROUGE-Lsum | model s | tokens/s |\n"
      "| --- | --- | --- | --- | --- | --- |\n");
  for (const int64_t k : ks) {
    Checkpoint variant = ck;  // shares the module; only the config's unit k differs
    variant.config.architecture.unit_clip_distance =
        std::clamp<int64_t>(k, 0, ck.config.architecture.unit_clip_distance);
    const int64_t used = variant.config.architecture.unit_clip_distance;
    const std::string name = used == ck.config.architecture.unit_clip_distance
                                 ? std::to_string(used) + " (the model's)"
                             : used == 0 ? "0 (no unit positions)"
                                         : std::to_string(used);
    PrintStudyRow("unit_k_study", name, docs, RunModel(variant, docs, pad, kPolicy),
                  ck.config.scoring.rerank, out);
  }
}

void PrintWindowStudy(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                      const std::vector<int64_t>& windows, nlohmann::json* out) {
  std::printf(
      "\n### Block-local window past %lld tokens (same model, k by policy; ROUGE and model "
      "time)\n\n| window | ROUGE-1 | ROUGE-2 | ROUGE-Lsum | model s | tokens/s |\n"
      "| --- | --- | --- | --- | --- | --- |\n",
      static_cast<long long>(ck.config.attention.local_threshold));
  for (const int64_t w : windows) {
    Checkpoint variant = ck;  // shares the module; only the config's window differs
    variant.config.attention.local_window = w;
    variant.config.attention.local_windows.clear();  // one window at every length
    // A model with bands runs its base window below the first band: the row to compare with.
    const std::string name = w != ck.config.attention.local_window ? std::to_string(w)
                             : ck.config.attention.local_windows.empty()
                                 ? std::to_string(w) + " (the model's)"
                                 : std::to_string(w) + " (the model's base window)";
    PrintStudyRow("window_study", name, docs, RunModel(variant, docs, pad, kPolicy),
                  ck.config.scoring.rerank, out);
  }
}

}  // namespace rpsum::train
