#include "telemetry/failure_burst_log.h"

#include <chrono>
#include <utility>

#include "telemetry/log.h"

namespace llmux::telemetry {

namespace {

long long wholeSeconds(MonoClock::duration d) {
  return std::chrono::duration_cast<std::chrono::seconds>(d).count();
}

}  // namespace

FailureBurstLog::FailureBurstLog(std::string what, MonoClock::duration summary_interval)
    : what_(std::move(what)), summary_interval_(summary_interval) {}

void FailureBurstLog::failed(MonoTime now, std::string_view error) {
  ++burst_failures_;
  last_error_ = error;
  if (burst_failures_ == 1) {
    logError("{} failed: {} (further failures are summarised at most every {} s)", what_, error,
             wholeSeconds(summary_interval_));
    last_line_ = now;
    return;
  }
  ++unreported_;
  if (now - last_line_ < summary_interval_) return;
  logError("{} failed {} more time(s) in the last {} s; last error: {}", what_, unreported_,
           wholeSeconds(now - last_line_), error);
  unreported_ = 0;
  last_line_ = now;
}

void FailureBurstLog::succeeded() {
  if (burst_failures_ == 0) return;
  logWarn("{} works again after {} failure(s); last error: {}", what_, burst_failures_,
          last_error_);
  burst_failures_ = 0;
  unreported_ = 0;
}

}  // namespace llmux::telemetry
