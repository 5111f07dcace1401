// A fixed pool of worker threads with a bounded queue, for CPU work off the gRPC threads
// (document preparation).
#ifndef RPSUM_BASE_THREAD_POOL_H_
#define RPSUM_BASE_THREAD_POOL_H_

#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "base/mutex.h"

namespace rpsum {

class ThreadPool {
 public:
  // Starts `threads` workers; at most `max_queue` tasks wait.
  ThreadPool(int threads, int max_queue);
  ~ThreadPool();  // runs what is queued, then joins
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // Queues `task`. Returns false, without queueing, if the queue is full or the pool stops.
  // Never blocks. Thread-safe.
  bool Schedule(std::function<void()> task);
  int queued() const;

 private:
  void Loop();
  std::vector<std::thread> threads_;
  const int max_queue_;
  mutable Mutex mu_;
  CondVar cv_{&mu_};
  std::deque<std::function<void()>> tasks_ ABSL_GUARDED_BY(mu_);
  bool stop_ ABSL_GUARDED_BY(mu_) = false;
};

// Lowers the calling thread to the lowest CPU priority (nice 19 and SCHED_IDLE), once per
// thread: the large-document lane's threads (preparation and inference) take the time the small
// documents leave on a machine with few cores. Threads it creates afterwards (an OpenMP team)
// inherit it.
void LowerThisThreadsPriority();

}  // namespace rpsum

#endif  // RPSUM_BASE_THREAD_POOL_H_
