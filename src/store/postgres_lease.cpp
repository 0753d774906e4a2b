#include "store/postgres_lease.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace llmux::store {
namespace {

/// The lock's key: FNV-1a of the job's name, the same in every build (std::hash is not, and
/// replicas of two versions must agree during a rolling upgrade). 63 bits: a positive bigint.
std::int64_t lockKey(std::string_view job) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  for (char c : "llmux:" + std::string(job)) {
    hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ULL;
  }
  return static_cast<std::int64_t>(hash >> 1);
}

}  // namespace

PostgresLease::PostgresLease(std::string url, std::string const& job)
    : db_(std::move(url), std::chrono::milliseconds(5000)), key_(std::to_string(lockKey(job))) {}

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
