// The batching scheduler (docs/design.md, section 2, steps 2, 4 and 5): a priority- and
// deadline-aware queue with caps on queued requests and queued cost, and worker threads that group
// requests of similar length and the same clip distance into batches under a cost budget,
// dispatching when a batch is full or its oldest request has waited max_queue_delay. Torch-free and
// gRPC-free: it sees the model only through model::Summarizer, and time only through a Clock.
#ifndef RPSUM_SERVER_SCHEDULER_SCHEDULER_H_
#define RPSUM_SERVER_SCHEDULER_SCHEDULER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "base/mutex.h"
#include "model/summarizer.h"

namespace rpsum::server {

struct SchedulerOptions {
  // Requests in one batch at most (1 disables batching).
  int max_batch_size = 8;
  // Cost units in one batch at most, counted as padded: the batch's longest request's cost
  // times its size (a single request larger than this still runs, alone).
  int64_t max_batch_cost = 1 << 20;
  // A request waits at most this long for others to batch with.
  absl::Duration max_queue_delay = absl::Milliseconds(5);
  // Admission caps: Submit answers ResourceExhausted beyond them.
  int max_queue_requests = 256;
  int64_t max_queue_cost = 64 << 20;
  // Bytes the queued requests' documents hold at most (Job::memory): the queue's memory, which
  // grows with documents' lengths where the model's working memory does not (it runs long
  // documents in stretches).
  int64_t max_queue_memory = int64_t{2} << 30;
  // Admission by time: refuse (ResourceExhausted) a request when the work ahead of it (queued,
  // plus what remains of the running batches) is predicted to take longer than this (needs
  // seconds_per_cost; zero: no such cap). Bounds the latency of admitted requests under
  // overload, whatever the mix of lengths: at most about this plus their own model time.
  absl::Duration max_queue_wait = absl::ZeroDuration();
  // Requests batch together only if their lengths are within this ratio.
  double max_length_ratio = 2.0;
  // Measured model speed (seconds per cost unit on one worker) for predictions; 0: unknown,
  // no early deadline rejection.
  double seconds_per_cost = 0;
  // Intra-op threads a large-document worker's model runs with while small requests are about
  // (queued, running, or one finished less than small_request_linger ago), asked before its
  // forward and between a long document's stretches; otherwise it runs with its own. One
  // thread keeps it out of the way: OpenBLAS (OpenMP build) runs one threaded call at a time,
  // so a small request's threaded call would wait for the large worker's, which at the lowest
  // CPU priority runs slowly (docs/design.md, "Requests run in two lanes."). 0: always its own.
  int large_threads_beside_small = 1;
  absl::Duration small_request_linger = absl::Seconds(1);
};

// What happened to the batch a request ran in.
struct BatchInfo {
  int size = 0;
  int64_t k = 0;
  double padding_ratio = 0;  // padded tokens / all tokens in the batch
  absl::Duration inference;  // the model call that produced the scores
  absl::Duration queue_wait;
};

struct Job {
  const model::PreparedDocument* doc = nullptr;  // not owned; valid until `done` runs
  int64_t k = 1;
  int64_t cost = 1;
  int64_t memory = 0;  // bytes the request holds while it waits (model::HeldBytes)
  int priority = 0;    // higher runs first
  // A large document's request (the service's large-document lane): when the scheduler has
  // large-document workers it runs there, and only there, so that a long forward never holds
  // the worker small requests wait for.
  bool large = false;
  absl::Time deadline = absl::InfiniteFuture();
  // Polled before the job runs; true drops it with Cancelled. May be empty.
  std::function<bool()> cancelled;
  // Runs exactly once, on a worker thread, or in Shutdown's caller for work that cannot run.
  // Its scores carry the k and attention mode the model ran it with.
  std::function<void(absl::StatusOr<model::DocumentScores>, const BatchInfo&)> done;
};

// Metrics hooks. Called from worker threads and Submit's caller; implementations must be
// thread-safe and fast.
class SchedulerObserver {
 public:
  virtual ~SchedulerObserver() = default;
  virtual void OnQueueChanged(int /*requests*/, int64_t /*cost*/) {}
  virtual void OnRunningChanged(int /*requests*/) {}
  virtual void OnBatch(const BatchInfo& /*info*/) {}
  virtual void OnQueueWait(absl::Duration /*wait*/) {}
  virtual void OnOomSplit() {}
  virtual void OnDropped(absl::StatusCode /*code*/) {}
};

class Scheduler {
 public:
  // One worker thread per model in `models` and in `large_models` (not owned; each outlives
  // the scheduler and is used by its worker only). Without `large_models` every worker runs
  // every request. With them, requests marked Job::large run only on those workers, which run
  // at the lowest CPU priority (LowerThisThreadsPriority), and the others only on `models`'
  // workers. `clock` and `observer` (may be null) are not owned.
  Scheduler(const SchedulerOptions& options, const std::vector<model::Summarizer*>& models,
            Clock* clock, SchedulerObserver* observer,
            const std::vector<model::Summarizer*>& large_models = {});
  ~Scheduler();  // Shutdown(ZeroDuration()) if not shut down yet
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Queues `job`. Never blocks. On OK, job.done runs exactly once later. Returns, without
  // calling done: Unavailable while shutting down; ResourceExhausted if the request or cost cap
  // is full (the message says which, and the wait to expect); DeadlineExceeded if the deadline
  // has passed or cannot be met given the queue ahead. Thread-safe.
  absl::Status Submit(Job job);

  // The checks Submit makes that do not depend on the job: Unavailable while shutting down;
  // ResourceExhausted when the request cap is full or the predicted wait (of the small
  // requests' lane: the request is not prepared yet) already exceeds max_queue_wait. The service
  // asks before it prepares a request, so that shedding under overload costs no preparation;
  // Submit checks again, in the request's lane. Never blocks. Thread-safe.
  absl::Status Precheck() const;

  // Predicted wait in the queue of a request's lane (`large`: Job::large) right now: the lane's
  // queued cost plus the predicted remainder of its running batches, over its workers (zero if
  // speed unknown). Without large-document workers there is one lane.
  absl::Duration PredictedQueueWait(bool large = false) const;
  // Predicted model time of one request alone.
  absl::Duration PredictedInference(int64_t cost) const;

  // Stops accepting work, lets queued and running work finish for up to `grace`, then fails
  // what is still queued with Unavailable and joins the workers. Idempotent. Thread-safe.
  void Shutdown(absl::Duration grace);

  int queued_requests() const;
  int64_t queued_cost() const;
  int64_t queued_memory() const;
  int running_requests() const;

 private:
  struct Entry {
    Job job;
    uint64_t seq;
    absl::Time enqueued;
  };
  // Which requests a worker runs.
  enum class Lane { kAll, kSmall, kLarge };
  struct Running {
    absl::Time end;  // predicted
    bool large;
  };
  static bool InLane(bool large, Lane lane) {
    return lane == Lane::kAll || large == (lane == Lane::kLarge);
  }
  // The lane whose queue a request of kind `large` waits in.
  Lane LaneOf(bool large) const {
    return large_workers_ == 0 ? Lane::kAll : (large ? Lane::kLarge : Lane::kSmall);
  }
  void WorkerLoop(model::Summarizer* model, Lane lane);
  // Drops expired and cancelled requests into *dropped, then picks the next batch of `lane`, or
  // returns an empty one and sets *wait_until (InfiniteFuture: nothing of the lane is queued).
  std::vector<Entry> TakeBatch(absl::Time now, Lane lane, absl::Time* wait_until,
                               std::vector<Entry>* dropped) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs `batch` (number `batch_id`) and answers its requests. The batch stops counting as
  // running work for the wait prediction before the first answer goes out, so a client that
  // sends its next request on an answer never sees its own finished batch ahead of it.
  void RunBatch(model::Summarizer* model, std::vector<Entry> batch, uint64_t batch_id, Lane lane);
  // Whether small requests are about (SchedulerOptions::large_threads_beside_small).
  bool SmallRequestsAbout() const;
  void Notify() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Duration PredictedWaitLocked(absl::Time now, Lane lane) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The request-cap and max_queue_wait refusals, given the predicted wait.
  absl::Status CapacityLocked(absl::Duration wait) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // Constant after construction.
  const SchedulerOptions options_;
  Clock* const clock_;
  SchedulerObserver* const observer_;
  std::vector<std::thread> workers_;
  int small_workers_ = 0;  // workers of `models`
  int large_workers_ = 0;  // workers of `large_models`

  mutable Mutex mu_;
  CondVar cv_{&mu_};
  std::vector<Entry> queue_ ABSL_GUARDED_BY(mu_);
  int64_t queued_cost_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t queued_memory_ ABSL_GUARDED_BY(mu_) = 0;
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  // Each running batch, by batch number (for the wait prediction).
  std::map<uint64_t, Running> running_ends_ ABSL_GUARDED_BY(mu_);
  uint64_t next_batch_ ABSL_GUARDED_BY(mu_) = 0;
  uint64_t next_seq_ ABSL_GUARDED_BY(mu_) = 0;
  bool accepting_ ABSL_GUARDED_BY(mu_) = true;
  bool stop_ ABSL_GUARDED_BY(mu_) = false;       // workers exit when the queue is empty
  bool drain_now_ ABSL_GUARDED_BY(mu_) = false;  // dispatch without waiting for delay
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  absl::Time small_finished_ ABSL_GUARDED_BY(mu_) = absl::InfinitePast();  // the last one
};

}  // namespace rpsum::server

#endif  // RPSUM_SERVER_SCHEDULER_SCHEDULER_H_
