// rpsum-eval: the evaluation protocol (docs/design.md, "Evaluation"). Runs a checkpoint and the
// baselines (lead, TextRank, greedy oracle) on one split with the same units and budget, the
// reference's word count: the model and TextRank through the service's own selection
// (SelectSummary: what a client asking for that many words gets), lead and the oracle cut to
// the budget. Prints markdown tables (overall, by document length, by
// source) and writes JSON. --k_study adds the clip-distance study (fixed k vs the policy).
#include <ATen/ATen.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <numeric>
#include <set>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "model/select.h"
#include "model/torch/checkpoint.h"
#include "model/torch/inference.h"
#include "nlohmann/json.hpp"
#include "train/evaluate.h"

ABSL_FLAG(std::string, model, "models/rpsum-ext", "checkpoint directory");
ABSL_FLAG(std::string, data_dir, "../shared/data/corpus", "corpus folder");
ABSL_FLAG(std::string, split, "test", "train, valid or test");
ABSL_FLAG(std::string, file, "", "a .jsonl(.gz) file instead of --data_dir/--split");
ABSL_FLAG(std::string, json, "", "write the results here");
ABSL_FLAG(int, limit, 0, "first N documents only (0: all)");
ABSL_FLAG(double, budget_feature_words, 0,
          "feed the network this budget in words (model/document.h BudgetFeatures) instead of "
          "each document's reference length, while selecting under the reference length (a "
          "study of how much a model that reads the budget uses it; 0: the served budget)");
ABSL_FLAG(int, threads, 2, "torch threads");
ABSL_FLAG(int, max_input_tokens, 32768, "preparation limit (head truncation past it)");
ABSL_FLAG(double, centrality_weight, -1,
          "override the checkpoint's scoring.centrality_weight (negative: keep the config's)");
ABSL_FLAG(std::string, fusion_study, "",
          "comma-separated weights w: also score the model's z-scores + w x TextRank's z-scores "
          "(per document) through the served selection");
ABSL_FLAG(std::string, fusion_with, "textrank",
          "what --fusion_study adds: textrank (its centrality), or feature column N of the "
          "preparation (model/model_config.h)");
ABSL_FLAG(bool, fusion_logit, false,
          "--fusion_study adds w x the --fusion_with z-scores to the model's logits (scores "
          "stay in (0, 1)) instead of to the model's z-scores");
ABSL_FLAG(std::string, k_study, "",
          "comma-separated fixed token-level clip distances to compare with the model's policy "
          "(0: no relative positions, every distance shares the table's centre row)");
ABSL_FLAG(std::string, ensemble_with, "",
          "a second checkpoint with the same tokenizer: also score the mean of the two models' "
          "served scores (an ensemble study; the server runs one model)");
ABSL_FLAG(bool, selection_study, false,
          "also score variants of the selection policy on the model's served scores");
ABSL_FLAG(std::string, sentence_k_study, "",
          "comma-separated unit-level clip distances (at most the model's "
          "architecture.sentence_clip_distance; 0: no unit positions) to compare with it");
ABSL_FLAG(std::string, dump, "",
          "write one JSON line per document here: id, source, reference, and per system the "
          "summary and its ROUGE-1/2/Lsum F1 (for error analysis)");
ABSL_FLAG(bool, no_rerank, false,
          "select greedily (scoring.rerank off) even when the checkpoint has a summary-level "
          "reranking");
ABSL_FLAG(std::string, fit_rerank, "",
          "fit scoring.rerank's weights on these documents (the training splits) and write the "
          "checkpoint with them to this directory (docs/design.md, section 2, Selection)");
ABSL_FLAG(int, rerank_top_k, 8, "--fit_rerank: candidates are subsets of this many best units");
ABSL_FLAG(int, rerank_max_units, 6, "--fit_rerank: at most this many of them");
ABSL_FLAG(std::string, rerank_dump, "",
          "write each document's reranking candidates (standardised features, ROUGE-1 and "
          "ROUGE-2 F1) here as JSON lines (with --rerank_top_k, --rerank_max_units)");
ABSL_FLAG(bool, rerank_dump_states, false,
          "--rerank_dump: also write each candidate's units and the network's unit states (the "
          "head's input) of every unit in a candidate, with the mean state of the document's "
          "content units (a study of summary-level features in the network's space)");
ABSL_FLAG(std::string, rerank_features, "",
          "--fit_rerank: fit only these features (comma-separated names, "
          "model/model_config.h kRerankFeatureNames); the others get weight 0. Empty: all");
ABSL_FLAG(double, rerank_l2, 0.001, "--fit_rerank: the fit's L2 penalty on the weights");
ABSL_FLAG(std::string, rerank_version, "", "--fit_rerank: the written config's version");

namespace rpsum::model {
namespace {

using Clock = std::chrono::steady_clock;

std::string Bucket(int64_t words) {
  if (words < 1000) return "<1k words";
  if (words < 2000) return "1k-2k";
  if (words < 4000) return "2k-4k";
  return ">=4k";
}

nlohmann::json ToJson(const RougeMean& m) {
  return {{"rouge1", m.r1}, {"rouge2", m.r2}, {"rougeL", m.rl}, {"rougeLsum", m.rlsum}, {"n", m.n}};
}

struct ModelRun {
  std::vector<std::vector<float>> scores;
  std::vector<DocumentScores> states;  // unit_states per document, when asked for
  // Document i's unit states (empty when not asked for).
  UnitStates States(size_t i) const {
    if (i >= states.size() || states[i].state_size <= 0) return {};
    return {states[i].unit_states.data(), states[i].state_size};
  }
  double seconds = 0;
  int64_t tokens = 0;
};

// The k of RunModel that runs the config's clip policy.
constexpr int64_t kPolicy = -1;

// Scores every document alone with token-level clip distance `k_fixed`: kPolicy runs the
// config's policy, 0 no relative positions, k > 0 a fixed k (clamped to the tables). Keeps the
// unit states with `with_states` or when the checkpoint's reranking reads them.
ModelRun RunModel(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad, int64_t k_fixed,
                  bool with_states = false) {
  ModelRun r;
  with_states = with_states || NeedsUnitStates(ck.config.scoring.rerank);
  for (const EvalDoc& d : docs) {
    const int64_t k = k_fixed == 0 ? 0
                                   : ClipDistanceFor(ck.config, d.prepared.num_tokens(),
                                                     k_fixed == kPolicy ? 0 : k_fixed);
    const auto t0 = Clock::now();
    auto s = ScoreDocuments(ck, {&d.prepared}, k, pad, with_states);
    r.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
    r.tokens += d.prepared.num_tokens();
    r.scores.push_back(s.ok() ? (*s)[0].scores : std::vector<float>(d.texts.size(), 0.f));
    if (with_states) r.states.push_back(s.ok() ? (*s)[0] : DocumentScores{});
    if (!s.ok()) {
      std::fprintf(stderr, "%s: %s\n", d.record->id.c_str(), s.status().ToString().c_str());
    }
  }
  return r;
}

// ROUGE means per system: overall, by length bucket, by source.
struct Tables {
  std::map<std::string, RougeMean> overall;
  std::map<std::string, std::map<std::string, RougeMean>> by_bucket, by_source;
};

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

// With `dump` open, writes each document's JSON line: title, reference, the kept units, the
// model's served score per unit, the oracle's units, and per system the summary and its ROUGE
// F1 x 100, for reading what the model gets wrong.
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
  for (size_t i = 0; i < docs.size(); ++i) {
    m.Add(ScoreSummary(docs[i], SummaryFromScores(docs[i], r.scores[i], rerank, r.States(i))));
  }
  m = m.Mean();
  std::printf("| %s | %.2f | %.2f | %.2f | %.1f | %.0f |\n", name.c_str(), m.r1, m.r2, m.rlsum,
              r.seconds, static_cast<double>(r.tokens) / r.seconds);
  (*out)[study][name] = ToJson(m);
  (*out)[study][name]["model_seconds"] = r.seconds;
}

// The same model at each fixed k of --k_study, against its own policy (`run`).
void PrintKStudy(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                 const ModelRun& run, nlohmann::json* out) {
  std::printf(
      "\n### Clip distance k (same model; ROUGE and model time)\n\n| k | ROUGE-1 | ROUGE-2 | "
      "ROUGE-Lsum | model s | tokens/s |\n| --- | --- | --- | --- | --- | --- |\n");
  std::vector<int64_t> ks = {kPolicy};
  for (absl::string_view k : absl::StrSplit(absl::GetFlag(FLAGS_k_study), ',')) {
    ks.push_back(std::stoll(std::string(k)));
  }
  for (int64_t k : ks) {
    const ModelRun r = k == kPolicy ? run : RunModel(ck, docs, pad, k);
    const std::string name = k == kPolicy ? "policy: " + ck.config.clip_policy.Describe()
                             : k == 0     ? "0 (no relative positions)"
                                          : std::to_string(k);
    PrintStudyRow("k_study", name, docs, r, ck.config.scoring.rerank, out);
  }
}

// The same model with each unit-level clip distance of --sentence_k_study (token k by policy).
void PrintSentenceKStudy(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                         nlohmann::json* out) {
  std::printf(
      "\n### Unit-level clip distance (same model, token k by policy; ROUGE and model time)\n\n"
      "| unit k | ROUGE-1 | ROUGE-2 | ROUGE-Lsum | model s | tokens/s |\n"
      "| --- | --- | --- | --- | --- | --- |\n");
  for (absl::string_view text : absl::StrSplit(absl::GetFlag(FLAGS_sentence_k_study), ',')) {
    const int64_t k = std::stoll(std::string(text));
    Checkpoint variant = ck;  // shares the module; only the config's unit k differs
    variant.config.architecture.sentence_clip_distance =
        std::clamp<int64_t>(k, 0, ck.config.architecture.sentence_clip_distance);
    const int64_t used = variant.config.architecture.sentence_clip_distance;
    const std::string name = used == ck.config.architecture.sentence_clip_distance
                                 ? std::to_string(used) + " (the model's)"
                             : used == 0 ? "0 (no unit positions)"
                                         : std::to_string(used);
    PrintStudyRow("sentence_k_study", name, docs, RunModel(variant, docs, pad, kPolicy),
                  ck.config.scoring.rerank, out);
  }
}

// The model's scores fused with a centrality (--fusion_with) at each weight of --fusion_study.
void PrintFusionStudy(const std::vector<EvalDoc>& docs, const ModelRun& run, nlohmann::json* out) {
  const std::string with = absl::GetFlag(FLAGS_fusion_with);
  std::printf(
      "\n### Model %s + w x %s z-scores\n\n| w | ROUGE-1 | ROUGE-2 | "
      "ROUGE-Lsum |\n| --- | --- | --- | --- |\n",
      absl::GetFlag(FLAGS_fusion_logit) ? "logits" : "z-scores",
      with == "textrank" ? "TextRank centrality" : ("feature column " + with).c_str());
  std::vector<std::vector<float>> zm, zt;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (absl::GetFlag(FLAGS_fusion_logit)) {
      std::vector<float> logit(run.scores[i].size());
      for (size_t u = 0; u < logit.size(); ++u) {
        const float p = std::clamp(run.scores[i][u], 1e-6f, 1 - 1e-6f);
        logit[u] = std::log(p / (1 - p));
      }
      zm.push_back(logit);
    } else {
      zm.push_back(ZScores(run.scores[i]));
    }
    if (with == "textrank") {
      zt.push_back(ZScores(TextRankBaseline(docs[i])));
    } else {
      const size_t col = std::stoul(with), n = docs[i].texts.size();
      std::vector<float> c(n);
      for (size_t u = 0; u < n; ++u) c[u] = docs[i].prepared.features[u * kNumFeatures + col];
      zt.push_back(ZScores(c));
    }
  }
  for (absl::string_view w_text : absl::StrSplit(absl::GetFlag(FLAGS_fusion_study), ',')) {
    const float w = std::stof(std::string(w_text));
    RougeMean m;
    for (size_t i = 0; i < docs.size(); ++i) {
      std::vector<float> f(zm[i].size());
      for (size_t u = 0; u < f.size(); ++u) f[u] = zm[i][u] + w * zt[i][u];
      // The served selection reads negative scores as "never"; shift to >= 0.
      const float low = f.empty() ? 0.f : *std::min_element(f.begin(), f.end());
      for (float& x : f) x -= low;
      m.Add(ScoreSummary(docs[i], SummaryFromScores(docs[i], f, {})));
    }
    m = m.Mean();
    std::printf("| %s | %.2f | %.2f | %.2f |\n", std::string(w_text).c_str(), m.r1, m.r2, m.rlsum);
    (*out)["fusion_study"][std::string(w_text)] = ToJson(m);
  }
}

// Variants of the selection policy on the model's served scores (study only; the served policy
// is model::SelectSummary).
void PrintSelectionStudy(const std::vector<EvalDoc>& docs, const ModelRun& run,
                         nlohmann::json* out) {
  std::printf(
      "\n### Selection variants (served scores)\n\n| variant | ROUGE-1 | ROUGE-2 | ROUGE-Lsum | "
      "words / budget | fragments (summaries with one) |\n| --- | --- | --- | --- | --- | --- |\n");
  struct Variant {
    std::string name;
    double len_power = 0;     // rank by score / words^len_power
    int min_words = 0;        // skip units shorter than this (unless nothing else)
    bool cut = false;         // take the next unit even if it overflows, cut to the budget
    bool stop = false;        // stop at the first unit that does not fit
    bool no_trigram = false;  // no trigram blocking
    double mmr = 0;           // rank by score - mmr * (largest overlap with a chosen unit)
    bool fragments = false;   // choose fragments too (the served policy before IsFragment)
  };
  std::vector<Variant> variants = {
      {"served"},
      {"cut last unit to the budget", 0, 0, true},
      {"stop at first misfit", 0, 0, false, true},
      {"score / words^0.1", 0.1},
      {"score / words^0.2", 0.2},
      {"score / words^0.15", 0.15},
      {"score / words^0.25", 0.25},
      {"score / words^0.3", 0.3},
      {"score / words^0.4", 0.4},
      {"score * words^0.1", -0.1},
      {"skip units < 4 words", 0, 4},
      {"skip units < 6 words", 0, 6},
      {"skip units < 8 words", 0, 8},
      {"no trigram blocking", 0, 0, false, false, true},
      {"MMR 0.05", 0, 0, false, false, false, 0.05},
      {"MMR 0.1", 0, 0, false, false, false, 0.1},
      {"MMR 0.2", 0, 0, false, false, false, 0.2},
      {"MMR 0.3", 0, 0, false, false, false, 0.3},
      {"MMR 0.2, no trigram blocking", 0, 0, false, false, true, 0.2},
      {"fragments allowed (served before model::IsFragment)", 0, 0, false, false, false, 0, true}};
  for (const Variant& v : variants) {
    RougeMean m;
    double fill = 0;
    int64_t fragments = 0, with_fragment = 0;
    for (size_t i = 0; i < docs.size(); ++i) {
      const EvalDoc& d = docs[i];
      std::vector<float> s = run.scores[i];
      for (size_t u = 0; u < s.size(); ++u) {
        if (v.len_power != 0) s[u] /= std::pow(std::max(1, d.words[u]), v.len_power);
        if (v.min_words > 0 && d.words[u] < v.min_words) s[u] *= 1e-3f;
      }
      std::string summary;
      if (v.cut || v.stop || v.no_trigram || v.mmr > 0 || v.fragments) {
        // Greedy: the best remaining unit by score - mmr * overlap, where overlap is the largest
        // share of its distinct words found in one chosen unit; with mmr = 0 this is score order.
        // Headings and fragments (model::IsFragment) are skipped, as the served policy does.
        const size_t n = s.size();
        std::vector<std::vector<std::string>> w(n);
        std::vector<std::set<std::string>> bag(n);
        for (size_t u = 0; u < n; ++u) {
          w[u] = AsciiWords(d.texts[u]);
          bag[u] = std::set<std::string>(w[u].begin(), w[u].end());
        }
        std::vector<double> overlap(n, 0);
        std::vector<bool> done(n, false);
        std::vector<int32_t> chosen;
        std::set<std::string> seen;
        int64_t used = 0;
        while (used < d.reference_words) {
          int32_t u = -1;
          for (size_t c = 0; c < n; ++c) {
            if (done[c] || d.prepared.units[d.prepared.kept[c]].kind == UnitKind::kHeading ||
                (!v.fragments && IsFragment(d.texts[c], d.words[c]))) {
              continue;
            }
            if (u < 0 || s[c] - (v.mmr * overlap[c]) > s[u] - (v.mmr * overlap[u])) {
              u = static_cast<int32_t>(c);
            }
          }
          if (u < 0) break;
          done[u] = true;
          std::vector<std::string> tri;
          bool blocked = false;
          for (size_t t = 0; !v.no_trigram && t + 3 <= w[u].size(); ++t) {
            tri.push_back(w[u][t] + " " + w[u][t + 1] + " " + w[u][t + 2]);
            blocked |= seen.count(tri.back()) > 0;
          }
          if (blocked) continue;
          const bool misfit = !chosen.empty() && used + d.words[u] > d.reference_words;
          if (v.stop && misfit) break;
          if (!v.cut && misfit) continue;  // the served policy scans on for units that fit
          chosen.push_back(u);
          used += d.words[u];
          seen.insert(tri.begin(), tri.end());
          for (size_t c = 0; c < n; ++c) {
            if (done[c] || bag[c].empty()) continue;
            size_t shared = 0;
            for (const auto& word : bag[c]) shared += bag[u].count(word);
            overlap[c] = std::max(overlap[c],
                                  static_cast<double>(shared) / static_cast<double>(bag[c].size()));
          }
        }
        std::sort(chosen.begin(), chosen.end());
        // Served summaries are whole units (SummaryFromScores); the cut and stop variants are cut.
        summary = JoinAndCut(d.texts, chosen, v.cut || v.stop ? d.reference_words : 0);
      } else {
        summary = SummaryFromScores(d, s, {});
      }
      fill += static_cast<double>(CountWords(summary)) /
              static_cast<double>(std::max<int64_t>(1, d.reference_words));
      int64_t here = 0;
      for (absl::string_view piece : absl::StrSplit(summary, '\n')) {
        const std::string_view line(piece.data(), piece.size());
        here += IsFragment(line, CountWords(line)) ? 1 : 0;
      }
      fragments += here;
      with_fragment += here > 0 ? 1 : 0;
      m.Add(ScoreSummary(d, summary));
    }
    m = m.Mean();
    fill /= static_cast<double>(std::max<size_t>(1, docs.size()));
    std::printf("| %s | %.2f | %.2f | %.2f | %.3f | %lld (%lld) |\n", v.name.c_str(), m.r1, m.r2,
                m.rlsum, fill, static_cast<long long>(fragments),
                static_cast<long long>(with_fragment));
    (*out)["selection_study"][v.name] = ToJson(m);
    (*out)["selection_study"][v.name]["fill"] = fill;
    (*out)["selection_study"][v.name]["fragments"] = fragments;
    (*out)["selection_study"][v.name]["summaries_with_fragments"] = with_fragment;
  }
}

// The mean of this model's and --ensemble_with's served scores, against each alone.
void PrintEnsembleStudy(const Checkpoint& ck, const std::vector<EvalDoc>& docs, int pad,
                        const ModelRun& run, nlohmann::json* out) {
  const std::string dir = absl::GetFlag(FLAGS_ensemble_with);
  std::printf("\n### Ensemble with %s (mean of served scores)\n\n", dir.c_str());
  auto other = LoadCheckpoint(dir, "cpu");
  if (!other.ok()) {
    std::printf("cannot load %s: %s\n", dir.c_str(), other.status().ToString().c_str());
    return;
  }
  const auto bytes = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string mine = absl::GetFlag(FLAGS_model) + "/" + ck.config.tokenizer.file;
  if (bytes(mine) != bytes(dir + "/" + other->config.tokenizer.file) ||
      other->config.tokenizer.max_tokens_per_sentence !=
          ck.config.tokenizer.max_tokens_per_sentence) {
    std::printf("%s has another tokenizer: its units would not line up; not scored\n", dir.c_str());
    return;
  }
  std::printf(
      "| system | ROUGE-1 | ROUGE-2 | ROUGE-Lsum | model s | tokens/s |\n| --- | --- | --- | --- "
      "| --- | --- |\n");
  const ModelRun second = RunModel(*other, docs, pad, kPolicy);
  ModelRun both = run;
  both.seconds += second.seconds;
  for (size_t i = 0; i < docs.size(); ++i) {
    for (size_t u = 0; u < both.scores[i].size(); ++u) {
      both.scores[i][u] = 0.5f * (run.scores[i][u] + second.scores[i][u]);
    }
  }
  PrintStudyRow("ensemble_study", "this model", docs, run, ck.config.scoring.rerank, out);
  PrintStudyRow("ensemble_study", dir, docs, second, ck.config.scoring.rerank, out);
  PrintStudyRow("ensemble_study", "mean of the two", docs, both, ck.config.scoring.rerank, out);
}

// Each document's reranking candidates: standardised features, and ROUGE-1 and ROUGE-2 F1 of
// their served summaries against the reference. Documents without candidates are left out.
void RerankData(const std::vector<EvalDoc>& docs, const ModelRun& run, const RerankConfig& rerank,
                std::vector<std::vector<std::array<double, kNumRerankFeatures>>>* z,
                std::vector<std::vector<std::array<double, 2>>>* reward) {
  for (size_t i = 0; i < docs.size(); ++i) {
    const EvalDoc& d = docs[i];
    const auto candidates = SummaryCandidates(d.prepared, d.texts, run.scores[i],
                                              ServedOptions(d, rerank), run.States(i));
    if (candidates.empty()) continue;
    z->push_back(StandardisedFeatures(candidates));
    reward->emplace_back();
    for (const Candidate& c : candidates) {
      const RougeScores r = ScoreSummary(d, JoinAndCut(d.texts, c.units, 0));
      reward->back().push_back({r.rouge1.f, r.rouge2.f});
    }
  }
}

// --rerank_dump: one JSON line per document with candidates: "z" (standardised features),
// "reward" (ROUGE-1, ROUGE-2 F1); with unit states (run.states), also "units" (each
// candidate's kept-unit indices), "states" (kept index -> state, for every unit in a
// candidate) and "document" (model::DocumentState, what the net_* features compare with).
void WriteRerankDump(const std::vector<EvalDoc>& docs, const ModelRun& run,
                     const RerankConfig& rerank, std::ofstream& f) {
  for (size_t i = 0; i < docs.size(); ++i) {
    const EvalDoc& d = docs[i];
    const auto candidates = SummaryCandidates(d.prepared, d.texts, run.scores[i],
                                              ServedOptions(d, rerank), run.States(i));
    if (candidates.empty()) continue;
    nlohmann::json line = {{"z", StandardisedFeatures(candidates)}};
    nlohmann::json& reward = line["reward"] = nlohmann::json::array();
    for (const Candidate& c : candidates) {
      const RougeScores r = ScoreSummary(d, JoinAndCut(d.texts, c.units, 0));
      reward.push_back({r.rouge1.f, r.rouge2.f});
    }
    if (!run.states.empty() && run.states[i].state_size > 0) {
      const DocumentScores& s = run.states[i];
      const auto width = static_cast<size_t>(s.state_size);
      auto state = [&](size_t u) {
        std::vector<float> v(s.unit_states.begin() + static_cast<std::ptrdiff_t>(u * width),
                             s.unit_states.begin() + static_cast<std::ptrdiff_t>((u + 1) * width));
        for (float& x : v) x = std::round(x * 1e4f) / 1e4f;  // a smaller file
        return v;
      };
      line["document"] = DocumentState(d.prepared, d.texts, run.States(i));
      line["units"] = nlohmann::json::array();
      std::map<std::string, std::vector<float>> states;
      for (const Candidate& c : candidates) {
        line["units"].push_back(c.units);
        for (int32_t u : c.units) states.emplace(std::to_string(u), state(static_cast<size_t>(u)));
      }
      line["states"] = states;
      line["words"] = d.words;
    }
    f << line.dump() << "\n";
  }
}

// Fits scoring.rerank's weights (docs/design.md, section 2, "Selection"). For each document,
// its candidates (SummaryCandidates under the served options), their standardised features,
// and the reward of each: ROUGE-1 + ROUGE-2 F1 of its served summary against the reference.
// Maximises the mean over documents of the expected reward under softmax(w . z / 0.1), less
// l2 |w|^2 (w zero outside `mask`), by 300 full-batch Adam steps (lr 0.05) from mean_score = 1 and
// the rest 0, in double precision: deterministic. Returns the weights; prints them and the greedy
// and reranked training scores.
std::vector<double> FitRerank(const std::vector<EvalDoc>& docs, const ModelRun& run,
                              const RerankConfig& rerank, const std::vector<double>& mask,
                              nlohmann::json* out) {
  constexpr int kF = kNumRerankFeatures;
  std::vector<std::vector<std::array<double, kF>>> z;
  std::vector<std::vector<std::array<double, 2>>> reward;
  size_t widest = 1, total = 0;
  RerankData(docs, run, rerank, &z, &reward);
  for (const auto& c : z) {
    widest = std::max(widest, c.size());
    total += c.size();
  }
  const auto n = static_cast<int64_t>(z.size());
  const auto w_max = static_cast<int64_t>(widest);
  const auto f64 = at::TensorOptions().dtype(at::kDouble);
  at::Tensor x = at::zeros({n, w_max, kF}, f64);
  at::Tensor y = at::zeros({n, w_max, 2}, f64);
  at::Tensor valid = at::zeros({n, w_max}, at::TensorOptions().dtype(at::kBool));
  {
    auto xa = x.accessor<double, 3>();
    auto ya = y.accessor<double, 3>();
    auto va = valid.accessor<bool, 2>();
    for (int64_t i = 0; i < n; ++i) {
      for (size_t k = 0; k < z[i].size(); ++k) {
        for (int f = 0; f < kF; ++f) xa[i][static_cast<int64_t>(k)][f] = z[i][k][f];
        ya[i][static_cast<int64_t>(k)][0] = reward[i][k][0];
        ya[i][static_cast<int64_t>(k)][1] = reward[i][k][1];
        va[i][static_cast<int64_t>(k)] = true;
      }
    }
  }
  const at::Tensor gain = y.sum(-1);
  const at::Tensor keep = at::tensor(mask, f64);
  at::Tensor w = at::zeros({kF}, f64);
  w[0] = 1.0;  // mean_score: start from the model's own ranking
  w.set_requires_grad(true);
  // Adam, written out (the same update as torch.optim.Adam, no weight decay).
  at::Tensor m1 = at::zeros({kF}, f64), m2 = at::zeros({kF}, f64);
  const double lr = 0.05, b1 = 0.9, b2 = 0.999, eps = 1e-8;
  const double l2 = absl::GetFlag(FLAGS_rerank_l2);
  for (int step = 1; step <= 300; ++step) {
    const at::Tensor used = w * keep;
    const at::Tensor logits = at::matmul(x, used).div(0.1).masked_fill(valid.logical_not(), -1e9);
    const at::Tensor loss =
        -(at::softmax(logits, 1) * gain).sum(1).mean() + l2 * (used * used).sum();
    loss.backward();
    {
      at::NoGradGuard no_grad;
      const at::Tensor g = w.grad();
      m1.mul_(b1).add_(g, 1 - b1);
      m2.mul_(b2).addcmul_(g, g, 1 - b2);
      const double c1 = 1 - std::pow(b1, step), c2 = 1 - std::pow(b2, step);
      w.sub_(lr * (m1 / c1) / ((m2 / c2).sqrt() + eps));
      w.grad().zero_();
    }
  }
  const at::Tensor wd = (w.detach() * keep).contiguous();
  std::vector<double> weights(wd.data_ptr<double>(), wd.data_ptr<double>() + kF);
  // The training documents' scores: candidate 0 (greedy) against the reranked choice.
  double g1 = 0, g2 = 0, r1 = 0, r2 = 0;
  for (int64_t i = 0; i < n; ++i) {
    size_t best = 0;
    double best_s = 0;
    for (size_t k = 0; k < z[i].size(); ++k) {
      double s = 0;
      for (int f = 0; f < kF; ++f) s += weights[f] * z[i][k][f];
      if (k == 0 || s > best_s) {
        best = k;
        best_s = s;
      }
    }
    g1 += reward[i][0][0];
    g2 += reward[i][0][1];
    r1 += reward[i][best][0];
    r2 += reward[i][best][1];
  }
  const double dn = static_cast<double>(std::max<int64_t>(n, 1));
  std::printf("\n## Summary-level reranking fitted on %lld documents (%zu candidates)\n\n",
              static_cast<long long>(n), total);
  std::printf("| selection | ROUGE-1 | ROUGE-2 |\n| --- | --- | --- |\n");
  std::printf("| greedy | %.2f | %.2f |\n| reranked | %.2f | %.2f |\n\n", 100 * g1 / dn,
              100 * g2 / dn, 100 * r1 / dn, 100 * r2 / dn);
  std::printf("| feature | weight |\n| --- | --- |\n");
  for (int f = 0; f < kF; ++f) {
    std::printf("| %s | %.4f |\n", kRerankFeatureNames[f], weights[f]);
    (*out)["rerank_fit"]["weights"][kRerankFeatureNames[f]] = weights[f];
  }
  (*out)["rerank_fit"]["documents"] = n;
  (*out)["rerank_fit"]["candidates"] = total;
  (*out)["rerank_fit"]["greedy"] = {{"rouge1", 100 * g1 / dn}, {"rouge2", 100 * g2 / dn}};
  (*out)["rerank_fit"]["reranked"] = {{"rouge1", 100 * r1 / dn}, {"rouge2", 100 * r2 / dn}};
  return weights;
}

// Writes `ck`'s directory again under `dir` with `config` (weights and tokenizer copied).
absl::Status WriteCheckpointCopy(const std::string& from, const ModelConfig& config,
                                 const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return absl::InternalError("cannot create " + dir + ": " + ec.message());
  for (const std::string& file : {config.weights_file, config.tokenizer.file}) {
    fs::copy_file(fs::path(from) / file, fs::path(dir) / file, fs::copy_options::overwrite_existing,
                  ec);
    if (ec) return absl::InternalError("cannot copy " + file + " to " + dir + ": " + ec.message());
  }
  std::ofstream(fs::path(dir) / "config.json", std::ios::trunc) << config.ToJson();
  return absl::OkStatus();
}

// The candidates of --fit_rerank and --rerank_dump (weights to be fitted).
RerankConfig CandidateOptions() {
  RerankConfig r;
  r.top_k = absl::GetFlag(FLAGS_rerank_top_k);
  r.max_units = absl::GetFlag(FLAGS_rerank_max_units);
  return r;
}

int Fail(const std::string& what) {
  std::fprintf(stderr, "rpsum-eval: %s\n", what.c_str());
  return 1;
}

int Run() {
  at::set_num_threads(absl::GetFlag(FLAGS_threads));
  auto ck = LoadCheckpoint(absl::GetFlag(FLAGS_model), "cpu");
  if (!ck.ok()) return Fail(ck.status().ToString());
  if (absl::GetFlag(FLAGS_centrality_weight) >= 0) {
    ck->config.scoring.centrality_weight = absl::GetFlag(FLAGS_centrality_weight);
  }
  std::string error;
  auto tok = Tokenizer::Load(absl::GetFlag(FLAGS_model) + "/" + ck->config.tokenizer.file, &error);
  if (!tok) return Fail(error);
  if (absl::GetFlag(FLAGS_no_rerank)) ck->config.scoring.rerank = RerankConfig{};
  const bool from_file = !absl::GetFlag(FLAGS_file).empty();
  const std::string path =
      from_file ? absl::GetFlag(FLAGS_file)
      : absl::StrContains(absl::GetFlag(FLAGS_data_dir), ',')
          ? absl::StrCat(absl::GetFlag(FLAGS_data_dir), " (", absl::GetFlag(FLAGS_split), ")")
          : absl::GetFlag(FLAGS_data_dir) + "/" + absl::GetFlag(FLAGS_split) + ".jsonl.gz";
  auto records = from_file
                     ? ReadCorpus(path, absl::GetFlag(FLAGS_limit))
                     : ReadCorpusSplit(absl::GetFlag(FLAGS_data_dir), absl::GetFlag(FLAGS_split),
                                       absl::GetFlag(FLAGS_limit));
  if (!records.ok()) return Fail(records.status().ToString());
  PrepareOptions prep;
  prep.max_input_tokens = absl::GetFlag(FLAGS_max_input_tokens);
  prep.max_sentences = 1 << 20;
  prep.max_document_bytes = 64U << 20;
  prep.max_tokens_per_sentence = ck->config.tokenizer.max_tokens_per_sentence;
  prep.truncation = TruncationPolicy::kHead;
  // The served columns (as the server prepares); fitting or dumping the reranking's features
  // reads every column.
  if (absl::GetFlag(FLAGS_fit_rerank).empty() && absl::GetFlag(FLAGS_rerank_dump).empty()) {
    prep.columns = FeatureColumnsRead(ck->config);
  }
  int skipped = 0;
  std::vector<EvalDoc> docs = PrepareCorpus(*records, *tok, prep, true, &skipped);
  if (const double b = absl::GetFlag(FLAGS_budget_feature_words); b > 0) {
    for (EvalDoc& d : docs) SetBudgetFeatures(&d.prepared, b);
  }
  const int pad = tok->pad_id();

  const ModelRun run = RunModel(
      *ck, docs, pad, kPolicy,
      (!absl::GetFlag(FLAGS_rerank_dump).empty() && absl::GetFlag(FLAGS_rerank_dump_states)) ||
          !absl::GetFlag(FLAGS_fit_rerank).empty());
  std::ofstream dump;
  if (!absl::GetFlag(FLAGS_dump).empty()) {
    dump.open(absl::GetFlag(FLAGS_dump));
    if (!dump) return Fail("cannot write --dump " + absl::GetFlag(FLAGS_dump));
  }
  Tables tables =
      ScoreSystems(docs, run, ck->config.scoring.rerank, dump.is_open() ? &dump : nullptr);
  nlohmann::json out = {{"model", absl::GetFlag(FLAGS_model)},
                        {"data", path},
                        {"documents", docs.size()},
                        {"skipped", skipped},
                        {"model_seconds", run.seconds},
                        {"model_tokens", run.tokens}};
  std::printf("## %s: %zu documents (%d skipped)\n\n", path.c_str(), docs.size(), skipped);
  PrintOverall(tables, run, docs.size(), &out);
  PrintByLength(tables, &out);
  PrintBySource(tables, &out);
  if (!absl::GetFlag(FLAGS_k_study).empty()) PrintKStudy(*ck, docs, pad, run, &out);
  if (!absl::GetFlag(FLAGS_sentence_k_study).empty()) PrintSentenceKStudy(*ck, docs, pad, &out);
  if (!absl::GetFlag(FLAGS_fusion_study).empty()) PrintFusionStudy(docs, run, &out);
  if (absl::GetFlag(FLAGS_selection_study)) PrintSelectionStudy(docs, run, &out);
  if (!absl::GetFlag(FLAGS_ensemble_with).empty()) PrintEnsembleStudy(*ck, docs, pad, run, &out);
  if (!absl::GetFlag(FLAGS_rerank_dump).empty()) {
    std::ofstream f(absl::GetFlag(FLAGS_rerank_dump));
    WriteRerankDump(docs, run, CandidateOptions(), f);
  }
  if (!absl::GetFlag(FLAGS_fit_rerank).empty()) {
    // Candidates of the greedy-scored model: the fit starts from the network's own scores.
    RerankConfig rerank = CandidateOptions();
    std::vector<double> mask(kNumRerankFeatures, 1.0);
    if (!absl::GetFlag(FLAGS_rerank_features).empty()) {
      mask.assign(kNumRerankFeatures, 0.0);
      for (absl::string_view name : absl::StrSplit(absl::GetFlag(FLAGS_rerank_features), ',')) {
        const auto* at = std::find(std::begin(kRerankFeatureNames), std::end(kRerankFeatureNames),
                                   std::string(name));
        if (at == std::end(kRerankFeatureNames)) {
          return Fail(absl::StrCat("--rerank_features: no feature '", name, "'"));
        }
        mask[at - std::begin(kRerankFeatureNames)] = 1.0;
      }
    }
    rerank.weights = FitRerank(docs, run, rerank, mask, &out);
    if (out["rerank_fit"]["documents"].get<int64_t>() == 0) {
      return Fail("--fit_rerank: no document has reranking candidates (an empty corpus?)");
    }
    ModelConfig config = ck->config;
    config.scoring.rerank = rerank;
    if (!absl::GetFlag(FLAGS_rerank_version).empty()) {
      config.version = absl::GetFlag(FLAGS_rerank_version);
    }
    nlohmann::json training = nlohmann::json::parse(config.training_json);
    training["rerank_fitted_on"] = {{"data", path}, {"documents", out["rerank_fit"]["documents"]}};
    config.training_json = training.dump();
    if (absl::Status s = config.Validate(); !s.ok()) return Fail(s.ToString());
    const absl::Status written =
        WriteCheckpointCopy(absl::GetFlag(FLAGS_model), config, absl::GetFlag(FLAGS_fit_rerank));
    if (!written.ok()) return Fail(written.ToString());
    std::printf("\nwrote %s\n", absl::GetFlag(FLAGS_fit_rerank).c_str());
  }
  if (!absl::GetFlag(FLAGS_json).empty()) std::ofstream(absl::GetFlag(FLAGS_json)) << out.dump(2);
  return 0;
}

}  // namespace
}  // namespace rpsum::model

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage("Evaluates an rpsum checkpoint and the baselines with ROUGE.");
  absl::ParseCommandLine(argc, argv);
  try {
    return rpsum::model::Run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rpsum-eval: %s\n", e.what());
    return 1;
  }
}
