#pragma once

#include <mutex>
#include <optional>
#include <string>

#include "store/postgres_connection.h"

namespace llmux::store {

/// Which replica does a fleet-wide job (the alert loop's deliveries) when the replicas share
/// PostgreSQL and no Redis: a session-level advisory lock on a connection of the lease's own.
/// The replica whose session holds it is the holder until that session ends; a crashed or
/// cut-off holder's session ends with it, so the lock frees itself and the next replica to ask
/// takes it. Blocking (a connect waits up to its timeout): call it from a thread of its own.
/// Thread-safe.
class PostgresLease {
 public:
  /// `job` names the lock (its 64-bit key is derived from it).
  PostgresLease(std::string url, std::string const& job);

  /// True when this replica holds the lease (taken now or earlier on this session), false when
  /// another does, nullopt when the database cannot tell (the caller decides: a duplicate beats
  /// silence).
  std::optional<bool> hold();
  /// The error of the last call that could not tell ("" otherwise); never holds the URL.
  std::string lastError() const;

 private:
  mutable std::mutex mutex_;
  PostgresConnection db_;
  std::string key_;
  bool held_ = false;
  std::string last_error_;
};

}  // namespace llmux::store
