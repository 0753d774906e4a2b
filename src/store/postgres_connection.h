#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

struct pg_conn;
struct pg_result;

namespace llmux::store {

/// One connection to the PostgreSQL store (`database:`), used by one thread at a time: libpq in
/// non-blocking mode, every wait for the server bounded by the answer timeout, so a server that
/// stops answering is dropped instead of holding its thread. Each (re)connection brings the
/// shared schema (request log, replicas, freezes) up to date first, under an advisory lock, so
/// replicas sharing the database migrate it once.
class PostgresConnection {
 public:
  /// How long one statement (or a COPY) may wait for the server: past it the connection is
  /// dropped (a server that stopped answering without closing it), so its user reconnects and a
  /// shutdown is never held by a silent server.
  static constexpr std::chrono::milliseconds kAnswerTimeout{10'000};

  /// Not connected yet: `reconnect()` connects. `url` is a postgres:// URL (a secret: it is never
  /// put in an error or a log line).
  explicit PostgresConnection(std::string url,
                              std::chrono::milliseconds answer_timeout = kAnswerTimeout);
  ~PostgresConnection();
  PostgresConnection(PostgresConnection const&) = delete;
  PostgresConnection& operator=(PostgresConnection const&) = delete;

  /// The schema version this build writes in PostgreSQL (the number of its migrations).
  static int currentSchemaVersion();

  bool connected() const;
  /// Connects (dropping a bad connection) and migrates the schema.
  Result<void> reconnect();
  /// Reconnects only when the connection is gone; ok when it is usable.
  Result<void> ensureConnected();

  /// One result of libpq's, freed with PQclear.
  using PgResult = std::unique_ptr<pg_result, void (*)(pg_result*)>;

  /// Sends `sql` (with `params` as $1, $2, ...; without, several statements may be sent) and
  /// waits up to the answer timeout for its results: the first one, or the first failure. A
  /// COPY's result comes back at once (the rows are the caller's to send).
  Result<PgResult> run(char const* sql, std::vector<std::string> const& params,
                       std::string_view what);
  /// Runs `sql` (no parameters, no rows wanted); `what` names it in the error.
  Result<void> exec(char const* sql, std::string_view what);
  /// One COPY … FROM STDIN with `data` (text format) as its rows.
  Result<void> copyIn(char const* sql, std::string const& data);
  /// An error with the connection's message; `what` says what was being done.
  Error failure(std::string_view what) const;
  /// ROLLBACK when the connection still works; returns `error`.
  Error abandon(Error error);

 private:
  using SteadyTime = std::chrono::steady_clock::time_point;

  Result<void> migrate();
  /// Sends what libpq holds, waiting for the socket up to `deadline`.
  Result<void> flushOutput(SteadyTime deadline, std::string_view what);
  /// The next result (nullptr once there are no more), reading until `deadline`.
  Result<pg_result*> nextResult(SteadyTime deadline, std::string_view what);
  /// Waits until the socket is ready for `events`; false at `deadline`.
  bool waitSocket(short events, SteadyTime deadline);
  /// Drops the connection that did not answer in time; the error says so.
  Error timedOut(std::string_view what);

  std::string url_;
  std::chrono::milliseconds answer_timeout_;
  pg_conn* conn_ = nullptr;
};

/// The text of a single-row, single-column result (a count, a number).
std::string_view firstValue(PostgresConnection::PgResult const& result);

}  // namespace llmux::store
