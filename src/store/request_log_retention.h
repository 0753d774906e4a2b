#pragma once

#include <cstddef>

#include "core/clock.h"
#include "core/result.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// Deletes the request log's expired rows, a small chunk per transaction: each chunk holds the
/// write lock for a few milliseconds, so inserts between chunks never stall behind a long delete.
/// Requests are found through the `requests_started_at` index and their attempts by their primary
/// key, so a chunk reads only what it deletes. Used by the writer thread on its own connection.
class RequestLogRetention {
 public:
  /// Prepares the statements on `db`, which must outlive the result.
  static Result<RequestLogRetention> prepare(SqliteDb& db);

  /// Deletes at most `limit` requests that started before `cutoff` (oldest first), with their
  /// attempts, in one transaction. Returns how many requests it deleted: `limit` means more may
  /// be left.
  Result<std::size_t> deleteChunk(WallTime cutoff, std::size_t limit);

  /// The two statements of a chunk (?1 the cutoff in Unix milliseconds, ?2 the limit); public
  /// for the test that checks their query plans use the indexes.
  static char const* const kDeleteAttempts;
  static char const* const kDeleteRequests;

 private:
  RequestLogRetention(SqliteDb& db, SqliteStatement delete_attempts,
                      SqliteStatement delete_requests)
      : db_(&db),
        delete_attempts_(std::move(delete_attempts)),
        delete_requests_(std::move(delete_requests)) {}

  SqliteDb* db_;
  SqliteStatement delete_attempts_;
  SqliteStatement delete_requests_;
};

}  // namespace llmux::store
