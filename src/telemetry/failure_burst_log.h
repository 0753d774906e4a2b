#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"

namespace llmux::telemetry {

/// Logs the failures of one background activity (a writer thread) without a line per failure: a
/// full disk fails every write, and a line each would bury the log and cost more I/O.
///
/// The first failure of a burst is logged at once (error level) with its error. Later ones are
/// counted and summarised by at most one line per `summary_interval`, written when a failure
/// comes after the interval has passed. The first success after failures ends the burst with
/// one line saying how many failed. Counts belong in metrics too: a burst that ends in silence
/// (no more writes) leaves its last failures unsummarised until the next write.
///
/// Not thread-safe: one owner thread, which passes its clock's time (tests need no sleeping).
class FailureBurstLog {
 public:
  /// `what` names the activity in every line, e.g. "request log write".
  FailureBurstLog(std::string what, MonoClock::duration summary_interval);

  /// One failure at `now`; `error` must hold no secret.
  void failed(MonoTime now, std::string_view error);
  /// One success; ends a burst of failures with one line.
  void succeeded();

  /// Failures of the current burst (0 when the last attempt succeeded).
  std::uint64_t burstFailures() const { return burst_failures_; }

 private:
  std::string what_;
  MonoClock::duration summary_interval_;
  std::uint64_t burst_failures_ = 0;
  std::uint64_t unreported_ = 0;  ///< failures since the last line
  MonoTime last_line_{};
  std::string last_error_;
};

}  // namespace llmux::telemetry
