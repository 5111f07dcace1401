#include "server/scheduler/scheduler.h"

#include <atomic>
#include <map>
#include <memory>
#include <stdexcept>

#include "absl/time/clock.h"
#include "gtest/gtest.h"
#include "testing/fake_summarizer.h"

namespace rpsum::server {
namespace {

// Polls `pred` in real time (the scheduler's workers are real threads).
template <typename P>
bool Eventually(P pred, absl::Duration limit = absl::Seconds(10)) {
  const absl::Time end = absl::Now() + limit;
  while (absl::Now() < end) {
    if (pred()) return true;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return pred();
}

class SchedulerTest : public ::testing::Test {
 protected:
  // A document of `tokens` tokens with one unit.
  const model::PreparedDocument* Doc(int64_t tokens) {
    auto d = std::make_unique<model::PreparedDocument>();
    d->tokens.assign(tokens, 5);
    d->kept = {0};
    d->unit_pos = {0};
    docs_.push_back(std::move(d));
    return docs_.back().get();
  }

  struct Result {
    absl::Status status = absl::UnknownError("not done");
    int calls = 0;
    BatchInfo info;
  };

  Job MakeJob(int64_t tokens, int64_t k = 8, int priority = 0,
              absl::Time deadline = absl::InfiniteFuture()) {
    const int id = next_id_++;
    Job j;
    j.doc = Doc(tokens);
    j.k = k;
    j.cost = tokens;
    j.priority = priority;
    j.deadline = deadline;
    j.cancelled = [this, id] {
      MutexLock lock(&mu_);
      return cancelled_.count(id) > 0;
    };
    j.done = [this, id](const absl::StatusOr<model::DocumentScores>& r, const BatchInfo& info) {
      MutexLock lock(&mu_);
      Result& res = results_[id];
      res.status = r.status();
      res.info = info;
      ++res.calls;
    };
    ids_.push_back(id);
    return j;
  }
  int LastId() const { return ids_.back(); }
  Result Get(int id) {
    MutexLock lock(&mu_);
    return results_[id];
  }
  int Done() {
    MutexLock lock(&mu_);
    int n = 0;
    for (auto& [id, r] : results_) n += r.calls > 0;
    return n;
  }
  void Cancel(int id) {
    MutexLock lock(&mu_);
    cancelled_.insert(id);
  }

  std::unique_ptr<Scheduler> Make(SchedulerOptions o) {
    return std::make_unique<Scheduler>(o, std::vector<model::Summarizer*>{&model_}, &clock_,
                                       nullptr);
  }

  FakeClock clock_;
  test::FakeSummarizer model_;
  std::vector<std::unique_ptr<model::PreparedDocument>> docs_;
  std::vector<int> ids_;
  int next_id_ = 0;
  Mutex mu_;
  std::map<int, Result> results_ ABSL_GUARDED_BY(mu_);
  std::set<int> cancelled_ ABSL_GUARDED_BY(mu_);
};

SchedulerOptions NoDelay(int batch) {
  SchedulerOptions o;
  o.max_batch_size = batch;
  o.max_queue_delay = absl::Hours(1);  // the fake clock decides when delay dispatch happens
  return o;
}

TEST_F(SchedulerTest, FullBatchByCountDispatchesAtOnce) {
  auto s = Make(NoDelay(3));
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->Submit(MakeJob(100)).ok());
  ASSERT_TRUE(Eventually([&] { return Done() == 3; }));
  ASSERT_EQ(model_.batches().size(), 1u);
  EXPECT_EQ(model_.batches()[0].size, 3);
  EXPECT_EQ(Get(0).info.size, 3);
}

TEST_F(SchedulerTest, PartialBatchWaitsForMaxQueueDelay) {
  SchedulerOptions o = NoDelay(8);
  o.max_queue_delay = absl::Milliseconds(5);
  auto s = Make(o);
  ASSERT_TRUE(s->Submit(MakeJob(100)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(120)).ok());
  absl::SleepFor(absl::Milliseconds(30));  // real time passes, fake time does not
  EXPECT_EQ(Done(), 0);
  clock_.Advance(absl::Milliseconds(5));
  ASSERT_TRUE(Eventually([&] { return Done() == 2; }));
  ASSERT_EQ(model_.batches().size(), 1u);
  EXPECT_EQ(model_.batches()[0].size, 2);
  EXPECT_EQ(Get(0).info.queue_wait, absl::Milliseconds(5));
}

TEST_F(SchedulerTest, BatchCostBudgetLimitsTheBatch) {
  SchedulerOptions o = NoDelay(8);
  o.max_batch_cost = 250;  // two requests of cost 100 fit (padded 200), three do not
  auto s = Make(o);
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->Submit(MakeJob(100)).ok());
  ASSERT_TRUE(Eventually([&] { return Done() == 2; }));
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(Done(), 2);  // the third waits for company or its delay
  clock_.Advance(absl::Hours(1));
  ASSERT_TRUE(Eventually([&] { return Done() == 3; }));
  EXPECT_EQ(model_.batches()[0].size, 2);
  EXPECT_EQ(model_.batches()[1].size, 1);
}

TEST_F(SchedulerTest, OnlySameClipDistanceAndSimilarLengthBatchTogether) {
  auto s = Make(NoDelay(2));
  ASSERT_TRUE(s->Submit(MakeJob(100, /*k=*/8)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(100, /*k=*/16)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(1000, /*k=*/8)).ok());  // 10x longer: not with the first
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_EQ(Done(), 0);
  ASSERT_TRUE(s->Submit(MakeJob(110, /*k=*/8)).ok());  // joins the first
  ASSERT_TRUE(Eventually([&] { return Done() == 2; }));
  EXPECT_EQ(Get(0).calls, 1);
  EXPECT_EQ(Get(3).calls, 1);
  EXPECT_EQ(model_.batches()[0].k, 8);
  clock_.Advance(absl::Hours(1));
  ASSERT_TRUE(Eventually([&] { return Done() == 4; }));
  for (const auto& b : model_.batches()) EXPECT_EQ(b.size, b.k == 8 && b.size == 2 ? 2 : 1);
}

TEST_F(SchedulerTest, HigherPriorityRunsFirst) {
  auto s = Make(NoDelay(1));
  model_.Block();
  ASSERT_TRUE(s->Submit(MakeJob(10)).ok());  // occupies the worker
  ASSERT_TRUE(Eventually([&] { return s->running_requests() == 1; }));
  ASSERT_TRUE(s->Submit(MakeJob(20, 8, /*priority=*/0)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(30, 8, /*priority=*/2)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(40, 8, /*priority=*/1)).ok());
  model_.Unblock();
  ASSERT_TRUE(Eventually([&] { return Done() == 4; }));
  EXPECT_EQ(model_.order(), (std::vector<int64_t>{10, 30, 40, 20}));
}

TEST_F(SchedulerTest, EarlierDeadlineFirstWithinAPriority) {
  auto s = Make(NoDelay(1));
  model_.Block();
  ASSERT_TRUE(s->Submit(MakeJob(10)).ok());
  ASSERT_TRUE(Eventually([&] { return s->running_requests() == 1; }));
  const absl::Time now = clock_.Now();
  ASSERT_TRUE(s->Submit(MakeJob(20, 8, 0, now + absl::Seconds(9))).ok());
  ASSERT_TRUE(s->Submit(MakeJob(30, 8, 0, now + absl::Seconds(3))).ok());
  model_.Unblock();
  ASSERT_TRUE(Eventually([&] { return Done() == 3; }));
  EXPECT_EQ(model_.order(), (std::vector<int64_t>{10, 30, 20}));
}

TEST_F(SchedulerTest, ExpiredAndCancelledRequestsNeverRun) {
  auto s = Make(NoDelay(8));
  const absl::Time now = clock_.Now();
  EXPECT_EQ(s->Submit(MakeJob(10, 8, 0, now)).code(), absl::StatusCode::kDeadlineExceeded);
  ASSERT_TRUE(s->Submit(MakeJob(11, 8, 0, now + absl::Seconds(1))).ok());
  const int expiring = LastId();
  ASSERT_TRUE(s->Submit(MakeJob(12)).ok());
  const int cancelled = LastId();
  ASSERT_TRUE(s->Submit(MakeJob(13)).ok());
  Cancel(cancelled);
  clock_.Advance(absl::Seconds(2));  // past the deadline, and past nothing else
  ASSERT_TRUE(Eventually([&] { return Get(expiring).calls == 1 && Get(cancelled).calls == 1; }));
  EXPECT_EQ(Get(expiring).status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(Get(cancelled).status.code(), absl::StatusCode::kCancelled);
  clock_.Advance(absl::Hours(1));
  ASSERT_TRUE(Eventually([&] { return Get(LastId()).calls == 1; }));
  EXPECT_TRUE(Get(LastId()).status.ok());
  EXPECT_EQ(model_.order(), (std::vector<int64_t>{13}));
  EXPECT_EQ(Get(0).calls, 0);  // rejected at Submit: done never runs
}

// A running batch may stop early (model::Summarizer::Score's stop, asked between a long
// document's stretches) once every request in it has passed its deadline or been cancelled,
// and not while one of them still waits.
TEST_F(SchedulerTest, RunningModelMayStopOnceNoOneWaits) {
  auto s = Make(NoDelay(1));
  model_.Block();
  const absl::Time now = clock_.Now();
  ASSERT_TRUE(s->Submit(MakeJob(10, 8, 0, now + absl::Seconds(1))).ok());
  const int expiring = LastId();
  ASSERT_TRUE(Eventually([&] { return s->running_requests() == 1; }));  // running, blocked
  clock_.Advance(absl::Seconds(2));
  model_.Unblock();
  ASSERT_TRUE(Eventually([&] { return Get(expiring).calls == 1; }));
  EXPECT_EQ(Get(expiring).status.code(), absl::StatusCode::kDeadlineExceeded);
  // With no deadline and no cancellation, the same model runs to its end.
  model_.Block();
  ASSERT_TRUE(s->Submit(MakeJob(10)).ok());
  ASSERT_TRUE(Eventually([&] { return s->running_requests() == 1; }));
  clock_.Advance(absl::Hours(1));
  model_.Unblock();
  ASSERT_TRUE(Eventually([&] { return Get(LastId()).calls == 1; }));
  EXPECT_TRUE(Get(LastId()).status.ok()) << Get(LastId()).status;
}

// With large-document workers, a large request runs only there and a small one only on the
// others: a small request is answered while a long forward holds the large worker, and a large
// one never takes the small worker, even when it is the only worker free.
TEST_F(SchedulerTest, LargeRequestsRunOnlyOnTheLargeWorkers) {
  test::FakeSummarizer large;
  Scheduler s(NoDelay(1), {&model_}, &clock_, nullptr, {&large});
  large.Block();
  Job big = MakeJob(50000);
  big.large = true;
  ASSERT_TRUE(s.Submit(std::move(big)).ok());
  const int big_id = LastId();
  ASSERT_TRUE(Eventually([&] { return s.running_requests() == 1; }));  // on the large worker
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.Submit(MakeJob(100)).ok());
  ASSERT_TRUE(Eventually([&] { return Done() == 3; }));
  EXPECT_EQ(Get(big_id).calls, 0);
  // A second large request waits for the large worker, though the small one is idle.
  Job second = MakeJob(40000);
  second.large = true;
  ASSERT_TRUE(s.Submit(std::move(second)).ok());
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_EQ(s.queued_requests(), 1);
  large.Unblock();
  ASSERT_TRUE(Eventually([&] { return Done() == 5; }));
  EXPECT_EQ(model_.order(), (std::vector<int64_t>{100, 100, 100}));
  EXPECT_EQ(large.order(), (std::vector<int64_t>{50000, 40000}));
  s.Shutdown(absl::ZeroDuration());
}

// The large worker's model is asked to run on large_threads_beside_small threads while small
// requests are about (queued, running, or one answered within small_request_linger), and on
// its own otherwise.
TEST_F(SchedulerTest, LargeWorkerGivesWayWhileSmallRequestsAreAbout) {
  test::FakeSummarizer large;
  SchedulerOptions o = NoDelay(1);
  o.large_threads_beside_small = 1;
  o.small_request_linger = absl::Seconds(1);
  Scheduler s(o, {&model_}, &clock_, nullptr, {&large});
  auto submit_large = [&] {
    Job j = MakeJob(50000);
    j.large = true;
    ASSERT_TRUE(s.Submit(std::move(j)).ok());
  };
  submit_large();  // nothing small about yet
  ASSERT_TRUE(Eventually([&] { return Done() == 1; }));
  model_.Block();
  ASSERT_TRUE(s.Submit(MakeJob(100)).ok());  // a small one running
  ASSERT_TRUE(Eventually([&] { return s.running_requests() == 1; }));
  submit_large();
  ASSERT_TRUE(Eventually([&] { return Done() == 2; }));
  model_.Unblock();
  ASSERT_TRUE(Eventually([&] { return Done() == 3; }));
  submit_large();  // the small one was answered just now
  ASSERT_TRUE(Eventually([&] { return Done() == 4; }));
  clock_.Advance(absl::Seconds(2));
  submit_large();  // and long enough ago
  ASSERT_TRUE(Eventually([&] { return Done() == 5; }));
  EXPECT_EQ(large.threads(), (std::vector<int>{0, 1, 1, 0}));
  EXPECT_EQ(model_.threads(), (std::vector<int>{0}));  // the small workers are never asked
  s.Shutdown(absl::ZeroDuration());
}

TEST_F(SchedulerTest, QueueCapsRejectWithResourceExhausted) {
  SchedulerOptions o = NoDelay(8);
  o.max_queue_requests = 2;
  o.max_queue_cost = 250;
  auto s = Make(o);
  model_.Block();
  ASSERT_TRUE(s->Submit(MakeJob(100)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(100)).ok());
  const absl::Status full = s->Submit(MakeJob(10));
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("max_queue_requests 2"), std::string::npos) << full;
  EXPECT_EQ(s->queued_cost(), 200);
  o.max_queue_requests = 10;
  auto s2 = Make(o);
  ASSERT_TRUE(s2->Submit(MakeJob(200)).ok());
  const absl::Status cost = s2->Submit(MakeJob(100));
  EXPECT_EQ(cost.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(cost.message().find("max_queue_cost 250"), std::string::npos) << cost;
  model_.Unblock();
}

// The queue's memory (Job::memory: what a queued document holds) has its own cap: a long
// document's bytes are refused past it even when its cost fits, a first request always goes
// in, and what leaves the queue (run or dropped) stops counting.
TEST_F(SchedulerTest, QueueMemoryCapRejectsWithResourceExhausted) {
  SchedulerOptions o = NoDelay(8);
  o.max_queue_memory = 1000;
  auto s = Make(o);
  model_.Block();
  Job big = MakeJob(10);
  big.memory = 5000;  // over the cap alone: the first request still goes in
  ASSERT_TRUE(s->Submit(std::move(big)).ok());
  Job more = MakeJob(10);
  more.memory = 1;
  const absl::Status full = s->Submit(std::move(more));
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("max_queue_memory_bytes 1000"), std::string::npos) << full;
  EXPECT_EQ(s->queued_memory(), 5000);
  model_.Unblock();
  clock_.Advance(absl::Hours(1));  // the partial batch's delay passes: it runs
  // Once the first has left the queue, requests within the cap are taken again.
  ASSERT_TRUE(Eventually([&] { return s->queued_memory() == 0; }));
  Job fits = MakeJob(10);
  fits.memory = 600;
  EXPECT_TRUE(s->Submit(std::move(fits)).ok());
}

TEST_F(SchedulerTest, MaxQueueWaitShedsWhenQueuedWorkTakesTooLong) {
  SchedulerOptions o = NoDelay(1);
  o.seconds_per_cost = 0.001;  // 1 ms per cost unit
  o.max_queue_wait = absl::Milliseconds(250);
  auto s = Make(o);
  model_.Block();
  // Admitted while the work ahead (queued, or the remainder of the running one: the fake clock
  // stands still, so all of its 100 ms) is <= 250 ms: 0, 100, 200 ms; the 4th is shed, whether
  // or not the worker has taken the first job yet.
  int admitted = 0;
  absl::Status shed;
  for (int i = 0; i < 10 && shed.ok(); ++i) {
    shed = s->Submit(MakeJob(100));
    admitted += shed.ok();
  }
  EXPECT_EQ(admitted, 3);
  EXPECT_GE(s->queued_cost(), 200);
  EXPECT_EQ(shed.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(shed.message().find("max_queue_wait 250 ms"), std::string::npos) << shed;
  EXPECT_NE(shed.message().find("retry in about"), std::string::npos) << shed;
  // Precheck (what the service asks before preparing) refuses the same way, whatever the next
  // request's cost: even a 1-unit request would wait behind 300 ms.
  const absl::Status pre = s->Precheck();
  EXPECT_EQ(pre.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(pre.message().find("max_queue_wait 250 ms"), std::string::npos) << pre;
  EXPECT_EQ(s->Submit(MakeJob(1)).code(), absl::StatusCode::kResourceExhausted);
  model_.Unblock();
  ASSERT_TRUE(Eventually([&] { return Done() == 3; }));
  EXPECT_TRUE(s->Precheck().ok());  // the work ahead is done
  s->Shutdown(absl::ZeroDuration());
  EXPECT_EQ(s->Precheck().code(), absl::StatusCode::kUnavailable);
}

// A closed-loop client sends its next request from the answer to the previous one. Its finished
// batch must not count as running work ahead of it: with a fake clock that stands still, the
// batch's whole predicted 300 ms would otherwise still be "remaining" (the race that refused an
// unloaded client's baseline on a busy machine).
TEST_F(SchedulerTest, AnAnsweredBatchIsNoLongerWorkAhead) {
  SchedulerOptions o = NoDelay(1);
  o.seconds_per_cost = 0.001;
  o.max_queue_wait = absl::Milliseconds(100);
  auto s = Make(o);
  Job j = MakeJob(300);
  absl::Status in_answer = absl::UnknownError("not answered");
  Mutex answer_mu;
  auto done = std::move(j.done);
  j.done = [&, done](absl::StatusOr<model::DocumentScores> r, const BatchInfo& info) {
    {
      MutexLock lock(&answer_mu);
      in_answer = s->Precheck();
    }
    done(std::move(r), info);
  };
  ASSERT_TRUE(s->Submit(std::move(j)).ok());
  ASSERT_TRUE(Eventually([&] { return Done() == 1; }));
  MutexLock lock(&answer_mu);
  EXPECT_TRUE(in_answer.ok()) << in_answer;
}

TEST_F(SchedulerTest, PrecheckRefusesWhenTheRequestCapIsFull) {
  SchedulerOptions o = NoDelay(1);
  o.max_queue_requests = 2;
  auto s = Make(o);
  model_.Block();
  ASSERT_TRUE(s->Submit(MakeJob(10)).ok());
  ASSERT_TRUE(Eventually([&] { return s->running_requests() == 1; }));
  ASSERT_TRUE(s->Submit(MakeJob(10)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(10)).ok());
  const absl::Status full = s->Precheck();
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(full.message().find("max_queue_requests 2"), std::string::npos) << full;
  model_.Unblock();
}

TEST_F(SchedulerTest, DeadlineThatCannotBeMetIsRejectedAtOnce) {
  SchedulerOptions o = NoDelay(8);
  o.seconds_per_cost = 0.001;  // 1 ms per cost unit
  auto s = Make(o);
  const absl::Status st = s->Submit(MakeJob(1000, 8, 0, clock_.Now() + absl::Milliseconds(500)));
  EXPECT_EQ(st.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_NE(st.message().find("predicted 1000 ms"), std::string::npos) << st;
  EXPECT_TRUE(s->Submit(MakeJob(100, 8, 0, clock_.Now() + absl::Seconds(5))).ok());
}

TEST_F(SchedulerTest, AFailingBatchFailsOnlyItself) {
  auto s = Make(NoDelay(2));
  model_.set_hook([](const std::vector<const model::PreparedDocument*>& docs) {
    for (const auto* d : docs) {
      if (d->num_tokens() == 666) return absl::InternalError("injected model failure");
      if (d->num_tokens() == 667) throw std::runtime_error("injected exception");
    }
    return absl::OkStatus();
  });
  ASSERT_TRUE(s->Submit(MakeJob(666)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(660)).ok());  // same batch as the failure
  ASSERT_TRUE(s->Submit(MakeJob(100)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(101)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(667)).ok());
  ASSERT_TRUE(s->Submit(MakeJob(668)).ok());
  ASSERT_TRUE(Eventually([&] { return Done() == 6; }));
  EXPECT_EQ(Get(0).status.code(), absl::StatusCode::kInternal);
  EXPECT_EQ(Get(1).status.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(Get(2).status.ok());
  EXPECT_TRUE(Get(3).status.ok());
  EXPECT_EQ(Get(4).status.code(), absl::StatusCode::kInternal);
  EXPECT_NE(Get(4).status.message().find("injected exception"), std::string::npos);
  ASSERT_TRUE(s->Submit(MakeJob(100)).ok());  // the scheduler still serves
  clock_.Advance(absl::Hours(1));
  ASSERT_TRUE(Eventually([&] { return Done() == 7; }));
  EXPECT_TRUE(Get(6).status.ok());
}

TEST_F(SchedulerTest, OutOfMemorySplitsTheBatchInHalves) {
  auto s = Make(NoDelay(4));
  model_.set_hook([](const std::vector<const model::PreparedDocument*>& docs) {
    return docs.size() > 1 ? absl::ResourceExhaustedError("out of memory") : absl::OkStatus();
  });
  for (int i = 0; i < 4; ++i) ASSERT_TRUE(s->Submit(MakeJob(100 + i)).ok());
  ASSERT_TRUE(Eventually([&] { return Done() == 4; }));
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(Get(i).status.ok()) << i;
  // 4 fails, 2 fails, 1 + 1, 2 fails, 1 + 1.
  EXPECT_EQ(model_.batches().size(), 7u);
}

TEST_F(SchedulerTest, ShutdownAnswersEveryAcceptedRequestOnce) {
  auto s = Make(NoDelay(1));
  model_.Block();
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(s->Submit(MakeJob(10 + i)).ok());
  ASSERT_TRUE(Eventually([&] { return s->running_requests() == 1; }));
  std::thread unblock([&] {
    absl::SleepFor(absl::Milliseconds(50));
    model_.Unblock();
  });
  s->Shutdown(absl::ZeroDuration());  // no grace: what is queued fails, what runs finishes
  unblock.join();
  EXPECT_EQ(Done(), 5);
  int ok = 0, unavailable = 0;
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(Get(i).calls, 1);
    ok += Get(i).status.ok();
    unavailable += Get(i).status.code() == absl::StatusCode::kUnavailable;
  }
  EXPECT_EQ(ok + unavailable, 5);
  EXPECT_GE(ok, 1);
  EXPECT_EQ(s->Submit(MakeJob(1)).code(), absl::StatusCode::kUnavailable);
}

TEST_F(SchedulerTest, ShutdownWithGraceLetsQueuedWorkFinish) {
  auto s = Make(NoDelay(8));  // partial batches would wait an hour, but draining dispatches them
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(s->Submit(MakeJob(10 + i)).ok());
  std::thread advance([&] {
    while (Done() < 3) {
      clock_.Advance(absl::Milliseconds(1));
      absl::SleepFor(absl::Milliseconds(1));
    }
  });
  s->Shutdown(absl::Seconds(30));
  advance.join();
  for (int i = 0; i < 3; ++i) EXPECT_TRUE(Get(i).status.ok());
}

TEST_F(SchedulerTest, ManyThreadsSubmittingConcurrently) {
  SchedulerOptions o = NoDelay(4);
  o.max_queue_requests = 10000;
  auto s = Make(o);
  std::vector<Job> jobs;
  jobs.reserve(400);
  for (int i = 0; i < 400; ++i) jobs.push_back(MakeJob(50 + i % 7));
  std::atomic<int> accepted{0};
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = t; i < 400; i += 4) accepted += s->Submit(std::move(jobs[i])).ok();
    });
  }
  for (auto& t : threads) t.join();
  std::thread advance([&] {
    while (Done() < 400) {
      clock_.Advance(absl::Hours(1));
      absl::SleepFor(absl::Milliseconds(1));
    }
  });
  ASSERT_TRUE(Eventually([&] { return Done() == 400; }));
  advance.join();
  EXPECT_EQ(accepted.load(), 400);
  s->Shutdown(absl::ZeroDuration());
}

}  // namespace
}  // namespace rpsum::server
