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
#include "store/record_queue.h"
#include "store/request_log.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// Tuning of the SQLite request log writer.
struct SqliteStoreOptions {
  /// Most records queued for the writer; beyond, a record is dropped and counted, never waited
  /// for (see WriteQueue). At ~1 KiB a record this bounds the backlog to tens of MiB while
  /// covering minutes of a stalled disk.
  std::size_t queue_capacity = 65'536;
  /// Most records written in one transaction.
  std::size_t batch_size = 512;
  /// How long the writer lets a batch fill before committing it: one commit per few
  /// milliseconds instead of one per request. Rows become visible to queries this much later;
  /// `flush()` does not wait for it.
  std::chrono::milliseconds linger{10};
  /// Further tries of a failed batch (after 10 ms, 100 ms, 1 s, ...) before its records are
  /// counted as dropped.
  int write_retries = 3;
  /// Where the writer's time comes from (retention schedule and cutoff, log pacing); nullptr:
  /// the real clocks. Must outlive the store.
  TimeSource const* clock = nullptr;
  /// Requests (with their attempts) that started longer ago than this are deleted; 0 keeps
  /// them forever (`log.request_log_retention_days`).
  std::chrono::days retention{30};
  /// How often the writer looks for expired rows; the first look is this long after opening.
  std::chrono::milliseconds retention_interval{std::chrono::minutes(5)};
  /// Most requests deleted per transaction. While a look finds more, the writer deletes the next
  /// chunk after each batch of inserts, so neither waits long for the other.
  std::size_t retention_chunk = 2000;
  /// While writes keep failing, at most one log line per this.
  std::chrono::seconds failure_log_interval{60};
};

/// The embedded store: `<state_dir>/llmux.db`, SQLite in WAL mode.
///
/// The request log is written by one background thread with its own connection: request threads
/// only push onto a RecordQueue (never waiting: a full queue drops and counts); the writer takes
/// up to `batch_size` records at a time (waiting up to `linger` for a batch to fill) and inserts
/// them and their attempts in one transaction with prepared statements. A batch that still fails
/// after its retries is counted (its records as dropped) and logged once per burst. The same
/// thread deletes rows older than the retention, in small chunks between batches. A second
/// connection, behind a mutex, serves settings and queries; WAL lets it read while the writer
/// writes. All methods are thread-safe. Never call the synchronous ones (settings, queries,
/// flush) on an I/O thread.
class SqliteStore final : public RequestLogSink {
 public:
  static constexpr std::string_view kFileName = "llmux.db";

  /// Creates `state_dir` if needed, opens or creates the database, applies schema migrations and
  /// starts the writer. Start-up only.
  static Result<std::unique_ptr<SqliteStore>> open(std::filesystem::path const& state_dir,
                                                   SqliteStoreOptions options = {});

  /// Writes every queued record, then stops the writer.
  ~SqliteStore() override;
  SqliteStore(SqliteStore const&) = delete;
  SqliteStore& operator=(SqliteStore const&) = delete;

  // --- request log (RequestLogSink) ---
  void record(RequestRecord record) override;
  /// Also waits for the retention chunk that was due when the last of those records was written.
  void flush() override;
  RequestLogStats stats() const override;
  /// The last write failure ("" when none): what an operator needs when drops appear.
  std::string lastWriteError() const;
  /// Replaces the retention (a configuration reload); 0 keeps requests forever. The writer uses
  /// it from its next look for expired rows on.
  void setRetention(std::chrono::days retention);

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
  struct WriterState;

  SqliteStore(std::filesystem::path path, SqliteDb writer, SqliteDb query,
              SqliteStoreOptions options);
  void runWriter(std::unique_ptr<WriterState> state);
  Result<void> writeBatch(WriterState& s, std::vector<RequestRecord> const& batch);
  /// One retention chunk if one is due; returns how long the writer may sleep until the next.
  std::chrono::milliseconds keepRetention(WriterState& s);

  std::filesystem::path path_;
  SqliteStoreOptions options_;
  RealTimeSource real_clock_;
  TimeSource const& clock_;  ///< options_.clock or real_clock_

  SqliteDb writer_;  ///< used by the writer thread only

  std::mutex query_mutex_;
  SqliteDb
      query_db_;  ///< settings and queries (a second connection: WAL lets it read during writes)

  RecordQueue queue_;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> failed_{0};  ///< records of failed batches
  std::atomic<std::uint64_t> failed_batches_{0};
  std::atomic<std::uint64_t> expired_{0};
  std::atomic<std::chrono::days::rep> retention_days_;
  mutable std::mutex error_mutex_;
  std::string last_error_;
  std::thread thread_;
};

}  // namespace llmux::store
