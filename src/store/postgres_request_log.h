#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "core/result.h"
#include "store/request_log_writer.h"

struct pg_conn;

namespace llmux::store {

/// The request log's PostgreSQL backend (`database:` in the configuration): the same `requests`
/// and `attempts` tables and columns as SQLite's, a `schema_version` table of its own, one
/// connection (libpq, synchronous on the writer's thread: no request thread ever waits for it).
///
/// A batch is one transaction: its request numbers (`seq`) are drawn from the table's sequence,
/// then the requests and the attempts go in with one COPY each. When the server goes away, the
/// connection turns bad and `connected()` false; the RequestLogWriter then holds the batch and
/// calls `reconnect` with a backoff. Each (re)connection brings the schema up to date first,
/// under an advisory lock, so replicas sharing the database migrate it once. A batch whose
/// commit was sent just as the connection broke may be written twice (its commit's answer was
/// lost); a lost row is the rarer failure there.
class PostgresRequestLog final : public RequestLogBackend {
 public:
  /// Not connected yet: `reconnect()` connects. `url` is a postgres:// URL (a secret: it is never
  /// put in an error or a log line).
  explicit PostgresRequestLog(std::string url);
  ~PostgresRequestLog() override;
  PostgresRequestLog(PostgresRequestLog const&) = delete;
  PostgresRequestLog& operator=(PostgresRequestLog const&) = delete;

  Result<void> insertBatch(std::span<RequestRecord const> batch) override;
  Result<std::size_t> deleteExpired(WallTime cutoff, std::size_t limit) override;
  bool connected() const override;
  /// Connects (dropping a bad connection) and migrates the schema.
  Result<void> reconnect() override;

  /// The schema version this build writes in PostgreSQL (the number of its migrations).
  static int currentSchemaVersion();

  /// The statement that deletes a chunk of expired requests ($1 the cutoff in Unix milliseconds,
  /// $2 the most); their attempts go with them (ON DELETE CASCADE).
  static char const* const kDeleteExpired;

 private:
  Result<void> migrate();
  /// Runs `sql` (no parameters, no rows wanted); `what` names it in the error.
  Result<void> exec(char const* sql, std::string_view what);
  /// One COPY … FROM STDIN with `data` (text format) as its rows.
  Result<void> copyIn(char const* sql, std::string const& data);
  /// An error with the connection's message; `what` says what was being done.
  Error failure(std::string_view what) const;
  /// ROLLBACK when the connection still works; returns `error`.
  Error abandon(Error error);

  std::string url_;
  pg_conn* conn_ = nullptr;
};

}  // namespace llmux::store
