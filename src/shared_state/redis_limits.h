#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "core/clock.h"
#include "core/result.h"
#include "net/task.h"
#include "routing/rate_limits.h"
#include "shared_state/limit_scripts.h"

namespace llmux::shared_state {

class RedisClient;

/// How long a replica counts as alive after its last heartbeat (or admission).
inline constexpr Millis kHeartbeatTtl{10'000};
/// How often a running replica renews its heartbeat: three chances before its TTL lapses.
inline constexpr Millis kHeartbeatEvery{3'000};
/// Absolute expiry of a concurrency lease, the backstop when even the heartbeat logic cannot
/// tell (a live replica that lost a finish): beyond the longest request the gateway lets run
/// (retry deadline 300 s + one attempt's total 600 s, config/settings.h), with room to spare.
inline constexpr Millis kLeaseBackstop{3'600'000};

/// The limit operations of routing/rate_limits.h, run in Redis as Lua scripts so that every
/// replica sharing the server shares one limit. Each operation is ONE script (atomic: Redis runs
/// nothing else meanwhile), sent with EVALSHA and, when the server does not know it yet
/// (NOSCRIPT: first use, restart, SCRIPT FLUSH), again with EVAL, which also caches it.
///
/// Semantics: exactly those of LocalBuckets and ClientWindows (their header is the
/// specification), with one clock: the caller's wall time `now`, in whole milliseconds, passed
/// to the scripts (replicas' monotonic clocks are unrelated; their wall clocks are NTP-synced).
/// A replica's wall clock running behind refills nothing (the rule for an older time).
///
/// Keys (all start with the prefix, default "llmux:"):
/// - `bucket:<id>:rpm`, `bucket:<id>:tpm` — hash {level, at}: one bucket, expiring a margin
///   after it would be full again (absent = full).
/// - `client:<key>:leases` — zset, member "<replica>|<n>", score = the lease's absolute expiry.
/// - `client:<key>:rpm` — zset, the admission times of the sliding window (member = the lease).
/// - `client:<key>:rpd:<YYYY-MM-DD>` — the day's admissions.
/// - `client:<key>:tpm` — the key's TPM bucket.
/// - `client:<key>:tokens:<YYYY-MM-DD>` / `tokens:<YYYY-MM>`, `cost:<...>` — spending per UTC day
///   / month, expiring after their period.
/// - `replicas` — zset, member = replica id, score = when its heartbeat lapses.
/// `<key>` is the gateway key's name, never its secret.
///
/// Crashed replicas: an admission refreshes its replica's heartbeat and each running replica
/// renews it every kHeartbeatEvery (SharedLimits::start). When a key's leases fill its
/// concurrency limit, the admission drops the leases of replicas whose heartbeat lapsed
/// (kHeartbeatTtl after the last renewal) before deciding; leases older than kLeaseBackstop go
/// whoever holds them. So the slots of a crashed replica come back 10 s after its last beat.
///
/// Thread safety: const and stateless past construction; the RedisClient decides the thread.
/// Every coroutine reads its reference arguments while it runs: keep them alive until it ends.
class RedisLimits {
 public:
  /// `prefix` starts every key; `replica` names this process in leases and heartbeats (no '|').
  RedisLimits(std::string prefix, std::string replica);

  std::string const& prefix() const { return prefix_; }
  std::string const& replica() const { return replica_; }
  /// The lease member of this replica's `n`th admission: "<replica>|<n>".
  std::string leaseName(std::uint64_t n) const;

  /// LocalBuckets::tryTake on the shared buckets.
  net::Task<Result<routing::BucketTake>> take(RedisClient& redis,
                                              std::span<routing::BucketDemand const> demands,
                                              std::int64_t tokens, WallTime now) const;
  /// LocalBuckets::settle on the shared buckets.
  net::Task<Result<void>> settle(RedisClient& redis, std::span<routing::BucketDemand const> demands,
                                 std::int64_t reserved, std::int64_t used, WallTime now) const;
  /// LocalBuckets::levels on the shared buckets (an id never used reads full; unlimited = +inf).
  net::Task<Result<std::pair<double, double>>> levels(RedisClient& redis, std::string_view id,
                                                      routing::BucketLimits limits,
                                                      WallTime now) const;

  /// ClientWindows::admit on the shared windows; an admission holds the lease `lease` (from
  /// leaseName) until `finish` releases it.
  net::Task<Result<routing::ClientAdmission>> admit(RedisClient& redis, std::string_view key,
                                                    routing::ClientLimits const& limits,
                                                    std::int64_t estimated_tokens,
                                                    std::string_view lease, WallTime now) const;
  /// ClientWindows::finish on the shared windows, releasing `lease`.
  net::Task<Result<void>> finish(RedisClient& redis, std::string_view key,
                                 routing::ClientLimits const& limits, std::string_view lease,
                                 std::int64_t estimated_tokens, std::int64_t used_tokens,
                                 double cost_usd, WallTime now) const;
  /// Only releases `lease` (a finish that could not be delivered, an admission that timed out
  /// but may have run).
  net::Task<Result<void>> releaseLease(RedisClient& redis, std::string_view key,
                                       std::string_view lease) const;
  /// Leases held for `key`, crashed replicas' included until purged (tests, admin).
  net::Task<Result<std::int64_t>> leaseCount(RedisClient& redis, std::string_view key) const;

  /// Racing's shared hedge budget: an armed request, and one shadow taken if it fits `share`.
  net::Task<Result<void>> noteHedgeRequest(RedisClient& redis, WallTime now) const;
  net::Task<Result<bool>> takeHedgeShadow(RedisClient& redis, double share, WallTime now) const;

  /// This replica is alive for kHeartbeatTtl from `now`.
  net::Task<Result<void>> heartbeat(RedisClient& redis, WallTime now) const;

 private:
  std::string bucketKey(std::string_view id, std::string_view dimension) const;
  std::string clientKey(std::string_view key, std::string_view part) const;

  std::string prefix_;
  std::string replica_;
  LuaScript take_ = bucketTakeScript();
  LuaScript settle_ = bucketSettleScript();
  LuaScript levels_ = bucketLevelsScript();
  LuaScript admit_ = clientAdmitScript();
  LuaScript finish_ = clientFinishScript();
  LuaScript heartbeat_ = heartbeatScript();
  LuaScript hedge_note_ = hedgeNoteScript();
  LuaScript hedge_take_ = hedgeTakeScript();
};

}  // namespace llmux::shared_state
