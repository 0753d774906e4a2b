#pragma once

#include <filesystem>
#include <memory>
#include <mutex>

#include "core/result.h"
#include "store/request_log_reader.h"
#include "store/request_log_sql.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// Runs the readers' queries on `db` (which must outlive the runner).
RowRunner sqliteRows(SqliteDb& db);

/// The request log in `<state_dir>/llmux.db`, read back on a connection of its own that never
/// writes (`query_only`): WAL lets it read while the request log's writer writes. Each call
/// reads one snapshot. Thread-safe (one mutex around the connection); never call it on an I/O
/// thread.
class SqliteRequestLogReader final : public RequestLogReader {
 public:
  /// Opens the database the SqliteStore created and migrated (start-up only).
  static Result<std::unique_ptr<SqliteRequestLogReader>> open(std::filesystem::path const& database);

  Result<RequestPage> search(RequestSearch const& search) override;
  Result<std::optional<LoggedRequest>> get(std::string_view request_id) override;
  Result<UsageReport> usage(UsageQuery const& query) override;

 private:
  explicit SqliteRequestLogReader(SqliteDb db) : db_(std::move(db)) {}

  /// `read` inside one read transaction, so requests and their attempts agree.
  template <class Read>
  auto inSnapshot(Read&& read) -> decltype(read());

  std::mutex mutex_;
  SqliteDb db_;
};

}  // namespace llmux::store
