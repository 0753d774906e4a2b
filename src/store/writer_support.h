#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "store/record_queue.h"
#include "telemetry/failure_burst_log.h"

// What the store's writer threads share. All of it runs on a writer thread, never on a request
// thread: it sleeps and logs.

namespace llmux::store {

/// Runs `write` (a callable returning Result<void>) and, while it fails, up to `retries` more
/// times after 10 ms, 100 ms, 1 s, ...: a busy database or a briefly full disk often recovers.
template <class Write>
Result<void> writeWithRetries(int retries, Write&& write) {
  auto delay = std::chrono::milliseconds(10);
  Result<void> written = write();
  for (int retry = 0; !written.ok() && retry < retries; ++retry) {
    std::this_thread::sleep_for(delay);
    delay *= 10;
    written = write();
  }
  return written;
}

/// Logs what a writer's queue dropped (full queue) once per burst. Producers only count their
/// drops; the writer thread looks at the count after each batch and logs here.
class QueueDropLog {
 public:
  /// `what` names the queue ("request log queue"), `items` what it holds ("record(s)").
  QueueDropLog(std::string what, std::string items, MonoClock::duration summary_interval)
      : log_(std::move(what), summary_interval), items_(std::move(items)) {}

  /// `dropped_total`: the queue's monotonic drop count now.
  void check(MonoTime now, std::uint64_t dropped_total) {
    if (dropped_total == seen_) {
      log_.succeeded();
      return;
    }
    log_.failed(now, std::to_string(dropped_total - seen_) + " " + items_ +
                         " dropped because it was full (the writer is behind)");
    seen_ = dropped_total;
  }

 private:
  telemetry::FailureBurstLog log_;
  std::string items_;
  std::uint64_t seen_ = 0;
};

/// How a writer of queued operations (freezes, racing) retries and logs.
struct OpWriterTuning {
  std::string what;  ///< names the writer in log lines ("freeze persistence")
  int write_retries = 3;
  std::chrono::seconds failure_log_interval{60};
};

/// The loop of a writer thread that makes queued operations one at a time, in order: each with
/// retries (`write(op)` returns Result<void>); one given up on is counted in `failed` and logged
/// once per burst, and what a full queue dropped is logged after each batch. Returns once the
/// queue is closed and drained.
template <class Op, class Write>
void runOpWriter(WriteQueue<Op>& queue, OpWriterTuning const& tuning, TimeSource const& clock,
                 std::atomic<std::uint64_t>& failed, Write&& write) {
  telemetry::FailureBurstLog failures(tuning.what, tuning.failure_log_interval);
  QueueDropLog drops(tuning.what + " queue", "write(s)", tuning.failure_log_interval);
  std::vector<Op> batch;
  while (queue.popBatch(batch)) {
    for (Op const& op : batch) {
      Result<void> written = writeWithRetries(tuning.write_retries, [&] { return write(op); });
      if (written.ok()) {
        failures.succeeded();
      } else {
        failed.fetch_add(1, std::memory_order_relaxed);
        failures.failed(clock.now(), written.error().message);
      }
    }
    drops.check(clock.now(), queue.dropped());
    queue.markDone(batch.size());
    batch.clear();
  }
}

}  // namespace llmux::store
