#include "model/model_config.h"

#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace rpsum::model {
namespace {

TEST(ClipPolicy, PicksLargestBucketUnderClampedRatio) {
  ClipPolicy p;  // ratio 8, min 2, max 64, buckets 2..64
  EXPECT_EQ(p.Pick(1), 2);
  EXPECT_EQ(p.Pick(64), 8);
  EXPECT_EQ(p.Pick(100), 8);    // 12 -> 8
  EXPECT_EQ(p.Pick(130), 16);   // 16
  EXPECT_EQ(p.Pick(4000), 64);  // 500 -> clamp 64
}

TEST(ModelConfig, RoundTripsThroughJson) {
  ModelConfig c;
  c.name = "tiny";
  c.architecture.heads = 2;
  c.architecture.hidden_size = 32;
  c.clip_policy.ratio = 4;
  c.attention.local_window = 64;
  c.scoring.centrality_weight = 0.25;
  const auto back = ModelConfig::FromJson(c.ToJson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ToJson(), c.ToJson());
  EXPECT_EQ(back->scoring.centrality_weight, 0.25);
}

// attention.local_windows: the window by length past the threshold, written only when set,
// read back, described, and refused when out of order, at or under the threshold, or unknown.
TEST(ModelConfig, LocalWindowBands) {
  ModelConfig c;
  c.attention.local_threshold = 1024;
  c.attention.local_window = 256;
  EXPECT_EQ(c.ToJson().find("local_windows"), std::string::npos);
  EXPECT_EQ(c.attention.TokenWindow(5000), 256);
  c.attention.local_windows = {{4096, 128}, {8192, 256}};
  ASSERT_TRUE(c.Validate().ok());
  const auto back = ModelConfig::FromJson(c.ToJson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->ToJson(), c.ToJson());
  const AttentionConfig& a = back->attention;
  ASSERT_EQ(a.local_windows.size(), 2U);
  EXPECT_EQ(a.TokenWindow(1024), 0);  // full attention up to the threshold
  EXPECT_EQ(a.TokenWindow(1025), 256);
  EXPECT_EQ(a.TokenWindow(4095), 256);
  EXPECT_EQ(a.TokenWindow(4096), 128);
  EXPECT_EQ(a.TokenWindow(8191), 128);
  EXPECT_EQ(a.TokenWindow(32768), 256);
  EXPECT_EQ(a.DescribeWindows(),
            "256 tokens each side past 1024 tokens; 128 from 4096; 256 from 8192");
  for (const auto& bad : std::vector<std::vector<LocalWindowBand>>{
           {{8192, 128}, {4096, 256}}, {{1024, 128}}, {{4096, 0}}}) {
    ModelConfig d = c;
    d.attention.local_windows = bad;
    EXPECT_FALSE(d.Validate().ok());
    const absl::Status read = ModelConfig::FromJson(d.ToJson()).status();
    EXPECT_NE(read.message().find("attention.local_windows"), std::string::npos) << read;
  }
  std::string unknown = c.ToJson();
  const size_t at = unknown.find("\"from_tokens\"");
  ASSERT_NE(at, std::string::npos);
  unknown.insert(at, "\"size\":1,");
  EXPECT_FALSE(ModelConfig::FromJson(unknown).ok());
}

// The studies' keys (absolute positions, layered clipping, a fixed k) load at the value every
// shipped config holds and are refused otherwise, naming the last commit that serves them.
TEST(ModelConfig, StudyCheckpointsAreRefusedNamingTheCommit) {
  auto config = nlohmann::json::parse(ModelConfig().ToJson());
  config["architecture"]["head_clip_multipliers"] = nlohmann::json::array();
  config["architecture"]["positions"] = "relative";
  config["clip_policy"]["fixed"] = 0;
  ASSERT_TRUE(ModelConfig::FromJson(config.dump()).ok());
  for (const auto& [section, key, value] :
       std::vector<std::tuple<std::string, std::string, nlohmann::json>>{
           {"architecture", "positions", "sinusoidal"},
           {"architecture", "positions", "learned"},
           {"architecture", "head_clip_multipliers", {1, 4, 1, 1}},
           {"clip_policy", "fixed", 16}}) {
    auto study = config;
    study[section][key] = value;
    const absl::Status s = ModelConfig::FromJson(study.dump()).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << key;
    EXPECT_NE(s.message().find(key), std::string::npos) << s;
    EXPECT_NE(s.message().find(kStudiesRemovedAfter), std::string::npos) << s;
  }
  // The budget columns (10 and 11), read by the first columns or by name.
  for (const auto& [n, columns] : std::vector<std::pair<int, nlohmann::json>>{
           {kNumFeatures + 2, nullptr},
           {kNumFeatures + 1, nullptr},
           {8, {0, 1, 2, 3, 4, 5, kNumFeatures, kNumFeatures + 1}},
           {7, {0, 1, 2, 3, 4, 5, kNumFeatures + 1}}}) {
    auto study = config;
    study["architecture"]["num_features"] = n;
    if (!columns.is_null()) study["architecture"]["feature_columns"] = columns;
    const absl::Status s = ModelConfig::FromJson(study.dump()).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << n;
    EXPECT_NE(s.message().find(kBudgetColumnsRemovedAfter), std::string::npos) << s;
  }
}

// scoring.rerank (summary-level reranking) is written only when on, by feature name.
TEST(ModelConfig, RerankRoundTripsByFeatureName) {
  ModelConfig c;
  EXPECT_EQ(c.ToJson().find("rerank"), std::string::npos);
  c.scoring.rerank.top_k = 8;
  c.scoring.rerank.max_units = 6;
  for (int f = 0; f < kNumRerankFeatures; ++f) c.scoring.rerank.weights.push_back(0.5 * f - 1);
  const std::string text = c.ToJson();
  EXPECT_NE(text.find("\"document_cosine\": 1.5"), std::string::npos) << text;
  const auto back = ModelConfig::FromJson(text);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->scoring.rerank.top_k, 8);
  EXPECT_EQ(back->scoring.rerank.max_units, 6);
  EXPECT_EQ(back->scoring.rerank.weights, c.scoring.rerank.weights);
  EXPECT_EQ(back->ToJson(), text);
  auto status = [](const std::string& rerank) {
    return ModelConfig::FromJson(
               R"({"format":"rpsum-checkpoint","format_version":1,"scoring":{"rerank":)" + rerank +
               "}}")
        .status();
  };
  EXPECT_NE(status(R"({"top_k":8})").message().find("one per feature"), std::string::npos);
  EXPECT_NE(status(R"({"top_k":13})").message().find("scoring.rerank.top_k"), std::string::npos);
  EXPECT_NE(status(R"({"beam":2})").message().find("scoring.rerank.beam"), std::string::npos);
  EXPECT_NE(status(R"({"top_k":8,"weights":{"mean_score":1}})").message().find("max_score"),
            std::string::npos);
  EXPECT_NE(status(R"({"top_k":8,"weights":{"novelty":1}})").message().find("novelty"),
            std::string::npos);
  // A config written before the net_* features (models/experiments/rerank/*-config.json) loads
  // with those weights 0, so it selects as it did and reads no unit states.
  nlohmann::json older = nlohmann::json::parse(text);
  for (int f = kFirstNetRerankFeature; f < kNumRerankFeatures; ++f) {
    older["scoring"]["rerank"]["weights"].erase(kRerankFeatureNames[f]);
  }
  const auto old_back = ModelConfig::FromJson(older.dump());
  ASSERT_TRUE(old_back.ok()) << old_back.status();
  ASSERT_EQ(old_back->scoring.rerank.weights.size(), static_cast<size_t>(kNumRerankFeatures));
  for (int f = 0; f < kNumRerankFeatures; ++f) {
    EXPECT_EQ(old_back->scoring.rerank.weights[f],
              f < kFirstNetRerankFeature ? c.scoring.rerank.weights[f] : 0.0);
  }
  EXPECT_FALSE(NeedsUnitStates(old_back->scoring.rerank));
  EXPECT_TRUE(NeedsUnitStates(back->scoring.rerank));
}

TEST(ModelConfig, RejectsWhatItDoesNotUnderstand) {
  const std::string good = ModelConfig().ToJson();
  EXPECT_TRUE(ModelConfig::FromJson(good).ok());
  auto code = [](const std::string& text) { return ModelConfig::FromJson(text).status(); };
  EXPECT_EQ(code("{not json").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(code("{}").code(), absl::StatusCode::kInvalidArgument);  // no format
  const auto v3 = code(R"({"format":"rpsum-checkpoint","format_version":3})");
  EXPECT_NE(v3.message().find("format_version 3"), std::string::npos) << v3;
  // Format 2 names the unit-level settings unit_*; a sentence_* key is format 1's.
  const auto old_key = code(
      R"({"format":"rpsum-checkpoint","format_version":2,"architecture":{"sentence_layers":1}})");
  EXPECT_NE(old_key.message().find("architecture.sentence_layers"), std::string::npos) << old_key;
  const auto unknown =
      code(R"({"format":"rpsum-checkpoint","format_version":1,"architecture":{"rope":1}})");
  EXPECT_NE(unknown.message().find("architecture.rope"), std::string::npos) << unknown;
  const auto range = code(
      R"({"format":"rpsum-checkpoint","format_version":1,"architecture":{"heads":3,"hidden_size":32}})");
  EXPECT_EQ(range.code(), absl::StatusCode::kInvalidArgument);
  const auto type =
      code(R"({"format":"rpsum-checkpoint","format_version":1,"architecture":{"heads":"x"}})");
  EXPECT_EQ(type.code(), absl::StatusCode::kInvalidArgument);
  const auto weight = code(
      R"({"format":"rpsum-checkpoint","format_version":1,"scoring":{"centrality_weight":11}})");
  EXPECT_NE(weight.message().find("scoring.centrality_weight"), std::string::npos) << weight;
  const auto scoring_key =
      code(R"({"format":"rpsum-checkpoint","format_version":1,"scoring":{"mmr":1}})");
  EXPECT_NE(scoring_key.message().find("scoring.mmr"), std::string::npos) << scoring_key;
  // More features than preparation makes (past the two removed budget columns, below).
  const auto features =
      code(absl::StrCat(R"({"format":"rpsum-checkpoint","format_version":1,)",
                        R"("architecture":{"num_features":)", kNumFeatures + 3, "}}"));
  EXPECT_NE(features.message().find("architecture.num_features"), std::string::npos) << features;
}

// Format 1 (models written before 2026-12, models/rpsum-ext-v1) named the unit-level settings
// after sentences: they are read as format 2's unit_* settings, and written back as format 2.
TEST(ModelConfig, ReadsFormat1SentenceKeysAsUnitKeys) {
  const auto old = ModelConfig::FromJson(
      R"({"format":"rpsum-checkpoint","format_version":1,)"
      R"("architecture":{"sentence_layers":3,"sentence_clip_distance":8},)"
      R"("attention":{"sentence_local_threshold":500,"sentence_local_window":50},)"
      R"("tokenizer":{"max_tokens_per_sentence":40}})");
  ASSERT_TRUE(old.ok()) << old.status();
  EXPECT_EQ(old->architecture.unit_layers, 3);
  EXPECT_EQ(old->architecture.unit_clip_distance, 8);
  EXPECT_EQ(old->attention.unit_local_threshold, 500);
  EXPECT_EQ(old->attention.unit_local_window, 50);
  EXPECT_EQ(old->tokenizer.max_tokens_per_unit, 40);
  const std::string text = old->ToJson();
  EXPECT_NE(text.find("\"format_version\": 2"), std::string::npos) << text;
  EXPECT_NE(text.find("\"unit_layers\": 3"), std::string::npos) << text;
  EXPECT_EQ(text.find("sentence"), std::string::npos) << text;
  // A format-1 config's other keys are checked as before.
  const auto unknown = ModelConfig::FromJson(
      R"({"format":"rpsum-checkpoint","format_version":1,"attention":{"sentence_window":5}})");
  EXPECT_NE(unknown.status().message().find("attention.sentence_window"), std::string::npos)
      << unknown.status();
}

// architecture.feature_columns: which feature columns the network reads, in order. Written only
// when set (the configs of models reading the first columns stay byte for byte), read back
// exactly, and refused when it disagrees with num_features, repeats a column or names one that
// preparation does not make.
TEST(ModelConfig, FeatureColumns) {
  ModelConfig c;
  EXPECT_EQ(c.ToJson().find("feature_columns"), std::string::npos);
  c.architecture.num_features = 3;
  c.architecture.feature_columns = {0, 8, kFeatureSectionStart};
  const auto back = ModelConfig::FromJson(c.ToJson());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->architecture.feature_columns, (std::vector<int64_t>{0, 8, 9}));
  const auto status_of = [](const std::string& columns, int n) {
    return ModelConfig::FromJson(absl::StrCat(R"({"format":"rpsum-checkpoint","format_version":1,)",
                                              R"("architecture":{"num_features":)", n,
                                              R"(,"feature_columns":)", columns, "}}"))
        .status();
  };
  EXPECT_TRUE(status_of("[0,1,9]", 3).ok());
  EXPECT_TRUE(status_of(absl::StrCat("[0,1,", kNumFeatures - 1, "]"), 3).ok());  // the last
  for (const auto& [columns, n, says] : std::vector<std::tuple<std::string, int, const char*>>{
           {"[0,1]", 3, "lists 2 columns; num_features is 3"},
           {"[0,1,1]", 3, "column 1 twice"},
           {absl::StrCat("[0,1,", kNumFeatures + 2, "]"), 3, "architecture.feature_columns[]"},
           {"[0,-1,2]", 3, "architecture.feature_columns[]"}}) {
    const absl::Status s = status_of(columns, n);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << columns;
    EXPECT_NE(s.message().find(says), std::string::npos) << columns << ": " << s;
  }
}

// Model v1's config.json has no "scoring" section and six features: it loads as the network's
// probability alone, reading the first six feature columns.
TEST(ModelConfig, V1ConfigLoadsUnchanged) {
  const auto v1 = ModelConfig::FromJson(
      R"({"format":"rpsum-checkpoint","format_version":1,"architecture":{"num_features":6}})");
  ASSERT_TRUE(v1.ok()) << v1.status();
  EXPECT_EQ(v1->scoring.centrality_weight, 0.0);
  EXPECT_EQ(v1->architecture.num_features, kNumFeaturesV1);
}

}  // namespace
}  // namespace rpsum::model
