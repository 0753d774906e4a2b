#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "routing/freezes.h"
#include "store/freeze_writer.h"
#include "store/postgres_connection.h"

namespace llmux::store {

/// The freezes in PostgreSQL (`database:`), the table every replica shares: a freeze made or
/// lifted by one replica is read back by the others (SharedStateSync). The same rows as SQLite's
/// `freezes`. Synchronous: only a FreezeWriter's thread and the SharedStateSync call it. A call
/// without a usable connection connects first (bounded by the connection's timeouts).
/// Thread-safe (one mutex around the connection).
class PostgresFreezeStore final : public FreezeRows {
 public:
  explicit PostgresFreezeStore(std::string url,
                               std::chrono::milliseconds answer_timeout =
                                   PostgresConnection::kAnswerTimeout);

  Result<std::vector<routing::Freeze>> load() override;
  Result<void> save(routing::Freeze const& freeze) override;
  Result<void> remove(std::string const& id) override;

 private:
  std::mutex mutex_;
  PostgresConnection db_;
};

}  // namespace llmux::store
