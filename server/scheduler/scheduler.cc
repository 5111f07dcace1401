#include "server/scheduler/scheduler.h"

#include <algorithm>
#include <exception>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/status_macros.h"
#include "base/thread_pool.h"

namespace rpsum::server {
namespace {

// Real time a waiting worker sleeps at most before it looks at the clock again (the clock may
// be a test's fake clock, which moves without notifying anybody).
constexpr absl::Duration kPoll = absl::Milliseconds(2);

int64_t Tokens(const Job& j) { return j.doc != nullptr ? j.doc->num_tokens() : 0; }

}  // namespace

Scheduler::Scheduler(const SchedulerOptions& options, const std::vector<model::Summarizer*>& models,
                     Clock* clock, SchedulerObserver* observer,
                     const std::vector<model::Summarizer*>& large_models)
    : options_(options),
      clock_(clock),
      observer_(observer),
      small_workers_(static_cast<int>(models.size())),
      large_workers_(static_cast<int>(large_models.size())) {
  const Lane small = large_models.empty() ? Lane::kAll : Lane::kSmall;
  for (model::Summarizer* m : models) {
    workers_.emplace_back([this, m, small] { WorkerLoop(m, small); });
  }
  for (model::Summarizer* m : large_models) {
    workers_.emplace_back([this, m] {
      LowerThisThreadsPriority();
      WorkerLoop(m, Lane::kLarge);
    });
  }
}

Scheduler::~Scheduler() { Shutdown(absl::ZeroDuration()); }

void Scheduler::Notify() {
  if (observer_ != nullptr) {
    observer_->OnQueueChanged(static_cast<int>(queue_.size()), queued_cost_);
  }
  cv_.SignalAll();
}

absl::Duration Scheduler::PredictedInference(int64_t cost) const {
  return absl::Seconds(options_.seconds_per_cost * static_cast<double>(cost));
}

absl::Duration Scheduler::PredictedWaitLocked(absl::Time now, Lane lane) const {
  absl::Duration running = absl::ZeroDuration();
  for (const auto& [batch, r] : running_ends_) {
    if (InLane(r.large, lane)) {
      running += std::max(r.end - now, absl::ZeroDuration());
    }
  }
  int64_t cost = queued_cost_;
  if (lane != Lane::kAll) {
    cost = 0;
    for (const Entry& e : queue_) {
      if (InLane(e.job.large, lane)) cost += e.job.cost;
    }
  }
  const int workers = lane == Lane::kAll     ? small_workers_ + large_workers_
                      : lane == Lane::kLarge ? large_workers_
                                             : small_workers_;
  return (running + absl::Seconds(options_.seconds_per_cost * static_cast<double>(cost))) /
         std::max(workers, 1);
}

absl::Duration Scheduler::PredictedQueueWait(bool large) const {
  MutexLock lock(&mu_);
  return PredictedWaitLocked(clock_->Now(), LaneOf(large));
}

absl::Status Scheduler::CapacityLocked(absl::Duration wait) const {
  if (static_cast<int>(queue_.size()) >= options_.max_queue_requests) {
    return absl::ResourceExhaustedError(
        absl::StrCat("queue full: ", queue_.size(), " requests queued (max_queue_requests ",
                     options_.max_queue_requests, "); retry in about ",
                     absl::ToInt64Milliseconds(wait) + 1, " ms"));
  }
  if (options_.seconds_per_cost > 0 && options_.max_queue_wait > absl::ZeroDuration() &&
      wait > options_.max_queue_wait) {
    return absl::ResourceExhaustedError(
        absl::StrCat("overloaded: the queued work takes about ", absl::ToInt64Milliseconds(wait),
                     " ms (max_queue_wait ", absl::ToInt64Milliseconds(options_.max_queue_wait),
                     " ms); retry in about ",
                     absl::ToInt64Milliseconds(wait - options_.max_queue_wait) + 1, " ms"));
  }
  return absl::OkStatus();
}

absl::Status Scheduler::Precheck() const {
  MutexLock lock(&mu_);
  if (!accepting_) {
    return absl::UnavailableError("the server is shutting down; retry on another replica");
  }
  return CapacityLocked(PredictedWaitLocked(clock_->Now(), LaneOf(false)));
}

absl::Status Scheduler::Submit(Job job) {
  MutexLock lock(&mu_);
  if (!accepting_) {
    return absl::UnavailableError("the server is shutting down; retry on another replica");
  }
  const absl::Time now = clock_->Now();
  if (job.deadline <= now) {
    return absl::DeadlineExceededError("the deadline passed before the request was queued");
  }
  const absl::Duration wait = PredictedWaitLocked(now, LaneOf(job.large));
  RPSUM_RETURN_IF_ERROR(CapacityLocked(wait));
  if (!queue_.empty() && queued_cost_ + job.cost > options_.max_queue_cost) {
    return absl::ResourceExhaustedError(
        absl::StrCat("queue full: ", queued_cost_, " cost units queued, this request needs ",
                     job.cost, " (max_queue_cost ", options_.max_queue_cost, "); retry in about ",
                     absl::ToInt64Milliseconds(wait) + 1, " ms"));
  }
  if (!queue_.empty() && queued_memory_ + job.memory > options_.max_queue_memory) {
    return absl::ResourceExhaustedError(
        absl::StrCat("queue full: its documents hold ", queued_memory_, " bytes, this request ",
                     job.memory, " (max_queue_memory_bytes ", options_.max_queue_memory,
                     "); retry in about ", absl::ToInt64Milliseconds(wait) + 1, " ms"));
  }
  if (options_.seconds_per_cost > 0 && job.deadline != absl::InfiniteFuture()) {
    const absl::Duration predicted = wait + PredictedInference(job.cost);
    if (now + predicted > job.deadline) {
      return absl::DeadlineExceededError(
          absl::StrCat("cannot finish before the deadline: predicted ",
                       absl::ToInt64Milliseconds(predicted), " ms (queue and model), deadline in ",
                       absl::ToInt64Milliseconds(job.deadline - now), " ms"));
    }
  }
  queued_cost_ += job.cost;
  queued_memory_ += job.memory;
  queue_.push_back(Entry{std::move(job), next_seq_++, now});
  Notify();
  return absl::OkStatus();
}

std::vector<Scheduler::Entry> Scheduler::TakeBatch(absl::Time now, Lane lane,
                                                   absl::Time* wait_until,
                                                   std::vector<Entry>* dropped) {
  *wait_until = absl::InfiniteFuture();
  // Expired and cancelled requests never run.
  for (auto it = queue_.begin(); it != queue_.end();) {
    const bool cancelled = it->job.cancelled && it->job.cancelled();
    if (cancelled || it->job.deadline <= now) {
      queued_cost_ -= it->job.cost;
      queued_memory_ -= it->job.memory;
      dropped->push_back(std::move(*it));
      it = queue_.erase(it);
    } else {
      ++it;
    }
  }
  std::vector<size_t> order;
  for (size_t i = 0; i < queue_.size(); ++i) {
    if (InLane(queue_[i].job.large, lane)) order.push_back(i);
  }
  if (order.empty()) return {};
  auto before = [](const Entry& a, const Entry& b) {
    if (a.job.priority != b.job.priority) return a.job.priority > b.job.priority;
    if (a.job.deadline != b.job.deadline) return a.job.deadline < b.job.deadline;
    return a.seq < b.seq;
  };
  std::sort(order.begin(), order.end(),
            [&](size_t a, size_t b) { return before(queue_[a], queue_[b]); });
  const Entry& head = queue_[order[0]];
  const double head_tokens = std::max<int64_t>(Tokens(head.job), 1);
  std::vector<size_t> members;
  int64_t max_cost = 0;
  bool full = false;
  for (size_t i : order) {
    const Entry& e = queue_[i];
    if (e.job.k != head.job.k) continue;
    const double t = std::max<int64_t>(Tokens(e.job), 1);
    if (std::max(t, head_tokens) / std::min(t, head_tokens) > options_.max_length_ratio) continue;
    if (static_cast<int>(members.size()) >= options_.max_batch_size) {
      full = true;
      break;
    }
    const int64_t cost = std::max(max_cost, e.job.cost);
    if (!members.empty() &&
        cost * static_cast<int64_t>(members.size() + 1) > options_.max_batch_cost) {
      full = true;
      break;
    }
    members.push_back(i);
    max_cost = cost;
  }
  if (static_cast<int>(members.size()) >= options_.max_batch_size) full = true;
  absl::Time oldest = absl::InfiniteFuture();
  for (size_t i : members) oldest = std::min(oldest, queue_[i].enqueued);
  if (!full && !drain_now_ && now - oldest < options_.max_queue_delay) {
    *wait_until = oldest + options_.max_queue_delay;
    return {};
  }
  std::vector<Entry> batch;
  std::sort(members.begin(), members.end());
  for (auto it = members.rbegin(); it != members.rend(); ++it) {
    queued_cost_ -= queue_[*it].job.cost;
    queued_memory_ -= queue_[*it].job.memory;
    batch.push_back(std::move(queue_[*it]));
    queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(*it));
  }
  std::reverse(batch.begin(), batch.end());
  running_ += static_cast<int>(batch.size());
  return batch;
}

void Scheduler::WorkerLoop(model::Summarizer* model, Lane lane) {
  while (true) {
    std::vector<Entry> batch, dropped;
    mu_.Lock();
    while (true) {
      if (stop_ && queue_.empty()) {
        mu_.Unlock();
        return;
      }
      const absl::Time now = clock_->Now();
      absl::Time wait_until;
      batch = TakeBatch(now, lane, &wait_until, &dropped);
      if (!batch.empty() || !dropped.empty()) break;
      if (queue_.empty() || wait_until == absl::InfiniteFuture()) {
        cv_.Wait();
      } else {
        cv_.WaitFor(absl::ToChronoNanoseconds(std::min(wait_until - now, kPoll)));
      }
    }
    uint64_t batch_id = 0;
    if (!batch.empty()) {
      int64_t cost = 0;
      for (const Entry& e : batch) cost += e.job.cost;
      batch_id = next_batch_++;
      running_ends_[batch_id] = Running{
          clock_->Now() + absl::Seconds(options_.seconds_per_cost * static_cast<double>(cost)),
          lane == Lane::kLarge};
    }
    Notify();
    if (observer_ != nullptr) observer_->OnRunningChanged(running_);
    mu_.Unlock();
    for (Entry& e : dropped) {
      const bool cancelled = e.job.cancelled && e.job.cancelled();
      const absl::Status s =
          cancelled
              ? absl::CancelledError("the client cancelled the request while it was queued")
              : absl::DeadlineExceededError("the deadline passed while the request was queued");
      if (observer_ != nullptr) observer_->OnDropped(s.code());
      e.job.done(s, BatchInfo{});
    }
    if (!batch.empty()) {
      const int n = static_cast<int>(batch.size());
      RunBatch(model, std::move(batch), batch_id, lane);
      MutexLock lock(&mu_);
      running_ -= n;
      running_ends_.erase(batch_id);
      if (observer_ != nullptr) observer_->OnRunningChanged(running_);
      cv_.SignalAll();
    }
  }
}

bool Scheduler::SmallRequestsAbout() const {
  MutexLock lock(&mu_);
  if (clock_->Now() - small_finished_ < options_.small_request_linger) return true;
  for (const auto& [id, r] : running_ends_) {
    if (!r.large) return true;
  }
  return std::any_of(queue_.begin(), queue_.end(),
                     [&](const Entry& e) { return InLane(e.job.large, Lane::kSmall); });
}

void Scheduler::RunBatch(model::Summarizer* model, std::vector<Entry> batch, uint64_t batch_id,
                         Lane lane) {
  BatchInfo info;
  info.size = static_cast<int>(batch.size());
  info.k = batch.front().job.k;
  std::vector<const model::PreparedDocument*> docs;
  int64_t longest = 0, total = 0;
  const absl::Time start = clock_->Now();
  for (const Entry& e : batch) {
    docs.push_back(e.job.doc);
    longest = std::max(longest, Tokens(e.job));
    total += Tokens(e.job);
    if (observer_ != nullptr) observer_->OnQueueWait(start - e.enqueued);
  }
  const int64_t padded = longest * info.size;
  info.padding_ratio = padded > 0 ? static_cast<double>(padded - total) / padded : 0;
  absl::StatusOr<std::vector<model::DocumentScores>> scores;
  try {
    // A long document's forward stops between stretches once no one waits for the batch.
    model::ScoreControl control;
    control.stop = [this, &batch] {
      const absl::Time now = clock_->Now();
      return std::all_of(batch.begin(), batch.end(), [&](const Entry& e) {
        return e.job.deadline <= now || (e.job.cancelled && e.job.cancelled());
      });
    };
    if (lane == Lane::kLarge && options_.large_threads_beside_small > 0) {
      control.threads = [this] {
        return SmallRequestsAbout() ? options_.large_threads_beside_small : 0;
      };
    }
    scores = model->Score(docs, info.k, control);
  } catch (const std::exception& e) {
    scores = absl::InternalError(absl::StrCat("model failure: ", e.what()));
  } catch (...) {
    scores = absl::InternalError("model failure: unknown exception");
  }
  info.inference = clock_->Now() - start;
  if (!scores.ok() && scores.status().code() == absl::StatusCode::kResourceExhausted &&
      batch.size() > 1) {
    // Out of memory: split the batch in halves and run each; never fail the others for it.
    if (observer_ != nullptr) observer_->OnOomSplit();
    std::vector<Entry> second(std::make_move_iterator(batch.begin() + info.size / 2),
                              std::make_move_iterator(batch.end()));
    batch.resize(info.size / 2);
    RunBatch(model, std::move(batch), batch_id, lane);
    RunBatch(model, std::move(second), batch_id, lane);
    return;
  }
  if (scores.ok() && scores->size() != batch.size()) {
    scores = absl::InternalError("model returned scores for a different number of documents");
  }
  if (observer_ != nullptr) observer_->OnBatch(info);
  {
    MutexLock lock(&mu_);
    running_ends_.erase(batch_id);
    if (lane == Lane::kSmall) small_finished_ = clock_->Now();
  }
  for (size_t i = 0; i < batch.size(); ++i) {
    BatchInfo mine = info;
    mine.queue_wait = start - batch[i].enqueued;
    if (scores.ok()) {
      batch[i].job.done(std::move((*scores)[i]), mine);
    } else {
      batch[i].job.done(scores.status(), mine);
    }
  }
}

void Scheduler::Shutdown(absl::Duration grace) {
  std::vector<Entry> rest;
  {
    MutexLock lock(&mu_);
    if (shut_down_) return;
    shut_down_ = true;
    accepting_ = false;
    drain_now_ = true;
    cv_.SignalAll();
    const absl::Time until = clock_->Now() + grace;
    while ((!queue_.empty() || running_ > 0) && clock_->Now() < until) {
      cv_.WaitFor(absl::ToChronoNanoseconds(std::min(until - clock_->Now(), kPoll)));
    }
    rest.swap(queue_);
    queued_cost_ = 0;
    queued_memory_ = 0;
    stop_ = true;
    Notify();
  }
  for (Entry& e : rest) {
    if (observer_ != nullptr) observer_->OnDropped(absl::StatusCode::kUnavailable);
    e.job.done(absl::UnavailableError("the server shut down before the request could run; retry "
                                      "on another replica"),
               BatchInfo{});
  }
  for (std::thread& t : workers_) {
    if (t.joinable()) t.join();
  }
}

int Scheduler::queued_requests() const {
  MutexLock lock(&mu_);
  return static_cast<int>(queue_.size());
}

int64_t Scheduler::queued_cost() const {
  MutexLock lock(&mu_);
  return queued_cost_;
}

int64_t Scheduler::queued_memory() const {
  MutexLock lock(&mu_);
  return queued_memory_;
}

int Scheduler::running_requests() const {
  MutexLock lock(&mu_);
  return running_;
}

}  // namespace rpsum::server
