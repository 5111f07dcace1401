#include "base/thread_pool.h"

#include <atomic>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace rpsum {
namespace {

TEST(ThreadPool, RunsEveryTaskAndBoundsTheQueue) {
  std::atomic<int> ran{0};
  Mutex mu;
  bool open = false;
  {
    ThreadPool pool(1, 3);
    // The first task blocks the only worker until `open`.
    ASSERT_TRUE(pool.Schedule([&] {
      while (true) {
        {
          MutexLock lock(&mu);
          if (open) break;
        }
        absl::SleepFor(absl::Milliseconds(1));
      }
      ++ran;
    }));
    while (pool.queued() > 0) absl::SleepFor(absl::Milliseconds(1));
    for (int i = 0; i < 3; ++i) EXPECT_TRUE(pool.Schedule([&] { ++ran; }));
    EXPECT_FALSE(pool.Schedule([&] { ++ran; }));  // full
    MutexLock lock(&mu);
    open = true;
  }  // the destructor runs what is queued
  EXPECT_EQ(ran.load(), 4);
}

}  // namespace
}  // namespace rpsum
