#pragma once

#include <cstdint>

#include "core/request_record.h"

namespace llmux::store {

/// Where finished requests go for the request log (SQLite by default). Implementations are
/// thread-safe and never block the caller on I/O: `record` hands the record to a background
/// writer.
class RequestLogSink {
 public:
  virtual ~RequestLogSink() = default;

  /// Queues one finished request (with its attempts) for writing.
  virtual void record(RequestRecord record) = 0;

  /// Returns once every record queued before the call has been written (or given up on).
  /// For shutdown and tests; never call it on an I/O thread.
  virtual void flush() = 0;

  /// Records this sink could not keep so far (monotonic), for
  /// llmux_log_records_dropped_total{sink="request_log"}.
  virtual std::uint64_t droppedRecords() const { return 0; }
};

}  // namespace llmux::store
