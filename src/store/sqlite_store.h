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

#include "core/request_record.h"
#include "core/result.h"
#include "store/record_queue.h"
#include "store/request_log.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// Tuning of the SQLite request log writer.
struct SqliteStoreOptions {
  /// Records queued before producers start waiting (see RecordQueue for the policy). At ~1 KiB a
  /// record this bounds the backlog to tens of MiB while covering minutes of a stalled disk.
  std::size_t queue_capacity = 65'536;
  /// Longest a producer waits for room in a full queue before the record is dropped and counted.
  std::chrono::milliseconds max_block{20};
  /// Most records written in one transaction.
  std::size_t batch_size = 512;
  /// How long the writer lets a batch fill before committing it: one commit per few
  /// milliseconds instead of one per request. Rows become visible to queries this much later;
  /// `flush()` does not wait for it.
  std::chrono::milliseconds linger{10};
  /// Further tries of a failed batch (after 10 ms, 100 ms, 1 s, ...) before its records are
  /// counted as dropped.
  int write_retries = 3;
};

/// The embedded store: `<state_dir>/llmux.db`, SQLite in WAL mode.
///
/// The request log is written by one background thread with its own connection: request threads
/// only push onto a RecordQueue; the writer takes up to `batch_size` records at a time (waiting up
/// to `linger` for a batch to fill) and inserts them and their attempts in one transaction with
/// prepared statements. A second
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
  void flush() override;
  /// Records refused by a full queue plus records of batches that failed every retry.
  std::uint64_t droppedRecords() const override;
  std::uint64_t writtenRecords() const { return written_.load(std::memory_order_relaxed); }
  std::size_t pendingRecords() const { return queue_.pending(); }
  /// The last write failure ("" when none): what an operator needs when drops appear.
  std::string lastWriteError() const;

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
  struct WriterStatements;

  SqliteStore(std::filesystem::path path, SqliteDb writer, SqliteDb query,
              SqliteStoreOptions options);
  void runWriter(std::unique_ptr<WriterStatements> statements);
  Result<void> writeBatch(WriterStatements& s, std::vector<RequestRecord> const& batch);

  std::filesystem::path path_;
  SqliteStoreOptions options_;

  SqliteDb writer_;  ///< used by the writer thread only

  std::mutex query_mutex_;
  SqliteDb
      query_db_;  ///< settings and queries (a second connection: WAL lets it read during writes)

  RecordQueue queue_;
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> failed_{0};
  mutable std::mutex error_mutex_;
  std::string last_error_;
  std::thread thread_;
};

}  // namespace llmux::store
