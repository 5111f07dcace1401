// Injected time (after LevelDB's Env): code that waits or measures takes a Clock*, so tests of
// delays and deadlines run on FakeClock, deterministically and in microseconds of real time.
#ifndef RPSUM_BASE_CLOCK_H_
#define RPSUM_BASE_CLOCK_H_

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "base/mutex.h"

namespace rpsum {

class Clock {
 public:
  virtual ~Clock() = default;
  // The current time.
  virtual absl::Time Now() = 0;
  // Blocks the calling thread for `d` of this clock's time.
  virtual void SleepFor(absl::Duration d) = 0;

  // The process-wide real clock. Never destroyed. Thread-safe.
  static Clock* Real();
};

// A clock that moves only when told to. SleepFor blocks until another thread advances the
// clock past the wake-up time. Thread-safe.
class FakeClock : public Clock {
 public:
  explicit FakeClock(absl::Time start = absl::UnixEpoch() + absl::Hours(24));
  absl::Time Now() override;
  void SleepFor(absl::Duration d) override;
  // Moves time forward by `d` (>= 0) and wakes sleepers whose time has come.
  void Advance(absl::Duration d);
  // Threads blocked in SleepFor right now (lets tests advance only once a sleeper waits).
  int Sleepers();

 private:
  Mutex mu_;
  CondVar cv_{&mu_};
  absl::Time now_ ABSL_GUARDED_BY(mu_);
  int sleepers_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace rpsum

#endif  // RPSUM_BASE_CLOCK_H_
