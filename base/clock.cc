#include "base/clock.h"

namespace rpsum {
namespace {

class RealClock : public Clock {
 public:
  absl::Time Now() override { return absl::Now(); }
  void SleepFor(absl::Duration d) override { absl::SleepFor(d); }
};

}  // namespace

Clock* Clock::Real() {
  static Clock* const kClock = new RealClock();
  return kClock;
}

FakeClock::FakeClock(absl::Time start) : now_(start) {}

absl::Time FakeClock::Now() {
  MutexLock lock(&mu_);
  return now_;
}

void FakeClock::SleepFor(absl::Duration d) {
  MutexLock lock(&mu_);
  const absl::Time wake = now_ + d;
  ++sleepers_;
  while (now_ < wake) cv_.Wait();
  --sleepers_;
}

int FakeClock::Sleepers() {
  MutexLock lock(&mu_);
  return sleepers_;
}

void FakeClock::Advance(absl::Duration d) {
  {
    MutexLock lock(&mu_);
    if (d > absl::ZeroDuration()) now_ += d;
  }
  cv_.SignalAll();
}

}  // namespace rpsum
