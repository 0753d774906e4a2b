#pragma once

#include <cstddef>
#include <cstdint>

#include "core/request_record.h"

namespace llmux::store {

/// What a request log sink has done so far, for /metrics: counts kept in memory, so reading them
/// never touches the disk.
struct RequestLogStats {
  std::size_t queued = 0;            ///< records waiting for the writer
  std::uint64_t written = 0;         ///< records written (monotonic)
  std::uint64_t dropped = 0;         ///< records lost: refused by a full queue or in failed batches
  std::uint64_t failed_batches = 0;  ///< batches given up on after their retries
  std::uint64_t expired = 0;         ///< requests deleted by the retention (monotonic)
  /// Running rows of lapsed replicas this one closed as `interrupted` (monotonic).
  std::uint64_t interrupted = 0;
  /// Whether the store answered the writer's last call (an embedded one always does): false
  /// while PostgreSQL is unreachable and rows queue up.
  bool connected = true;
};

/// Where finished requests go for the request log (SQLite by default). Implementations are
/// thread-safe and never block the caller: `record` hands the record to a background writer, or
/// drops and counts it when the writer is too far behind.
class RequestLogSink {
 public:
  virtual ~RequestLogSink() = default;

  /// Queues one finished request (with its attempts) for writing. When it was opened
  /// (`record.log_handle`), its running row is completed.
  virtual void record(RequestRecord record) = 0;

  /// Real-time rows (docs/operations.md, "Request log"): an admitted request's row is written at
  /// once as `in_progress`, from `head` (what is known at admission). Returns the handle later
  /// calls name it by, to be kept in `record.log_handle`; 0 when this sink keeps no running rows.
  virtual std::uint64_t opened(RequestRecord const& head) {
    (void)head;
    return 0;
  }
  /// An attempt of an opened request (numbered from 1) started (its outcome pending) or ended.
  virtual void attemptChanged(std::uint64_t handle, int number, AttemptRecord const& attempt) {
    (void)handle;
    (void)number;
    (void)attempt;
  }

  /// Returns once every record queued before the call has been written (or given up on).
  /// For shutdown and tests; never call it on an I/O thread.
  virtual void flush() = 0;

  /// The counts so far; cheap, no I/O (a /metrics scrape copies them).
  virtual RequestLogStats stats() const = 0;
};

}  // namespace llmux::store
