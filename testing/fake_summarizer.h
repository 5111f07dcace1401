// Test doubles for the model API: a summarizer that records batches, can block, fail or run
// out of memory on demand, and a whitespace tokenizer. Torch-free.
#ifndef RPSUM_TESTING_FAKE_SUMMARIZER_H_
#define RPSUM_TESTING_FAKE_SUMMARIZER_H_

#include <functional>
#include <stdexcept>
#include <vector>

#include "base/mutex.h"
#include "model/summarizer.h"
#include "testing/word_tokenizer.h"

namespace rpsum::test {

using FakeTokenizer = WordTokenizer;

class FakeSummarizer : public model::Summarizer {
 public:
  FakeSummarizer() {
    desc_.device = "fake";
    desc_.torch_version = "none";
  }

  absl::StatusOr<std::vector<model::DocumentScores>> Score(
      const std::vector<const model::PreparedDocument*>& docs, int64_t k,
      const model::ScoreControl& control) override {
    {
      MutexLock lock(&mu_);
      while (blocked_) cv_.Wait();
      threads_.push_back(control.threads ? control.threads() : 0);
      batches_.push_back({static_cast<int>(docs.size()), k});
      for (const auto* d : docs) order_.push_back(d->num_tokens());
    }
    // As the real model between stretches: once here, after the (blocked) work.
    if (control.stop && control.stop()) return absl::DeadlineExceededError("stopped (fake model)");
    if (hook_) {
      absl::Status s = hook_(docs);
      if (!s.ok()) return s;
    }
    std::vector<model::DocumentScores> out;
    for (const auto* d : docs) {
      model::DocumentScores r;
      r.scores.resize(d->kept.size());
      // Earlier units score higher, so selection is predictable.
      for (size_t i = 0; i < r.scores.size(); ++i) r.scores[i] = 1.0f / static_cast<float>(i + 1);
      r.clip_distance = k;
      r.local_window = desc_.config.attention.TokenWindow(d->num_tokens());
      if (states_) {
        r.unit_states = states_(*d);
        r.state_size = state_size_;
      }
      out.push_back(std::move(r));
    }
    return out;
  }
  const model::ModelDescription& description() const override { return desc_; }
  const model::Tokenizer& tokenizer() const override { return tokenizer_; }

  // A test-only fault hook: runs on every batch; a non-OK status fails the batch; it may throw.
  void set_hook(std::function<absl::Status(const std::vector<const model::PreparedDocument*>&)> h) {
    hook_ = std::move(h);
  }
  // Unit states to return with the scores (DocumentScores::unit_states), `width` per kept unit.
  void set_states(std::function<std::vector<float>(const model::PreparedDocument&)> f,
                  int64_t width) {
    states_ = std::move(f);
    state_size_ = width;
  }
  void Block() {
    MutexLock lock(&mu_);
    blocked_ = true;
  }
  void Unblock() {
    MutexLock lock(&mu_);
    blocked_ = false;
    cv_.SignalAll();
  }
  struct Batch {
    int size;
    int64_t k;
  };
  std::vector<Batch> batches() {
    MutexLock lock(&mu_);
    return batches_;
  }
  // Token counts of the documents in the order they were scored.
  std::vector<int64_t> order() {
    MutexLock lock(&mu_);
    return order_;
  }
  // What ScoreControl::threads asked for at the start of each call (0: nothing asked).
  std::vector<int> threads() {
    MutexLock lock(&mu_);
    return threads_;
  }
  model::ModelDescription* mutable_description() { return &desc_; }

 private:
  model::ModelDescription desc_;
  FakeTokenizer tokenizer_;
  std::function<absl::Status(const std::vector<const model::PreparedDocument*>&)> hook_;
  std::function<std::vector<float>(const model::PreparedDocument&)> states_;
  int64_t state_size_ = 0;
  Mutex mu_;
  CondVar cv_{&mu_};
  bool blocked_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<Batch> batches_ ABSL_GUARDED_BY(mu_);
  std::vector<int64_t> order_ ABSL_GUARDED_BY(mu_);
  std::vector<int> threads_ ABSL_GUARDED_BY(mu_);
};

}  // namespace rpsum::test

#endif  // RPSUM_TESTING_FAKE_SUMMARIZER_H_
