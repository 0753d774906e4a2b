#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/request_record.h"
#include "core/result.h"
#include "store/request_log.h"
#include "store/request_log_writer.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// Tuning of the SQLite store: its request log's writer.
using SqliteStoreOptions = RequestLogWriterOptions;

/// The embedded store: `<state_dir>/llmux.db`, SQLite in WAL mode.
///
/// The request log is written by a RequestLogWriter (queue, batches, retries, drop counting,
/// retention) whose backend owns a connection of its own and inserts each batch in one
/// transaction with prepared statements. A second connection, behind a mutex, serves settings
/// and queries; WAL lets it read while the writer writes. All methods are thread-safe. Never call
/// the synchronous ones (settings, queries, flush) on an I/O thread.
class SqliteStore final : public RequestLogSink {
 public:
  static constexpr std::string_view kFileName = "llmux.db";

  /// Creates `state_dir` if needed, opens or creates the database, applies schema migrations and
  /// starts the writer. Start-up only.
  static Result<std::unique_ptr<SqliteStore>> open(std::filesystem::path const& state_dir,
                                                   SqliteStoreOptions options = {});

  /// Writes every queued record, then stops the writer.
  ~SqliteStore() override = default;
  SqliteStore(SqliteStore const&) = delete;
  SqliteStore& operator=(SqliteStore const&) = delete;

  // --- request log (RequestLogSink) ---
  // (see RequestLogWriter)
  void record(RequestRecord record) override { log_.record(std::move(record)); }
  std::uint64_t opened(RequestRecord const& head) override { return log_.opened(head); }
  void attemptChanged(std::uint64_t handle, int number, AttemptRecord const& attempt) override {
    log_.attemptChanged(handle, number, attempt);
  }
  void flush() override { log_.flush(); }
  RequestLogStats stats() const override { return log_.stats(); }
  std::string lastWriteError() const { return log_.lastWriteError(); }
  void setRetention(std::chrono::days retention) { log_.setRetention(retention); }

  // --- settings: persistent key-value state, start-up use ---
  /// The stored value, or nullopt when `key` was never set. Throws std::runtime_error when the
  /// database cannot be read: at start-up a missing value must not be confused with a failure
  /// (the default gateway key would silently change).
  std::optional<std::string> getSetting(std::string_view key);
  /// Stores `value` under `key` (replacing it), durably before returning. Throws
  /// std::runtime_error on failure.
  void putSetting(std::string_view key, std::string_view value);

  // --- queries (tests, admin API) ---
  /// The `limit` most recently written requests, newest first, each with its attempts in order.
  Result<std::vector<RequestRecord>> recentRequests(std::size_t limit);

  std::filesystem::path const& databasePath() const { return path_; }

 private:
  SqliteStore(std::filesystem::path path, SqliteDb query,
              std::unique_ptr<RequestLogBackend> request_log, SqliteStoreOptions options);

  std::filesystem::path path_;

  std::mutex query_mutex_;
  SqliteDb
      query_db_;  ///< settings and queries (a second connection: WAL lets it read during writes)

  RequestLogWriter log_;  ///< last: its thread stops first
};

}  // namespace llmux::store
