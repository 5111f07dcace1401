// The shipped model's weights through ScoreDocuments (model/torch/inference.cc, what
// TorchSummarizer::Score runs), on real text: a document's scores do not depend on its batch
// partners, the clip distance k reaches the attention kernel, and the result reports the k and
// attention mode the model actually ran with. Tokens come from the test tokenizer, so the test
// runs in sanitizer builds too, where the SentencePiece plugin cannot load next to LibTorch's
// protobuf.
#include "model/torch/inference.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "model/document.h"
#include "model/internal/select.h"
#include "model/select.h"
#include "model/summarizer.h"
#include "model/torch/checkpoint.h"
#include "testing/source_dir.h"
#include "testing/word_tokenizer.h"

namespace rpsum::net {

using model::ModelConfig;
using model::Prepare;
using model::TruncationPolicy;

using model::ClipDistanceFor;
using model::DocumentInput;
using model::DocumentScores;
using model::PreparedDocument;
using model::PrepareOptions;
using model::ServedScores;
using test::TestSourceDir;

namespace {

class InferenceTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto ck = LoadCheckpoint(TestSourceDir() + "/models/rpsum-ext", "cpu");
    ASSERT_TRUE(ck.ok()) << ck.status();
    checkpoint_ = new Checkpoint(*std::move(ck));
    tokenizer_ =
        new test::WordTokenizer(static_cast<int32_t>(checkpoint_->config.architecture.vocab_size));
    std::ifstream in(TestSourceDir() + "/docs/sample.md");
    std::stringstream ss;
    ss << in.rdbuf();
    text_ = new std::string(ss.str());
  }
  static void TearDownTestSuite() {
    delete checkpoint_;
    delete tokenizer_;
    delete text_;
  }

  // A real document of about `tokens` tokens: the sample document's paragraphs, repeated with
  // a numbered heading per copy, cut to at most `tokens` by head truncation.
  static std::unique_ptr<PreparedDocument> Doc(int64_t tokens) {
    auto* copy = new std::string;
    for (int i = 0; copy->size() < static_cast<size_t>(tokens) * 8; ++i) {
      *copy += "Part " + std::to_string(i + 1) + "\n\n" + *text_ + "\n\n";
    }
    kept_texts().emplace_back(copy);
    DocumentInput input;
    input.document = *copy;
    PrepareOptions o;
    o.max_tokens_per_unit = config().tokenizer.max_tokens_per_unit;
    o.max_input_tokens = tokens;
    o.truncation = TruncationPolicy::kHead;
    auto d = Prepare(input, *tokenizer_, o);
    EXPECT_TRUE(d.ok()) << d.status();
    return std::make_unique<PreparedDocument>(*std::move(d));
  }
  static std::vector<std::unique_ptr<std::string>>& kept_texts() {
    static auto* texts = new std::vector<std::unique_ptr<std::string>>;
    return *texts;
  }

  static std::vector<DocumentScores> Score(const std::vector<const PreparedDocument*>& docs,
                                           int64_t k) {
    auto r = ScoreDocuments(*checkpoint_, docs, k, tokenizer_->pad_id());
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *std::move(r) : std::vector<DocumentScores>(docs.size());
  }

  static double MaxDiff(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    double m = 0;
    for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
      m = std::max(m, std::fabs(static_cast<double>(a[i]) - b[i]));
    }
    return m;
  }

  static const ModelConfig& config() { return checkpoint_->config; }

  static Checkpoint* checkpoint_;
  static test::WordTokenizer* tokenizer_;
  static std::string* text_;
};

Checkpoint* InferenceTest::checkpoint_ = nullptr;
test::WordTokenizer* InferenceTest::tokenizer_ = nullptr;
std::string* InferenceTest::text_ = nullptr;

// The same document alone and batched with shorter and longer partners, on both sides of the
// block-local threshold: identical scores (1e-5) and its own attention mode every time.
TEST_F(InferenceTest, ScoresDoNotDependOnTheBatch) {
  const int64_t threshold = config().attention.local_threshold;
  const auto shorter = Doc(300);
  const auto below = Doc(threshold - 124);  // full attention
  const auto above = Doc(threshold + 76);   // block-local attention
  const auto longer = Doc(3 * threshold);
  ASSERT_LE(below->num_tokens(), threshold);
  ASSERT_GT(above->num_tokens(), threshold);
  ASSERT_GT(longer->num_tokens(), above->num_tokens());
  const int64_t k = 16;
  for (const PreparedDocument* doc : {below.get(), above.get()}) {
    const bool own_local = doc->num_tokens() > threshold;
    const DocumentScores alone = Score({doc}, k)[0];
    EXPECT_EQ(alone.local_window > 0, own_local);
    EXPECT_EQ(alone.clip_distance, k);
    const std::vector<std::vector<const PreparedDocument*>> batches = {
        {doc, shorter.get()},
        {longer.get(), doc},
        {below.get(), doc},
        {doc, above.get()},
        {shorter.get(), doc, longer.get(), below.get(), above.get()}};
    for (const auto& batch : batches) {
      const std::vector<DocumentScores> got = Score(batch, k);
      ASSERT_EQ(got.size(), batch.size());
      for (size_t i = 0; i < batch.size(); ++i) {
        EXPECT_EQ(got[i].local_window, config().attention.TokenWindow(batch[i]->num_tokens()));
        if (batch[i] != doc) continue;
        EXPECT_LE(MaxDiff(got[i].scores, alone.scores), 1e-5)
            << doc->num_tokens() << " tokens in a batch of " << batch.size();
      }
    }
  }
}

// A window that depends on the length (attention.local_windows): a document in a band runs
// with the band's window alone and next to partners under another window or full attention,
// with identical scores, and the window reaches the kernel (other scores than the base window).
TEST_F(InferenceTest, WindowBandsFollowEachDocumentsLength) {
  const int64_t threshold = config().attention.local_threshold;
  Checkpoint banded = *checkpoint_;  // shares the module; only the config differs
  banded.config.attention.local_windows = {{threshold + 600, 32}};
  ASSERT_TRUE(banded.config.Validate().ok());
  const auto below = Doc(threshold - 124);  // full attention
  const auto base = Doc(threshold + 76);    // the base window
  const auto band = Doc(threshold + 900);   // the band's window
  ASSERT_GT(band->num_tokens(), threshold + 600);
  ASSERT_LT(base->num_tokens(), threshold + 600);
  const int64_t k = 16;
  const auto score = [&](const Checkpoint& ck, std::vector<const PreparedDocument*> docs) {
    auto r = ScoreDocuments(ck, docs, k, tokenizer_->pad_id());
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? *std::move(r) : std::vector<DocumentScores>(docs.size());
  };
  const DocumentScores alone = score(banded, {band.get()})[0];
  EXPECT_EQ(alone.local_window, 32);
  EXPECT_EQ(score(banded, {base.get()})[0].local_window, config().attention.local_window);
  const DocumentScores unbanded = score(*checkpoint_, {band.get()})[0];
  EXPECT_EQ(unbanded.local_window, config().attention.local_window);
  EXPECT_GT(MaxDiff(alone.scores, unbanded.scores), 1e-4);
  const std::vector<DocumentScores> got = score(banded, {base.get(), band.get(), below.get()});
  ASSERT_EQ(got.size(), 3U);
  EXPECT_EQ(got[0].local_window, config().attention.local_window);
  EXPECT_EQ(got[1].local_window, 32);
  EXPECT_EQ(got[2].local_window, 0);
  EXPECT_LE(MaxDiff(got[1].scores, alone.scores), 1e-5);
}

// k reaches the kernel: the same document at two clip distances gives different scores, and
// the result reports the k it was given.
TEST_F(InferenceTest, ClipDistanceChangesTheScores) {
  const auto doc = Doc(600);
  const DocumentScores k4 = Score({doc.get()}, 4)[0];
  const DocumentScores k64 = Score({doc.get()}, 64)[0];
  EXPECT_EQ(k4.clip_distance, 4);
  EXPECT_EQ(k64.clip_distance, 64);
  EXPECT_GT(MaxDiff(k4.scores, k64.scores), 1e-4);
}

// The shipped clip policy (config.json), not only the default one: k(L) is the documented
// value at each length, and scoring at the policy's k differs from the neighbouring buckets,
// so the policy's choice is what runs.
TEST_F(InferenceTest, ShippedClipPolicyPicksAndRunsItsK) {
  // config.json: k = largest of {4, 8, ..., 256} <= clamp(L / 8, 4, 16).
  const std::vector<std::pair<int64_t, int64_t>> expected = {
      {20, 4}, {63, 4}, {64, 8}, {100, 8}, {128, 16}, {600, 16}, {5000, 16}, {32768, 16}};
  for (const auto& [tokens, k] : expected) {
    EXPECT_EQ(ClipDistanceFor(config(), tokens), k) << tokens << " tokens";
  }
  for (const int64_t tokens : {int64_t{60}, int64_t{600}}) {
    const auto doc = Doc(tokens);
    const int64_t k = ClipDistanceFor(config(), doc->num_tokens());
    const DocumentScores policy = Score({doc.get()}, k)[0];
    EXPECT_EQ(policy.clip_distance, k);
    for (const int64_t other : {k / 2, k * 2}) {
      if (other < 1 || other > config().architecture.max_clip_distance) continue;
      EXPECT_GT(MaxDiff(policy.scores, Score({doc.get()}, other)[0].scores), 1e-6)
          << doc->num_tokens() << " tokens: k " << k << " vs " << other;
    }
  }
}

// with_states returns what the head reads: one state per kept unit, the same alone and in a
// batch, the scores unchanged, and the head applied to the states gives the served scores.
TEST_F(InferenceTest, UnitStatesAreWhatTheHeadReads) {
  const auto doc = Doc(600);
  const auto shorter = Doc(300);  // the same attention mode: one forward pass for both
  const DocumentScores plain = Score({doc.get()}, 16)[0];
  auto alone = ScoreDocuments(*checkpoint_, {doc.get()}, 16, tokenizer_->pad_id(), true);
  auto batched =
      ScoreDocuments(*checkpoint_, {shorter.get(), doc.get()}, 16, tokenizer_->pad_id(), true);
  ASSERT_TRUE(alone.ok()) << alone.status();
  ASSERT_TRUE(batched.ok()) << batched.status();
  const DocumentScores& a = (*alone)[0];
  const int64_t width = config().architecture.hidden_size;
  ASSERT_EQ(a.state_size, width);
  ASSERT_EQ(a.unit_states.size(), doc->kept.size() * width);
  EXPECT_TRUE(plain.unit_states.empty());
  EXPECT_EQ(plain.state_size, 0);
  EXPECT_LE(MaxDiff(a.scores, plain.scores), 1e-6);
  EXPECT_LE(MaxDiff((*batched)[1].unit_states, a.unit_states), 1e-4);

  c10::InferenceMode guard;
  const at::Tensor states =
      at::from_blob(const_cast<float*>(a.unit_states.data()),
                    {static_cast<int64_t>(doc->kept.size()), width}, at::kFloat)
          .clone();
  const at::Tensor logits = checkpoint_->scorer->UnitLogits(states).contiguous();
  const float* l = logits.data_ptr<float>();
  const std::vector<float> served =
      ServedScores(*doc, std::vector<float>(l, l + doc->kept.size()), config().scoring);
  EXPECT_LE(MaxDiff(served, a.scores), 1e-5);
}

// A long document in stretches (ExtractiveScorer::EncodeInStretches): the same scores and unit
// states as the whole forward (1e-5), with token stretches far shorter than the document and
// unit stretches far shorter than its units, each stretch reading only its halo (a halo one
// window short of layers x window changes the scores near every stretch's edge).
TEST_F(InferenceTest, StretchesGiveTheWholeForward) {
  Checkpoint ck = *checkpoint_;  // shares the module; block-local unit layers from 64 units
  ck.config.attention.unit_local_threshold = 64;
  ck.config.attention.unit_local_window = 16;
  ASSERT_TRUE(ck.config.Validate().ok());
  const auto doc = Doc(6000);
  const int64_t units = static_cast<int64_t>(doc->kept.size());
  ASSERT_GT(units, 200);
  const int64_t window = ck.config.attention.TokenWindow(doc->num_tokens());
  ASSERT_GT(window, 0);
  const auto score = [&](const Stretches& stretches) {
    auto r = ScoreDocuments(ck, {doc.get()}, 16, tokenizer_->pad_id(), true, stretches);
    EXPECT_TRUE(r.ok()) << r.status();
    return r.ok() ? (*r)[0] : DocumentScores{};
  };
  const DocumentScores whole = score(Stretches{0, 0});
  for (const Stretches& s :
       {Stretches{1000, 0}, Stretches{777, 50}, Stretches{0, 37}, Stretches{window, 1}}) {
    const DocumentScores got = score(s);
    EXPECT_EQ(got.local_window, whole.local_window);
    ASSERT_EQ(got.scores.size(), whole.scores.size());
    EXPECT_LE(MaxDiff(got.scores, whole.scores), 1e-5) << s.tokens << " tokens, " << s.units;
    EXPECT_LE(MaxDiff(got.unit_states, whole.unit_states), 1e-4)
        << s.tokens << " tokens, " << s.units << " units a stretch";
  }
  // Asked to stop, it stops between stretches with DeadlineExceeded; never asked, it is whole.
  int asked = 0;
  auto stopped = ScoreDocuments(ck, {doc.get()}, 16, tokenizer_->pad_id(), false,
                                Stretches{1000, 0}, [&] { return ++asked > 2; });
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kDeadlineExceeded) << stopped.status();
  EXPECT_THAT(std::string(stopped.status().message()),
              ::testing::HasSubstr("stopped before token stretch 3 of 6"));
  auto finished = ScoreDocuments(ck, {doc.get()}, 16, tokenizer_->pad_id(), false,
                                 Stretches{1000, 0}, [] { return false; });
  ASSERT_TRUE(finished.ok()) << finished.status();
  EXPECT_LE(MaxDiff((*finished)[0].scores, whole.scores), 1e-5);
  // Full attention never runs in stretches: its reach is the whole document.
  const auto short_doc = Doc(config().attention.local_threshold - 100);
  auto full =
      ScoreDocuments(ck, {short_doc.get()}, 16, tokenizer_->pad_id(), false, Stretches{100, 0});
  ASSERT_TRUE(full.ok()) << full.status();
  EXPECT_EQ((*full)[0].local_window, 0);
  EXPECT_LE(MaxDiff((*full)[0].scores, Score({short_doc.get()}, 16)[0].scores), 1e-5);
}

}  // namespace
}  // namespace rpsum::net
