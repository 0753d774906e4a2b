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
};

/// Where finished requests go for the request log (SQLite by default). Implementations are
/// thread-safe and never block the caller: `record` hands the record to a background writer, or
/// drops and counts it when the writer is too far behind.
class RequestLogSink {
 public:
  virtual ~RequestLogSink() = default;

  /// Queues one finished request (with its attempts) for writing.
  virtual void record(RequestRecord record) = 0;

  /// Returns once every record queued before the call has been written (or given up on).
  /// For shutdown and tests; never call it on an I/O thread.
  virtual void flush() = 0;

  /// The counts so far; cheap, no I/O (a /metrics scrape copies them).
  virtual RequestLogStats stats() const = 0;
};

}  // namespace llmux::store
