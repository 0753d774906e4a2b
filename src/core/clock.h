#pragma once

#include <atomic>
#include <chrono>

namespace llmux {

using MonoClock = std::chrono::steady_clock;
using MonoTime = MonoClock::time_point;
using WallClock = std::chrono::system_clock;
using WallTime = WallClock::time_point;
using Millis = std::chrono::milliseconds;

/// Where time comes from. Breakers, cooldowns and limiters take a `TimeSource&` so tests run on a
/// manual clock and never sleep.
class TimeSource {
 public:
  virtual ~TimeSource() = default;
  virtual MonoTime now() const = 0;
  virtual WallTime wallNow() const = 0;
};

/// The real clocks.
class RealTimeSource final : public TimeSource {
 public:
  MonoTime now() const override { return MonoClock::now(); }
  WallTime wallNow() const override { return WallClock::now(); }
};

/// A clock that moves only when told to. Thread-safe.
class ManualTimeSource final : public TimeSource {
 public:
  MonoTime now() const override { return MonoTime(MonoClock::duration(mono_.load())); }
  WallTime wallNow() const override { return WallTime(WallClock::duration(wall_.load())); }
  void advance(MonoClock::duration d) {
    mono_ += d.count();
    wall_ += std::chrono::duration_cast<WallClock::duration>(d).count();
  }

 private:
  std::atomic<MonoClock::rep> mono_{1'000'000'000};
  std::atomic<WallClock::rep> wall_{
      std::chrono::duration_cast<WallClock::duration>(std::chrono::seconds(1'700'000'000)).count()};
};

/// Milliseconds between two instants, as a double (for logs and histograms).
inline double millisBetween(MonoTime from, MonoTime to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

}  // namespace llmux
