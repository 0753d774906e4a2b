#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "store/request_log_writer.h"

struct pg_conn;
struct pg_result;

namespace llmux::store {

/// The request log's PostgreSQL backend (`database:` in the configuration): the same `requests`
/// and `attempts` tables and columns as SQLite's, a `schema_version` table of its own, one
/// connection (libpq in non-blocking mode on the writer's thread, every wait for the server
/// bounded by the answer timeout: no request thread ever waits for it).
///
/// A batch is one transaction: the running rows it rewrites are deleted, the new rows' numbers
/// (`seq`) are drawn from the table's sequence, then the requests and the attempts go in with
/// one COPY each. When the server goes away, the
/// connection turns bad and `connected()` false; the RequestLogWriter then holds the batch and
/// calls `reconnect` with a backoff. Each (re)connection brings the schema up to date first,
/// under an advisory lock, so replicas sharing the database migrate it once. A batch whose
/// commit was sent just as the connection broke may be written twice (its commit's answer was
/// lost); a lost row is the rarer failure there.
class PostgresRequestLog final : public RequestLogBackend {
 public:
  /// How long one statement (or a batch's COPY) may wait for the server: past it the connection
  /// is dropped (a server that stopped answering without closing it), so the writer reconnects
  /// and a shutdown is never held by a silent server.
  static constexpr std::chrono::milliseconds kAnswerTimeout{10'000};

  /// Not connected yet: `reconnect()` connects. `url` is a postgres:// URL (a secret: it is never
  /// put in an error or a log line).
  explicit PostgresRequestLog(std::string url,
                              std::chrono::milliseconds answer_timeout = kAnswerTimeout);
  ~PostgresRequestLog() override;
  PostgresRequestLog(PostgresRequestLog const&) = delete;
  PostgresRequestLog& operator=(PostgresRequestLog const&) = delete;

  Result<void> insertBatch(std::span<LogRow> batch, std::string_view replica) override;
  Result<std::size_t> heartbeat(std::string_view replica, WallTime now,
                                std::chrono::milliseconds lapse) override;
  Result<void> retire(std::string_view replica) override;
  Result<std::size_t> deleteExpired(WallTime cutoff, std::size_t limit) override;
  bool connected() const override;
  /// Connects (dropping a bad connection) and migrates the schema.
  Result<void> reconnect() override;

  /// The schema version this build writes in PostgreSQL (the number of its migrations).
  static int currentSchemaVersion();

  /// The statement that deletes a chunk of expired requests ($1 the cutoff in Unix milliseconds,
  /// $2 the most); their attempts go with them (ON DELETE CASCADE).
  static char const* const kDeleteExpired;

  /// One result of libpq's, freed with PQclear.
  using PgResult = std::unique_ptr<pg_result, void (*)(pg_result*)>;

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;

  Result<void> migrate();
  /// Sends `sql` (with `params` as $1, $2, ...; without, several statements may be sent) and
  /// waits up to the answer timeout for its results: the first one, or the first failure. A
  /// COPY's result comes back at once (the rows are the caller's to send).
  Result<PgResult> run(char const* sql, std::vector<std::string> const& params,
                       std::string_view what);
  /// Sends what libpq holds, waiting for the socket up to `deadline`.
  Result<void> flushOutput(SteadyTime deadline, std::string_view what);
  /// The next result (nullptr once there are no more), reading until `deadline`.
  Result<pg_result*> nextResult(SteadyTime deadline, std::string_view what);
  /// Waits until the socket is ready for `events`; false at `deadline`.
  bool waitSocket(short events, SteadyTime deadline);
  /// Drops the connection that did not answer in time; the error says so.
  Error timedOut(std::string_view what);
  /// Runs `sql` (no parameters, no rows wanted); `what` names it in the error.
  Result<void> exec(char const* sql, std::string_view what);
  /// One COPY … FROM STDIN with `data` (text format) as its rows.
  Result<void> copyIn(char const* sql, std::string const& data);
  /// An error with the connection's message; `what` says what was being done.
  Error failure(std::string_view what) const;
  /// ROLLBACK when the connection still works; returns `error`.
  Error abandon(Error error);

  std::string url_;
  std::chrono::milliseconds answer_timeout_;
  pg_conn* conn_ = nullptr;
};

}  // namespace llmux::store
