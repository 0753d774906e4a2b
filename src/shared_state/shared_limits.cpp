#include "shared_state/shared_limits.h"

#include <deque>
#include <utility>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>

#include "core/ids.h"
#include "net/asio_types.h"
#include "shared_state/redis_client.h"
#include "shared_state/redis_limits.h"

namespace llmux::shared_state {

namespace asio = boost::asio;
using net::kUseTuple;
using net::Task;

namespace {

/// Leases owed to Redis: finishes that could not be delivered, admissions that timed out (the
/// script may still have run once the server got to it). Bounded: past the bound the oldest are
/// left to the lease backstop.
class OwedLeases {
 public:
  void add(std::string key, std::string lease) {
    std::lock_guard lock(mutex_);
    if (owed_.size() >= kMaxOwed) owed_.pop_front();
    owed_.emplace_back(std::move(key), std::move(lease));
  }
  std::deque<std::pair<std::string, std::string>> takeAll() {
    std::lock_guard lock(mutex_);
    return std::exchange(owed_, {});
  }

 private:
  // An outage of a cooldown at a few thousand requests per second.
  static constexpr std::size_t kMaxOwed = 4096;
  std::mutex mutex_;
  std::deque<std::pair<std::string, std::string>> owed_;
};

std::vector<routing::BucketDemand> viewsOf(std::vector<OwnedBucketDemand> const& demands) {
  std::vector<routing::BucketDemand> views;
  views.reserve(demands.size());
  for (auto const& d : demands) views.push_back(routing::BucketDemand{d.id, d.limits});
  return views;
}

bool anyLimited(std::vector<OwnedBucketDemand> const& demands) {
  for (auto const& d : demands) {
    if (d.limits.any()) return true;
  }
  return false;
}

/// Sleeps `nap` unless `cancellation` fires first.
Task<void> napFor(Millis nap, http::Cancellation& cancellation) {
  net::Timer timer(co_await asio::this_coro::executor);
  timer.expires_after(nap);
  std::size_t id = cancellation.add([&timer](http::CancelReason) { timer.cancel(); });
  co_await timer.async_wait(kUseTuple);
  cancellation.remove(id);
}

}  // namespace

/// What both the request path and the heartbeat loop use, plain data (no I/O objects): the loop
/// may outlive the SharedLimits that started it by one wake-up.
struct SharedLimits::Remote {
  Remote(RedisOptions const& options, std::string replica)
      : limits(options.prefix, std::move(replica)),
        connect{options.host, options.port, options.password, options.db, options.timeout} {}

  RedisLimits limits;
  RedisConnectOptions connect;
  OwedLeases owed;
};

namespace {

/// Renews the heartbeat, then pays the owed lease releases (those not paid stay owed).
Task<void> beat(RedisLimits const& limits, OwedLeases& owed, RedisClient& redis, WallTime now) {
  auto renewed = co_await limits.heartbeat(redis, now);
  if (!renewed) co_return;
  auto leases = owed.takeAll();
  while (!leases.empty()) {
    auto& [key, lease] = leases.front();
    auto released = co_await limits.releaseLease(redis, key, lease);
    if (!released) break;
    leases.pop_front();
  }
  for (auto& [key, lease] : leases) owed.add(std::move(key), std::move(lease));
}

}  // namespace

/// The background heartbeat: its own connection on the background context.
struct SharedLimits::HeartbeatLoop {
  HeartbeatLoop(asio::io_context& io, std::shared_ptr<Remote> remote, TimeSource const& clock)
      : remote(std::move(remote)), clock(clock), redis(io, this->remote->connect), timer(io) {}

  std::shared_ptr<Remote> remote;
  TimeSource const& clock;
  RedisClient redis;
  net::Timer timer;
  bool stopping = false;  ///< set on the background thread (stop() posts it)

  static Task<void> run(std::shared_ptr<HeartbeatLoop> self) {
    while (!self->stopping) {
      co_await beat(self->remote->limits, self->remote->owed, self->redis, self->clock.wallNow());
      if (self->stopping) break;
      self->timer.expires_after(kHeartbeatEvery);
      co_await self->timer.async_wait(kUseTuple);
    }
    self->redis.close();
  }
};

std::string_view limitBackendName(LimitBackend backend) {
  return backend == LimitBackend::Redis ? "redis" : "local";
}

SharedLimits::SharedLimits(TimeSource const& clock, std::optional<RedisOptions> redis)
    : clock_(clock), options_(std::move(redis)), replica_(randomHex(8)) {
  if (options_) remote_ = std::make_shared<Remote>(*options_, replica_);
}

SharedLimits::~SharedLimits() = default;

std::shared_ptr<RedisClient> SharedLimits::clientFor(asio::io_context& io) {
  std::lock_guard lock(clients_mutex_);
  auto& client = clients_[&io];
  if (!client) client = std::make_shared<RedisClient>(io, remote_->connect);
  return client;
}

bool SharedLimits::useRedis() {
  if (!remote_ || stopped_.load(std::memory_order_relaxed)) return false;
  MonoClock::rep until = down_until_.load();
  if (until == 0) return true;
  MonoClock::rep now = clock_.now().time_since_epoch().count();
  if (now < until) return false;
  // The cooldown is over: this call tries Redis; the others stay local until it has answered
  // (it moves the end of the cooldown on, and redisAnswered clears it).
  MonoClock::rep probe_until = (clock_.now() + options_->cooldown).time_since_epoch().count();
  return down_until_.compare_exchange_strong(until, probe_until);
}

void SharedLimits::redisAnswered() { down_until_.store(0); }

void SharedLimits::redisFailed() {
  ++redis_failures_;
  down_until_.store((clock_.now() + options_->cooldown).time_since_epoch().count());
}

void SharedLimits::countLocal() {
  if (remote_ && !stopped_.load(std::memory_order_relaxed)) ++redis_fallbacks_;
}

routing::BucketTake SharedLimits::takeLocally(std::vector<routing::BucketDemand> const& views,
                                              std::int64_t tokens, LimitBackend& backend) {
  countLocal();
  backend = LimitBackend::Local;
  return local_buckets_.tryTake(views, tokens, clock_.now());
}

Task<routing::BucketTake> SharedLimits::takeOnce(asio::io_context& io,
                                                 std::vector<routing::BucketDemand> const& views,
                                                 std::int64_t tokens, LimitBackend& backend) {
  if (useRedis()) {
    ++redis_calls_;
    auto client = clientFor(io);
    auto take = co_await remote_->limits.take(*client, views, tokens, clock_.wallNow());
    if (take) {
      redisAnswered();
      backend = LimitBackend::Redis;
      co_return *take;
    }
    redisFailed();
  }
  co_return takeLocally(views, tokens, backend);
}

Task<BucketGrant> SharedLimits::tryBuckets(std::vector<OwnedBucketDemand> demands,
                                           std::int64_t tokens) {
  BucketGrant grant;
  if (!anyLimited(demands)) {
    grant.taken = true;
    co_return grant;
  }
  auto executor = co_await asio::this_coro::executor;
  std::vector<routing::BucketDemand> const views = viewsOf(demands);
  routing::BucketTake take = co_await takeOnce(executor.context(), views, tokens, grant.backend);
  grant.taken = take.taken;
  co_return grant;
}

Task<BucketGrant> SharedLimits::acquireBuckets(std::vector<OwnedBucketDemand> demands,
                                               std::int64_t tokens, Millis max_wait,
                                               http::Cancellation& cancellation) {
  BucketGrant grant;
  if (!anyLimited(demands)) {
    grant.taken = true;
    co_return grant;
  }
  auto executor = co_await asio::this_coro::executor;
  asio::io_context& io = executor.context();
  std::vector<routing::BucketDemand> const views = viewsOf(demands);
  bool waited = false;
  for (;;) {
    routing::BucketTake take = co_await takeOnce(io, views, tokens, grant.backend);
    if (take.taken) {
      grant.taken = true;
      break;
    }
    if (cancellation.cancelled()) break;
    Millis left = max_wait - grant.waited;
    if (left <= Millis(0)) {
      grant.overflow = true;
      ++bucket_overflows_;
      break;
    }
    if (!waited) {
      waited = true;
      ++bucket_waits_;
    }
    Millis nap = std::min(take.wait, left);
    co_await napFor(nap, cancellation);
    grant.waited += nap;
    if (cancellation.cancelled()) break;
  }
  co_return grant;
}

Task<void> SharedLimits::settleBuckets(std::vector<OwnedBucketDemand> demands, BucketGrant grant,
                                       std::int64_t reserved, std::int64_t used) {
  if (!grant.taken || !anyLimited(demands)) co_return;
  std::vector<routing::BucketDemand> const views = viewsOf(demands);
  if (grant.backend == LimitBackend::Local) {
    local_buckets_.settle(views, reserved, used, clock_.now());
    co_return;
  }
  if (!useRedis()) {
    ++redis_dropped_;
    co_return;
  }
  ++redis_calls_;
  auto executor = co_await asio::this_coro::executor;
  auto client = clientFor(executor.context());
  auto settled = co_await remote_->limits.settle(*client, views, reserved, used, clock_.wallNow());
  if (settled) {
    redisAnswered();
  } else {
    redisFailed();
    ++redis_dropped_;
  }
}

Task<ClientTicket> SharedLimits::admitClient(std::string key, routing::ClientLimits limits,
                                             std::int64_t estimated_tokens) {
  ClientTicket ticket;
  if (limits.any() && useRedis()) {
    ++redis_calls_;
    std::string lease = remote_->limits.leaseName(++lease_seq_);
    auto executor = co_await asio::this_coro::executor;
    auto client = clientFor(executor.context());
    auto admission = co_await remote_->limits.admit(*client, key, limits, estimated_tokens, lease,
                                                    clock_.wallNow());
    if (admission) {
      redisAnswered();
      ticket.admission = *admission;
      ticket.backend = LimitBackend::Redis;
      if (admission->admitted) ticket.lease = std::move(lease);
      co_return ticket;
    }
    redisFailed();
    remote_->owed.add(key, std::move(lease));  // the script may still run when the server resumes
  }
  if (limits.any()) countLocal();
  ticket.admission = local_windows_.admit(key, limits, estimated_tokens, clock_.now(), clock_.wallNow());
  ticket.backend = LimitBackend::Local;
  co_return ticket;
}

Task<void> SharedLimits::finishClient(std::string key, routing::ClientLimits limits,
                                      ClientTicket ticket, std::int64_t estimated_tokens,
                                      std::int64_t used_tokens, double cost_usd) {
  if (!ticket.admission.admitted) co_return;
  if (ticket.backend == LimitBackend::Local) {
    local_windows_.finish(key, limits, estimated_tokens, used_tokens, cost_usd, clock_.now(),
                          clock_.wallNow());
    co_return;
  }
  if (!useRedis()) {
    ++redis_dropped_;
    if (remote_) remote_->owed.add(std::move(key), std::move(ticket.lease));
    co_return;
  }
  ++redis_calls_;
  auto executor = co_await asio::this_coro::executor;
  auto client = clientFor(executor.context());
  auto finished = co_await remote_->limits.finish(*client, key, limits, ticket.lease,
                                                  estimated_tokens, used_tokens, cost_usd,
                                                  clock_.wallNow());
  if (finished) {
    redisAnswered();
    co_return;
  }
  redisFailed();
  ++redis_dropped_;
  remote_->owed.add(std::move(key), std::move(ticket.lease));
}

void SharedLimits::abandonClient(std::string key, routing::ClientLimits const& limits,
                                 ClientTicket ticket, std::int64_t estimated_tokens) {
  if (!ticket.admission.admitted) return;
  if (ticket.backend == LimitBackend::Local) {
    local_windows_.finish(key, limits, estimated_tokens, estimated_tokens, 0, clock_.now(),
                          clock_.wallNow());
    return;
  }
  ++redis_dropped_;
  if (remote_) remote_->owed.add(std::move(key), std::move(ticket.lease));
}

Task<void> SharedLimits::heartbeat() {
  if (!remote_ || stopped_) co_return;
  auto executor = co_await asio::this_coro::executor;
  auto client = clientFor(executor.context());
  co_await beat(remote_->limits, remote_->owed, *client, clock_.wallNow());
}

SharedLimits::Stats SharedLimits::stats() const {
  Stats s;
  s.redis_fallbacks = redis_fallbacks_.load();
  s.redis_failures = redis_failures_.load();
  s.redis_calls = redis_calls_.load();
  s.redis_dropped = redis_dropped_.load();
  s.bucket_waits = bucket_waits_.load();
  s.bucket_overflows = bucket_overflows_.load();
  s.redis_configured = remote_ != nullptr;
  s.redis_active = remote_ != nullptr && !stopped_.load() && down_until_.load() == 0;
  return s;
}

void SharedLimits::start(asio::io_context& background) {
  if (!remote_ || heartbeat_ || stopped_) return;
  heartbeat_ = std::make_shared<HeartbeatLoop>(background, remote_, clock_);
  asio::co_spawn(background, HeartbeatLoop::run(heartbeat_), asio::detached);
}

void SharedLimits::stop() {
  if (stopped_.exchange(true)) return;
  if (heartbeat_) {
    // The loop's objects belong to the background thread: it stops itself there.
    asio::post(heartbeat_->timer.get_executor(), [loop = heartbeat_] {
      loop->stopping = true;
      loop->timer.cancel();
      loop->redis.close();
    });
    heartbeat_.reset();
  }
  std::lock_guard lock(clients_mutex_);
  for (auto& [io, client] : clients_) {
    asio::post(*io, [client] { client->close(); });
  }
}

Task<void> SharedLimits::noteHedgeRequest() {
  if (!useRedis()) co_return;
  ++redis_calls_;
  auto executor = co_await asio::this_coro::executor;
  auto client = clientFor(executor.context());
  auto noted = co_await remote_->limits.noteHedgeRequest(*client, clock_.wallNow());
  if (noted) {
    redisAnswered();
  } else {
    redisFailed();
  }
}

Task<std::optional<bool>> SharedLimits::takeHedgeShadow(double share) {
  if (!useRedis()) {
    countLocal();
    co_return std::nullopt;
  }
  ++redis_calls_;
  auto executor = co_await asio::this_coro::executor;
  auto client = clientFor(executor.context());
  auto taken = co_await remote_->limits.takeHedgeShadow(*client, share, clock_.wallNow());
  if (!taken) {
    redisFailed();
    countLocal();
    co_return std::nullopt;
  }
  redisAnswered();
  co_return *taken;
}

}  // namespace llmux::shared_state
