#pragma once

#include <chrono>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "store/postgres_connection.h"
#include "store/request_log_writer.h"

namespace llmux::store {

/// The request log's PostgreSQL backend (`database:` in the configuration): the same `requests`
/// and `attempts` tables and columns as SQLite's, on a PostgresConnection of its own (used only
/// by the writer's thread: no request thread ever waits for it).
///
/// A batch is one transaction: the running rows it rewrites are deleted, the new rows' numbers
/// (`seq`) are drawn from the table's sequence, then the requests and the attempts go in with
/// one COPY each. When the server goes away, the connection turns bad and `connected()` false;
/// the RequestLogWriter then holds the batch and calls `reconnect` with a backoff. A batch whose
/// commit was sent just as the connection broke may be written twice (its commit's answer was
/// lost); a lost row is the rarer failure there.
class PostgresRequestLog final : public RequestLogBackend {
 public:
  static constexpr std::chrono::milliseconds kAnswerTimeout = PostgresConnection::kAnswerTimeout;

  /// Not connected yet: `reconnect()` connects. `url` is a secret (see PostgresConnection).
  explicit PostgresRequestLog(std::string url,
                              std::chrono::milliseconds answer_timeout = kAnswerTimeout);

  Result<void> insertBatch(std::span<LogRow> batch, std::string_view replica) override;
  Result<std::size_t> heartbeat(std::string_view replica, WallTime now,
                                std::chrono::milliseconds lapse) override;
  Result<void> retire(std::string_view replica) override;
  Result<std::size_t> deleteExpired(WallTime cutoff, std::size_t limit) override;
  bool connected() const override { return db_.connected(); }
  /// Connects (dropping a bad connection) and migrates the schema.
  Result<void> reconnect() override { return db_.reconnect(); }

  /// The schema version this build writes in PostgreSQL (the number of its migrations).
  static int currentSchemaVersion() { return PostgresConnection::currentSchemaVersion(); }

  /// The statement that deletes a chunk of expired requests ($1 the cutoff in Unix milliseconds,
  /// $2 the most); their attempts go with them (ON DELETE CASCADE).
  static char const* const kDeleteExpired;

 private:
  PostgresConnection db_;
};

}  // namespace llmux::store
