#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "store/postgres_connection.h"
#include "store/racing_store.h"

namespace llmux::store {

/// Racing's switches and latency learning in PostgreSQL (`database:`), the tables every replica
/// shares: an operator's `PUT /admin/racing` and a combination found slow (or recovered) on one
/// replica reach the others (racingPull on the SharedStateSync). The same rows as SQLite's
/// `racing_switches` and `latency_penalties`. Synchronous: only a RacingWriter's thread and the
/// sync call it; a call without a usable connection connects first. Thread-safe (one mutex
/// around the connection).
class PostgresRacingStore final : public RacingRows {
 public:
  explicit PostgresRacingStore(std::string url,
                               std::chrono::milliseconds answer_timeout =
                                   PostgresConnection::kAnswerTimeout);

  Result<RacingSwitches> loadSwitches() override;
  Result<void> saveSwitches(RacingSwitches const& switches, WallTime now) override;
  Result<std::vector<racing::LatencyMemory::Entry>> loadLatency(WallTime now) override;
  Result<void> saveLatency(racing::LatencyMemory::Entry const& entry) override;
  Result<void> removeLatency(std::string const& id) override;

 private:
  std::mutex mutex_;
  PostgresConnection db_;
};

}  // namespace llmux::store
