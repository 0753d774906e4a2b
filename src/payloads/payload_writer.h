#pragma once

// The payload writer: captured bodies go from requests onto a queue bounded by bytes, and a
// thread of its own sends them to ClickHouse in batches. Nothing on a request's path waits for
// ClickHouse: a full queue drops the request's rows (counted); a batch ClickHouse refuses or
// never answers is dropped (counted, logged once per burst), never retried. With a retention the
// same thread deletes the expired rows, at start and then every `expiry_interval`.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "payloads/clickhouse_http.h"
#include "payloads/payload_row.h"
#include "payloads/request_capture.h"
#include "telemetry/failure_burst_log.h"

namespace llmux::payloads {

struct PayloadWriterOptions {
  std::string database = "default";
  std::string table = "llmux_payloads";
  double sample = 1.0;                ///< share of requests captured
  std::size_t queue_bytes = 64u << 20;  ///< rows waiting beyond this are dropped
  std::size_t batch_bytes = 4u << 20;   ///< one INSERT carries about this much
  Millis flush_interval{500};           ///< rows wait at most this long for their batch
  Millis statement_timeout{5'000};      ///< one statement, connect to answer
  Millis shutdown_bound{2'000};         ///< what stop() gives the last batches
  /// Rows older than this many days are deleted (`retention.payloads_days`); 0: never.
  int retention_days = 0;
  Millis expiry_interval{3'600'000};  ///< between two deletions of expired rows (an hour)
};

/// Counts since the start, read by /metrics.
struct PayloadStats {
  std::uint64_t written = 0;          ///< rows ClickHouse took
  std::uint64_t dropped = 0;          ///< rows lost: a full queue, a failed batch, shutdown
  std::uint64_t batches_dropped = 0;  ///< batches ClickHouse did not take
  std::uint64_t expiry_failures = 0;  ///< deletions of expired rows ClickHouse did not take
  std::uint64_t queued_bytes = 0;
};

class PayloadWriter {
 public:
  PayloadWriter(std::unique_ptr<StatementTransport> transport, PayloadWriterOptions options,
                CaptureOptions capture);
  ~PayloadWriter();
  PayloadWriter(PayloadWriter const&) = delete;
  PayloadWriter& operator=(PayloadWriter const&) = delete;

  /// Whether this request is captured: decided once per request, without a lock.
  bool sampled() const;
  /// A capture for a sampled request.
  std::shared_ptr<RequestCapture> startCapture(std::string request_id, std::int64_t ts) const;

  /// A finished request's rows: queued in one short lock, or dropped (counted) when they do not
  /// fit. Never waits for ClickHouse.
  void submit(std::vector<PayloadRow> rows);

  PayloadStats stats() const;
  /// A reload's `retention.payloads_days` (0: stop deleting); applied at the next deletion.
  void setRetentionDays(int days);

  /// Reads one request's bodies back (ClickHouse's JSON format). Blocks for up to 5 s: call it
  /// on a thread of its own, never an I/O thread. The transport is shared, so a read still
  /// running at shutdown outlives the writer safely.
  std::function<Result<std::string>()> readBack(std::string_view request_id) const;
  /// Sends what is queued within `shutdown_bound`, drops (counts) the rest, ends the thread.
  void stop();

 private:
  void run();
  /// Deletes the expired rows when a retention is set and the interval has passed since the last
  /// try; a failure is counted and logged, and tried again at the next interval.
  void expireIfDue(MonoTime now);
  /// Creates the table when not done yet (again after a failed batch: the server may have come
  /// back empty).
  Result<std::string> ensureTable(Millis timeout);

  std::shared_ptr<StatementTransport> transport_;
  PayloadWriterOptions options_;
  std::shared_ptr<CaptureOptions const> capture_;
  std::uint64_t sample_threshold_;  ///< a request is captured when its draw is below this

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<PayloadRow> queue_;
  std::size_t queued_bytes_ = 0;
  bool stopping_ = false;

  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> batches_dropped_{0};
  std::atomic<std::uint64_t> expiry_failures_{0};
  std::atomic<int> retention_days_;
  bool table_ready_ = false;  ///< writer thread only
  MonoTime next_expiry_{};    ///< writer thread only; the first is due at start
  telemetry::FailureBurstLog expiry_log_{"deletion of expired payloads in ClickHouse",
                                         std::chrono::minutes(1)};  ///< writer thread only
  std::thread thread_;
};

}  // namespace llmux::payloads
