#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"
#include "http/cancellation.h"
#include "net/task.h"
#include "routing/rate_limits.h"

namespace llmux::shared_state {

class RedisClient;
class RedisLimits;

/// Where the shared limits live: the configuration's `redis:` section (host, port, password,
/// db, timeout, cooldown, key prefix).
using RedisOptions = config::RedisSettings;

/// Which table decided a take or an admission (a settle or finish goes back to the same one).
enum class LimitBackend { Local, Redis };

/// "local" / "redis" (logs, metric labels).
std::string_view limitBackendName(LimitBackend backend);

/// One bucket pair an attempt needs, owning its id (routing::BucketDemand only views one, and a
/// coroutine's arguments must own what they hold).
struct OwnedBucketDemand {
  std::string id;  ///< e.g. "key:<channel key id>", "model:<channel>/<model>"
  routing::BucketLimits limits;
};

/// The outcome of acquireBuckets.
struct BucketGrant {
  bool taken = false;     ///< the buckets were deducted: settle them after the answer
  bool overflow = false;  ///< not taken: max_wait passed and the attempt goes anyway
  Millis waited{0};       ///< time spent waiting for the buckets
  LimitBackend backend = LimitBackend::Local;  ///< where they were taken
};

/// The outcome of admitClient, and what finishClient needs to undo it.
struct ClientTicket {
  routing::ClientAdmission admission;
  LimitBackend backend = LimitBackend::Local;
  std::string lease;  ///< the Redis lease of an admission in Redis, "" otherwise
};

/// The rate limits the proxy asks: upstream bucket pairs and gateway-key windows, shared by every
/// replica through Redis when it is configured, in process otherwise.
///
/// Fallback: a Redis call that does not answer within `timeout` (or is refused, or errors) is
/// served by the local tables (routing::LocalBuckets / ClientWindows) and counted; for `cooldown`
/// after it every call is local without touching Redis, so a dead Redis never holds a request up
/// longer than one timeout. The first call after the cooldown tries Redis again (the others stay
/// local until it answers); when it succeeds, Redis is active again. In degraded mode each
/// replica applies the FULL configured limit on its own (N replicas then let through up to N
/// times it): refusing traffic because the limit store is down would make it a single point of
/// failure. A settle or finish goes to the backend of its take or admission: a Redis take is never
/// settled locally; if Redis is unavailable then, it is dropped (counted), and the lease of an
/// admission is released later by the heartbeat (see RedisLimits for the crash handling).
///
/// Thread safety: every method may be called from any worker thread; a call runs on the caller's
/// executor, with one Redis connection per io_context. Lifetime: call stop() before destroying
/// it, and destroy it after the workers' loops stopped and before their io_contexts are destroyed.
class SharedLimits {
 public:
  /// Without Redis options: local only.
  SharedLimits(TimeSource const& clock, std::optional<RedisOptions> redis);
  ~SharedLimits();
  SharedLimits(SharedLimits const&) = delete;
  SharedLimits& operator=(SharedLimits const&) = delete;

  /// Takes every demanded bucket (all or none), waiting while they are short — up to `max_wait`,
  /// then goes anyway (`overflow` = true, nothing deducted, nothing to settle; never an error).
  /// A cancelled wait returns at once (taken = false, overflow = false). Demands without limits
  /// are free: no Redis call when no demand is limited.
  /// One try without waiting: taken, or not (nothing deducted, no overflow counted) — for an
  /// attempt with other candidates left, which go first rather than wait.
  net::Task<BucketGrant> tryBuckets(std::vector<OwnedBucketDemand> demands, std::int64_t tokens);
  net::Task<BucketGrant> acquireBuckets(std::vector<OwnedBucketDemand> demands, std::int64_t tokens,
                                        Millis max_wait, http::Cancellation& cancellation);
  /// After the answer: returns (or charges) `reserved` − `used` to the TPM buckets of a grant that
  /// was taken; nothing for one that was not.
  net::Task<void> settleBuckets(std::vector<OwnedBucketDemand> demands, BucketGrant grant,
                                std::int64_t reserved, std::int64_t used);

  /// Admits a request of gateway key `key` (its name, never the secret). A key without limits is
  /// admitted locally without a Redis call.
  net::Task<ClientTicket> admitClient(std::string key, routing::ClientLimits limits,
                                      std::int64_t estimated_tokens);
  /// After an admitted request ends (answered, failed or abandoned); nothing for a refused ticket.
  net::Task<void> finishClient(std::string key, routing::ClientLimits limits, ClientTicket ticket,
                               std::int64_t estimated_tokens, std::int64_t used_tokens,
                               double cost_usd);
  /// The same without waiting, for a request that ended without reaching finishClient (an
  /// exception, a coroutine destroyed at shutdown): the local slot is released at once (the
  /// estimate stays charged); a Redis lease is owed to the next heartbeat.
  void abandonClient(std::string key, routing::ClientLimits const& limits, ClientTicket ticket,
                     std::int64_t estimated_tokens);

  /// Racing's hedge budget across replicas (docs/racing.md): with Redis, armed requests and
  /// shadows are counted there, so the budget is the fleet's. Without Redis (or when it does not
  /// answer) these do nothing and takeHedgeShadow gives nullopt: the caller's own budget decides.
  bool sharesHedgeBudget() const { return remote_ != nullptr; }
  /// Whether gateway keys' windows and buckets live in Redis (shared by the replicas).
  bool usesRedis() const { return remote_ != nullptr; }
  net::Task<void> noteHedgeRequest();
  net::Task<std::optional<bool>> takeHedgeShadow(double share);

  /// One heartbeat on the caller's executor: renews this replica in Redis and releases the
  /// leases owed since the last one. The loop of start() runs it every kHeartbeatEvery.
  net::Task<void> heartbeat();

  /// Counters for the proxy's metrics. Monotonic except the two flags.
  struct Stats {
    std::uint64_t redis_fallbacks = 0;   ///< calls served locally although Redis is configured
    std::uint64_t redis_failures = 0;    ///< Redis calls that failed (timeout, refused, error)
    std::uint64_t redis_calls = 0;       ///< limit operations sent to Redis
    std::uint64_t redis_dropped = 0;     ///< settles / finishes of Redis decisions lost to an outage
    std::uint64_t bucket_waits = 0;      ///< acquisitions that had to wait
    std::uint64_t bucket_overflows = 0;  ///< acquisitions that went anyway after max_wait
    bool redis_configured = false;
    bool redis_active = false;  ///< configured, started or not, and not in a cooldown
  };
  Stats stats() const;

  /// What gateway key `key` spent in this process's own windows (where its budgets are kept
  /// without Redis; with Redis they are in Redis, RedisLimits::spendingKeys).
  routing::ClientSpending localSpending(std::string_view key, WallTime wall) const {
    return local_windows_.spending(key, wall);
  }

  /// The RPM and TPM levels of upstream bucket pair `id` in this process's own table (without
  /// Redis), refilled to `now`; nullopt for a pair never used (it is full).
  std::optional<std::pair<double, double>> localBucketLevels(std::string_view id,
                                                             routing::BucketLimits const& limits,
                                                             MonoTime now) const {
    return local_buckets_.levels(id, limits, now);
  }
  /// Requests of gateway key `key` in flight in this process's own windows (without Redis).
  std::int64_t localInFlight(std::string_view key) const { return local_windows_.inFlight(key); }

  /// This replica's id in Redis (16 random hex digits, new per process).
  std::string const& replica() const { return replica_; }

  /// Starts the heartbeat loop on `background` (no-op without Redis). Call once.
  void start(boost::asio::io_context& background);
  /// Stops the heartbeat and closes the Redis connections (posted to their io_contexts, which
  /// must still run them for the loops to end cleanly); every later call is local.
  void stop();

 private:
  struct Remote;
  struct HeartbeatLoop;

  std::shared_ptr<RedisClient> clientFor(boost::asio::io_context& io);
  /// Whether this call goes to Redis (configured, not stopped, not cooling down).
  bool useRedis();
  void redisAnswered();
  void redisFailed();
  void countLocal();
  routing::BucketTake takeLocally(std::vector<routing::BucketDemand> const& views,
                                  std::int64_t tokens, LimitBackend& backend);
  net::Task<routing::BucketTake> takeOnce(boost::asio::io_context& io,
                                          std::vector<routing::BucketDemand> const& views,
                                          std::int64_t tokens, LimitBackend& backend);

  TimeSource const& clock_;
  std::optional<RedisOptions> options_;
  std::string replica_;
  routing::LocalBuckets local_buckets_;
  routing::ClientWindows local_windows_;
  std::shared_ptr<Remote> remote_;  ///< null without Redis
  std::shared_ptr<HeartbeatLoop> heartbeat_;

  mutable std::mutex clients_mutex_;
  std::unordered_map<boost::asio::io_context*, std::shared_ptr<RedisClient>> clients_;

  /// 0 while Redis is active; else the monotonic tick until which calls stay local.
  std::atomic<MonoClock::rep> down_until_{0};
  std::atomic<bool> stopped_{false};
  std::atomic<std::uint64_t> lease_seq_{0};
  std::atomic<std::uint64_t> redis_fallbacks_{0}, redis_failures_{0}, redis_calls_{0},
      redis_dropped_{0}, bucket_waits_{0}, bucket_overflows_{0};
};

}  // namespace llmux::shared_state
