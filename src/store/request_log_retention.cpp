#include "store/request_log_retention.h"

#include <cstdint>
#include <utility>

namespace llmux::store {

// The same chunk for both statements: within one write transaction nothing else changes the
// requests between them, and the order (time, then seq) makes the LIMIT pick the same rows.
#define LLMUX_EXPIRED_CHUNK \
  "SELECT seq FROM requests WHERE started_at < ?1 ORDER BY started_at, seq LIMIT ?2"

char const* const RequestLogRetention::kDeleteAttempts =
    "DELETE FROM attempts WHERE request_seq IN (" LLMUX_EXPIRED_CHUNK ")";
char const* const RequestLogRetention::kDeleteRequests =
    "DELETE FROM requests WHERE seq IN (" LLMUX_EXPIRED_CHUNK ")";

#undef LLMUX_EXPIRED_CHUNK

Result<RequestLogRetention> RequestLogRetention::prepare(SqliteDb& db) {
  auto attempts = db.prepare(kDeleteAttempts);
  if (!attempts.ok()) return attempts.takeError();
  auto requests = db.prepare(kDeleteRequests);
  if (!requests.ok()) return requests.takeError();
  return RequestLogRetention(db, std::move(*attempts), std::move(*requests));
}

Result<std::size_t> RequestLogRetention::deleteChunk(WallTime cutoff, std::size_t limit) {
  if (auto begun = db_->exec("BEGIN IMMEDIATE"); !begun.ok()) return begun.error();
  auto fail = [&](Error error) -> Result<std::size_t> {
    delete_attempts_.reset();
    delete_requests_.reset();
    (void)db_->exec("ROLLBACK");
    return error;
  };
  std::int64_t const before = toUnixMillis(cutoff);
  auto const most = static_cast<std::int64_t>(limit);
  for (SqliteStatement* stmt : {&delete_attempts_, &delete_requests_}) {
    stmt->reset();
    stmt->bind(1, before);
    stmt->bind(2, most);
    if (auto done = stmt->step(); !done.ok()) return fail(done.takeError());
  }
  auto deleted = static_cast<std::size_t>(db_->changes());  // of the requests' statement
  delete_attempts_.reset();
  delete_requests_.reset();
  if (auto committed = db_->exec("COMMIT"); !committed.ok()) return fail(committed.error());
  return deleted;
}

}  // namespace llmux::store
