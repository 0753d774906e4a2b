#pragma once

#include <memory>

#include "proxy/inspection_runner.h"

namespace boost::asio {
class io_context;
}

namespace llmux::proxy {

/// Runs every channel's inspection at its intervals, on one worker's event loop (its requests
/// are coroutines: no I/O thread ever waits for them). Each check's first run comes a few
/// seconds after start (or after a reload adds or changes it), then every interval with ±10 %
/// jitter so that replicas and channels spread out. The configuration in force is read at
/// each tick: a reload applies at once. One check at a time.
class InspectionScheduler {
 public:
  InspectionScheduler(boost::asio::io_context& io, InspectionRunner& runner, ConfigHolder& config);
  ~InspectionScheduler();
  InspectionScheduler(InspectionScheduler const&) = delete;
  InspectionScheduler& operator=(InspectionScheduler const&) = delete;

  /// Starts the loop on `io` (call before or after the loop runs).
  void start();
  /// Stops the loop from any thread: the check under way is cancelled; returns at once.
  void stop();

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace llmux::proxy
