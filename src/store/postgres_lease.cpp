#include "store/postgres_lease.h"

#include <cstdint>
#include <functional>

namespace llmux::store {

PostgresLease::PostgresLease(std::string url, std::string const& job)
    : db_(std::move(url), std::chrono::milliseconds(5000)),
      key_(std::to_string(static_cast<std::int64_t>(std::hash<std::string>{}("llmux:" + job) >> 1))) {}

std::optional<bool> PostgresLease::hold() {
  std::lock_guard lock(mutex_);
  if (!db_.connected()) {
    held_ = false;  // the session that held it is gone, and the lock with it
    if (auto connected = db_.reconnect(); !connected.ok()) {
      last_error_ = connected.error().message;
      return std::nullopt;
    }
  }
  if (held_) {
    // Still ours while the session lives: a cheap round trip proves it does.
    auto alive = db_.run("SELECT 1", {}, "checking the lease's session");
    if (alive.ok()) return true;
    held_ = false;
    last_error_ = alive.error().message;
    return std::nullopt;
  }
  auto taken = db_.run("SELECT pg_try_advisory_lock($1::bigint)", {key_}, "taking the lease");
  if (!taken.ok()) {
    last_error_ = taken.error().message;
    return std::nullopt;
  }
  last_error_.clear();
  held_ = firstValue(*taken) == "t";
  return held_;
}

std::string PostgresLease::lastError() const {
  std::lock_guard lock(mutex_);
  return last_error_;
}

}  // namespace llmux::store
