#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "core/request_record.h"
#include "core/result.h"

namespace llmux::telemetry {

/// Appends the access-log line of `record` (one JSON object and '\n'). Fields: request_id, time
/// (started_at, RFC 3339 UTC with ms), route, protocol, gateway_key (the key's name), client
/// (the detected calling client), model,
/// stream, channel, key_label, attempts (count), attempt_list ([{channel, key_label, status,
/// outcome, first_byte_ms}]), status, error, first_byte_ms, total_ms, overhead_ms, bytes_in,
/// bytes_out. Strings are always strings ("" when unknown); a duration that never happened
/// (first_byte_ms < 0) is null; durations are rounded to the microsecond.
void appendAccessLine(std::string& out, RequestRecord const& record);
std::string formatAccessLine(RequestRecord const& record);

/// Tuning of the access log's buffering.
struct AccessLogOptions {
  /// Pending lines are written at least this often.
  std::chrono::milliseconds flush_interval{100};
  /// Pending bytes that wake the writer at once.
  std::size_t flush_bytes = 64 * 1024;
  /// Pending bytes past which new lines are dropped (and counted) rather than grow memory without
  /// bound while the destination is stuck (a full disk, a stopped pipe reader).
  std::size_t max_pending_bytes = 16 * 1024 * 1024;
};

/// One JSON line per finished request, to stdout, stderr or a file.
///
/// Request threads only format the line and append it to an in-memory buffer under a mutex held
/// for a memcpy; a background thread swaps the buffer out and writes it with write(2) every
/// `flush_interval`, as soon as `flush_bytes` are pending, or on `flush()`. A slow destination
/// therefore never blocks a request thread; past `max_pending_bytes` lines are dropped and counted
/// in `droppedLines()` (export it as llmux_log_records_dropped_total{sink="access_log"}).
class AccessLog {
 public:
  /// `destination`: "stdout", "stderr", "off" or a file path (created if missing, appended to).
  /// Fails when the file cannot be opened. Start-up only.
  static Result<std::unique_ptr<AccessLog>> open(std::string_view destination,
                                                 AccessLogOptions options = {});
  /// Writes what is pending, then stops the background thread.
  ~AccessLog();
  AccessLog(AccessLog const&) = delete;
  AccessLog& operator=(AccessLog const&) = delete;

  /// False for "off": `write` then costs nothing.
  bool enabled() const { return enabled_; }

  /// Queues the line of `record`. Never blocks on I/O.
  void write(RequestRecord const& record);

  /// Returns once every line queued before the call has been handed to the operating system.
  void flush();

  /// Reopens a file destination (after log rotation moved it away); no-op for stdout/stderr/off.
  Result<void> reopen();

  std::uint64_t droppedLines() const { return dropped_.load(std::memory_order_relaxed); }
  /// write(2) failures; the bytes of a failed write are lost.
  std::uint64_t writeErrors() const { return write_errors_.load(std::memory_order_relaxed); }

 private:
  AccessLog(int fd, bool owns_fd, std::string path, AccessLogOptions options);
  void run();
  void writeAll(std::string_view data);

  AccessLogOptions options_;
  std::string path_;  ///< file destinations only
  bool owns_fd_;
  bool enabled_;

  std::mutex io_mutex_;  ///< guards fd_ against reopen()
  int fd_;

  std::mutex mutex_;
  std::condition_variable wake_;     ///< the writer waits here
  std::condition_variable flushed_;  ///< flush() waits here
  std::string pending_;
  std::uint64_t appended_ = 0;  ///< bytes ever queued
  std::uint64_t handled_ = 0;   ///< bytes ever written (or lost to an error)
  bool flush_requested_ = false;
  bool stopping_ = false;

  std::atomic<std::uint64_t> dropped_{0};
  std::atomic<std::uint64_t> write_errors_{0};
  std::thread thread_;
};

}  // namespace llmux::telemetry
