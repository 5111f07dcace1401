#include "base/thread_pool.h"

#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <utility>

namespace rpsum {

ThreadPool::ThreadPool(int threads, int max_queue) : max_queue_(max_queue) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Loop(); });
}

ThreadPool::~ThreadPool() {
  {
    MutexLock lock(&mu_);
    stop_ = true;
  }
  cv_.SignalAll();
  for (auto& t : threads_) t.join();
}

bool ThreadPool::Schedule(std::function<void()> task) {
  {
    MutexLock lock(&mu_);
    if (stop_ || static_cast<int>(tasks_.size()) >= max_queue_) return false;
    tasks_.push_back(std::move(task));
  }
  cv_.Signal();
  return true;
}

int ThreadPool::queued() const {
  MutexLock lock(&mu_);
  return static_cast<int>(tasks_.size());
}

void ThreadPool::Loop() {
  while (true) {
    std::function<void()> task;
    {
      MutexLock lock(&mu_);
      while (tasks_.empty() && !stop_) cv_.Wait();
      if (tasks_.empty()) return;
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task();
  }
}

void LowerThisThreadsPriority() {
  thread_local bool lowered = false;
  if (lowered) return;
  lowered = true;
  setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 19);
  sched_param p{};
  sched_setscheduler(static_cast<pid_t>(syscall(SYS_gettid)), SCHED_IDLE, &p);
}

}  // namespace rpsum
