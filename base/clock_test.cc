#include "base/clock.h"

#include <atomic>
#include <thread>

#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace rpsum {
namespace {

TEST(FakeClock, AdvanceMovesTime) {
  FakeClock clock;
  const absl::Time t0 = clock.Now();
  clock.Advance(absl::Milliseconds(5));
  EXPECT_EQ(clock.Now() - t0, absl::Milliseconds(5));
  clock.Advance(-absl::Seconds(1));  // time never goes back
  EXPECT_EQ(clock.Now() - t0, absl::Milliseconds(5));
}

TEST(FakeClock, SleepWakesOnlyWhenTimeHasCome) {
  FakeClock clock;
  std::atomic<bool> woke{false};
  std::thread sleeper([&] {
    clock.SleepFor(absl::Seconds(10));
    woke = true;
  });
  while (clock.Sleepers() == 0) absl::SleepFor(absl::Milliseconds(1));
  clock.Advance(absl::Seconds(9));
  absl::SleepFor(absl::Milliseconds(20));
  EXPECT_FALSE(woke.load());
  clock.Advance(absl::Seconds(1));
  sleeper.join();
  EXPECT_TRUE(woke.load());
}

TEST(RealClock, IsMonotonicEnough) {
  Clock* clock = Clock::Real();
  const absl::Time a = clock->Now();
  clock->SleepFor(absl::Milliseconds(1));
  EXPECT_GE(clock->Now() - a, absl::Milliseconds(1));
}

}  // namespace
}  // namespace rpsum
