#include "shared_state/shared_limits.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <thread>

#include <boost/asio/post.hpp>

#include "redis_fixture.h"
#include "shared_state/redis_limits.h"

namespace llmux::shared_state::testing {
namespace {

using routing::ClientLimits;
using std::chrono::milliseconds;
using std::chrono::seconds;
using SteadyClock = std::chrono::steady_clock;

Millis since(SteadyClock::time_point start) {
  return std::chrono::duration_cast<Millis>(SteadyClock::now() - start);
}

ClientLimits rpmLimit(std::int64_t rpm) {
  ClientLimits limits;
  limits.rpm = rpm;
  return limits;
}

/// Drives one SharedLimits' coroutines on a test's io_context.
struct Driver {
  boost::asio::io_context& io;
  SharedLimits& limits;
  http::Cancellation cancellation;

  BucketGrant acquire(std::vector<OwnedBucketDemand> demands, std::int64_t tokens, Millis max_wait) {
    return run(io, limits.acquireBuckets(std::move(demands), tokens, max_wait, cancellation));
  }
  void settle(std::vector<OwnedBucketDemand> demands, BucketGrant grant, std::int64_t reserved,
              std::int64_t used) {
    run(io, limits.settleBuckets(std::move(demands), grant, reserved, used));
  }
  ClientTicket admit(std::string key, ClientLimits const& l, std::int64_t estimate = 0) {
    return run(io, limits.admitClient(std::move(key), l, estimate));
  }
  void finish(std::string key, ClientLimits const& l, ClientTicket ticket, std::int64_t used = 0,
              double cost = 0) {
    run(io, limits.finishClient(std::move(key), l, std::move(ticket), 0, used, cost));
  }
};

TEST(LimitBackend, Names) {
  EXPECT_EQ(limitBackendName(LimitBackend::Redis), "redis");
  EXPECT_EQ(limitBackendName(LimitBackend::Local), "local");
}

// --- without Redis ------------------------------------------------------------------------------

class LocalLimitsTest : public ::testing::Test {
 protected:
  boost::asio::io_context io;
  RealTimeSource clock;
  SharedLimits limits{clock, std::nullopt};
  Driver driver{io, limits};
};

TEST_F(LocalLimitsTest, WithoutRedisEverythingIsLocal) {
  ClientLimits l;
  l.concurrency = 1;
  ClientTicket first = driver.admit("team", l);
  EXPECT_TRUE(first.admission.admitted);
  EXPECT_EQ(first.backend, LimitBackend::Local);
  EXPECT_EQ(first.lease, "");
  ClientTicket second = driver.admit("team", l);
  EXPECT_FALSE(second.admission.admitted);
  EXPECT_EQ(second.admission.limit, "concurrency");
  driver.finish("team", l, second);  // a refused ticket has nothing to finish
  EXPECT_FALSE(driver.admit("team", l).admission.admitted);
  driver.finish("team", l, first);
  EXPECT_TRUE(driver.admit("team", l).admission.admitted);

  BucketGrant grant = driver.acquire({{"key:a", {1, 0}}}, 0, Millis(0));
  EXPECT_TRUE(grant.taken);
  EXPECT_EQ(grant.backend, LimitBackend::Local);
  SharedLimits::Stats stats = limits.stats();
  EXPECT_FALSE(stats.redis_configured);
  EXPECT_FALSE(stats.redis_active);
  EXPECT_EQ(stats.redis_calls, 0u);
  EXPECT_EQ(stats.redis_fallbacks, 0u);
}

TEST_F(LocalLimitsTest, AnAbandonedTicketGivesItsSlotBackAtOnce) {
  ClientLimits l;
  l.concurrency = 1;
  ClientTicket first = driver.admit("team", l);
  ASSERT_TRUE(first.admission.admitted);
  EXPECT_FALSE(driver.admit("team", l).admission.admitted);
  // A request that ended without finishClient (an exception, a destroyed coroutine).
  limits.abandonClient("team", l, std::move(first), 100);
  EXPECT_TRUE(driver.admit("team", l).admission.admitted);
}

TEST_F(LocalLimitsTest, ShortBucketsAreWaitedFor) {
  std::vector<OwnedBucketDemand> const demands = {{"key:w", {0, 60'000}}};  // 1 token per ms
  ASSERT_TRUE(driver.acquire(demands, 60'000, Millis(0)).taken);
  BucketGrant grant = driver.acquire(demands, 10, seconds(1));  // 10 tokens: 10 ms
  EXPECT_TRUE(grant.taken);
  EXPECT_FALSE(grant.overflow);
  EXPECT_GE(grant.waited, Millis(10));
  EXPECT_LT(grant.waited, seconds(1));
  EXPECT_EQ(limits.stats().bucket_waits, 1u);
  EXPECT_EQ(limits.stats().bucket_overflows, 0u);
}

TEST_F(LocalLimitsTest, AfterMaxWaitTheAttemptGoesAnyway) {
  std::vector<OwnedBucketDemand> const demands = {{"key:w", {0, 60'000}}};
  ASSERT_TRUE(driver.acquire(demands, 60'000, Millis(0)).taken);
  BucketGrant grant = driver.acquire(demands, 60'000, Millis(5));  // a full minute's worth
  EXPECT_FALSE(grant.taken);
  EXPECT_TRUE(grant.overflow);
  EXPECT_EQ(grant.waited, Millis(5));
  EXPECT_EQ(limits.stats().bucket_waits, 1u);
  EXPECT_EQ(limits.stats().bucket_overflows, 1u);
  // An overflow deducted nothing; settling it changes nothing either.
  driver.settle(demands, grant, 60'000, 0);
  EXPECT_FALSE(driver.acquire(demands, 60'000, Millis(0)).taken);
}

TEST_F(LocalLimitsTest, ACancelledWaitReturnsAtOnce) {
  std::vector<OwnedBucketDemand> const demands = {{"key:w", {1, 0}}};
  ASSERT_TRUE(driver.acquire(demands, 0, Millis(0)).taken);
  auto started = SteadyClock::now();
  std::optional<BucketGrant> grant;
  spawnInto(io, limits.acquireBuckets(demands, 0, seconds(30), driver.cancellation), grant);
  boost::asio::post(io, [this] { driver.cancellation.cancel(http::CancelReason::ClientGone); });
  runUntil(io, [&] { return grant.has_value(); });
  EXPECT_FALSE(grant->taken);
  EXPECT_FALSE(grant->overflow);
  EXPECT_LT(since(started), seconds(1));
  EXPECT_EQ(limits.stats().bucket_overflows, 0u);
}

TEST_F(LocalLimitsTest, DemandsWithoutLimitsAreFree) {
  BucketGrant grant = driver.acquire({{"key:free", {}}}, 1'000'000, Millis(0));
  EXPECT_TRUE(grant.taken);
  EXPECT_EQ(grant.waited, Millis(0));
}

// --- with Redis ---------------------------------------------------------------------------------

class SharedLimitsTest : public RedisTest {
 protected:
  RedisOptions options(Millis timeout = Millis(5'000), Millis cooldown = Millis(10'000)) const {
    RedisOptions o;
    o.host = "127.0.0.1";
    o.port = server->port();
    o.timeout = timeout;
    o.cooldown = cooldown;
    return o;
  }

  std::int64_t leaseCount(std::string_view key) {
    RedisClient probe(io, connectOptions());
    RedisLimits reader("llmux:", "probe");
    auto count = run(io, reader.leaseCount(probe, key));
    EXPECT_TRUE(count.ok());
    return count.ok() ? *count : -1;
  }

  ManualTimeSource clock;
};

TEST_F(SharedLimitsTest, TwoReplicasShareOneLimit) {
  SharedLimits replica_a(clock, options());
  SharedLimits replica_b(clock, options());
  ASSERT_NE(replica_a.replica(), replica_b.replica());
  Driver a{io, replica_a};
  Driver b{io, replica_b};

  // Buckets: 2 requests per minute between them, not 2 each.
  std::vector<OwnedBucketDemand> const pair = {{"key:shared", {2, 0}}};
  BucketGrant first = a.acquire(pair, 0, Millis(0));
  EXPECT_TRUE(first.taken);
  EXPECT_EQ(first.backend, LimitBackend::Redis);
  EXPECT_TRUE(b.acquire(pair, 0, Millis(0)).taken);
  BucketGrant third = a.acquire(pair, 0, Millis(0));
  EXPECT_FALSE(third.taken);
  EXPECT_TRUE(third.overflow);
  EXPECT_EQ(third.backend, LimitBackend::Redis);
  EXPECT_FALSE(b.acquire(pair, 0, Millis(0)).taken);

  // Gateway key rpm.
  ClientLimits const rpm = rpmLimit(3);
  EXPECT_TRUE(a.admit("team", rpm).admission.admitted);
  EXPECT_TRUE(b.admit("team", rpm).admission.admitted);
  EXPECT_TRUE(a.admit("team", rpm).admission.admitted);
  ClientTicket refused = b.admit("team", rpm);
  EXPECT_FALSE(refused.admission.admitted);
  EXPECT_EQ(refused.admission.limit, "rpm");
  EXPECT_EQ(refused.backend, LimitBackend::Redis);

  // Concurrency: one slot between them; a finish on one frees it for the other.
  ClientLimits one;
  one.concurrency = 1;
  ClientTicket held = a.admit("solo", one);
  ASSERT_TRUE(held.admission.admitted);
  EXPECT_EQ(held.backend, LimitBackend::Redis);
  EXPECT_EQ(held.lease.rfind(replica_a.replica() + "|", 0), 0u) << held.lease;
  EXPECT_EQ(b.admit("solo", one).admission.limit, "concurrency");
  a.finish("solo", one, held);
  EXPECT_TRUE(b.admit("solo", one).admission.admitted);

  // TPM settled in Redis: what one replica returns, the other can take.
  std::vector<OwnedBucketDemand> const tokens = {{"model:t", {0, 1000}}};
  BucketGrant taken = a.acquire(tokens, 1000, Millis(0));
  ASSERT_TRUE(taken.taken);
  EXPECT_FALSE(b.acquire(tokens, 400, Millis(0)).taken);
  a.settle(tokens, taken, 1000, 600);
  EXPECT_TRUE(b.acquire(tokens, 400, Millis(0)).taken);
  EXPECT_FALSE(b.acquire(tokens, 1, Millis(0)).taken);

  EXPECT_EQ(replica_a.stats().redis_fallbacks + replica_b.stats().redis_fallbacks, 0u);
  EXPECT_TRUE(replica_a.stats().redis_active);
}

TEST_F(SharedLimitsTest, KeysWithoutLimitsNeverAskRedis) {
  SharedLimits limits(clock, options());
  Driver driver{io, limits};
  ClientTicket ticket = driver.admit("open", ClientLimits{});
  EXPECT_TRUE(ticket.admission.admitted);
  EXPECT_EQ(ticket.backend, LimitBackend::Local);
  driver.finish("open", ClientLimits{}, ticket);
  EXPECT_TRUE(driver.acquire({{"key:free", {}}}, 10, Millis(0)).taken);
  EXPECT_EQ(limits.stats().redis_calls, 0u);
  EXPECT_EQ(limits.stats().redis_fallbacks, 0u);
}

TEST_F(SharedLimitsTest, AStoppedRedisFallsBackWithinTheTimeoutThenComesBack) {
  SharedLimits limits(clock, options(Millis(50), Millis(300)));
  Driver driver{io, limits};
  ClientLimits const l = rpmLimit(100);
  std::vector<OwnedBucketDemand> const pair = {{"key:f", {0, 1000}}};

  ClientTicket in_redis = driver.admit("team", l);
  ASSERT_EQ(in_redis.backend, LimitBackend::Redis);
  BucketGrant taken_in_redis = driver.acquire(pair, 100, Millis(0));
  ASSERT_EQ(taken_in_redis.backend, LimitBackend::Redis);
  EXPECT_TRUE(limits.stats().redis_active);
  EXPECT_EQ(limits.stats().redis_calls, 2u);

  server->pause();
  auto started = SteadyClock::now();
  ClientTicket fallback = driver.admit("team", l);
  Millis elapsed = since(started);
  std::cout << "[ measured ] admission with redis-server stopped served locally after "
            << elapsed.count() << " ms (timeout 50 ms)\n";
  EXPECT_LT(elapsed, Millis(150));
  EXPECT_GE(elapsed, Millis(45));
  EXPECT_TRUE(fallback.admission.admitted);
  EXPECT_EQ(fallback.backend, LimitBackend::Local);
  SharedLimits::Stats stats = limits.stats();
  EXPECT_EQ(stats.redis_failures, 1u);
  EXPECT_EQ(stats.redis_fallbacks, 1u);
  EXPECT_EQ(stats.redis_calls, 3u);
  EXPECT_FALSE(stats.redis_active);

  // The cooldown: local at once, Redis untouched.
  clock.advance(milliseconds(299));
  started = SteadyClock::now();
  ClientTicket during = driver.admit("team", l);
  BucketGrant grant = driver.acquire(pair, 100, Millis(0));
  EXPECT_LT(since(started), Millis(20));
  EXPECT_EQ(during.backend, LimitBackend::Local);
  EXPECT_EQ(grant.backend, LimitBackend::Local);
  EXPECT_TRUE(grant.taken);
  // What was decided in Redis is not settled locally: dropped and counted.
  driver.finish("team", l, in_redis);
  driver.settle(pair, taken_in_redis, 100, 10);
  driver.finish("team", l, during);  // decided locally: finished locally
  stats = limits.stats();
  EXPECT_EQ(stats.redis_calls, 3u);
  EXPECT_EQ(stats.redis_failures, 1u);
  EXPECT_EQ(stats.redis_fallbacks, 3u);
  EXPECT_EQ(stats.redis_dropped, 2u);

  // After the cooldown the next call tries Redis, which answers again.
  server->resume();
  clock.advance(milliseconds(1));
  ClientTicket back = driver.admit("team", l);
  EXPECT_EQ(back.backend, LimitBackend::Redis);
  EXPECT_TRUE(back.admission.admitted);
  stats = limits.stats();
  EXPECT_TRUE(stats.redis_active);
  EXPECT_EQ(stats.redis_calls, 4u);

  // The heartbeat pays the leases owed: the dropped finish's and the timed-out admission's (whose
  // script the server ran when it resumed). Only the last admission's lease is left.
  run(io, limits.heartbeat());
  EXPECT_EQ(leaseCount("team"), 1);
  driver.finish("team", l, back);
  EXPECT_EQ(leaseCount("team"), 0);
}

TEST_F(SharedLimitsTest, OnlyOneCallProbesRedisAfterTheCooldown) {
  SharedLimits limits(clock, options(Millis(50), Millis(300)));
  Driver driver{io, limits};
  ClientLimits const l = rpmLimit(100);
  ASSERT_EQ(driver.admit("team", l).backend, LimitBackend::Redis);
  server->pause();
  EXPECT_EQ(driver.admit("team", l).backend, LimitBackend::Local);
  clock.advance(milliseconds(300));
  // Two calls at once: the first probes (and waits for the timeout), the second stays local.
  std::optional<ClientTicket> probe, other;
  spawnInto(io, limits.admitClient("team", l, 0), probe);
  spawnInto(io, limits.admitClient("team", l, 0), other);
  runUntil(io, [&] { return probe.has_value() && other.has_value(); });
  server->resume();
  EXPECT_EQ(probe->backend, LimitBackend::Local);
  EXPECT_EQ(other->backend, LimitBackend::Local);
  SharedLimits::Stats stats = limits.stats();
  EXPECT_EQ(stats.redis_calls, 3u);  // the first, the failed one, the probe
  EXPECT_EQ(stats.redis_failures, 2u);
  EXPECT_EQ(stats.redis_fallbacks, 3u);
}

TEST_F(SharedLimitsTest, ARefusedConnectionFallsBackLocally) {
  RedisOptions unreachable = options(Millis(50), Millis(300));
  unreachable.port = freeLoopbackPort();
  SharedLimits limits(clock, unreachable);
  Driver driver{io, limits};
  auto started = SteadyClock::now();
  ClientTicket ticket = driver.admit("team", rpmLimit(1));
  EXPECT_LT(since(started), Millis(150));
  EXPECT_EQ(ticket.backend, LimitBackend::Local);
  EXPECT_TRUE(ticket.admission.admitted);
  // Degraded mode applies the replica's full local limit.
  EXPECT_EQ(driver.admit("team", rpmLimit(1)).admission.limit, "rpm");
  EXPECT_EQ(limits.stats().redis_failures, 1u);
  EXPECT_EQ(limits.stats().redis_fallbacks, 2u);
  EXPECT_TRUE(limits.stats().redis_configured);
  EXPECT_FALSE(limits.stats().redis_active);
}

TEST_F(SharedLimitsTest, TheHeartbeatLoopRunsOnTheBackgroundContextUntilStopped) {
  SharedLimits limits(clock, options());
  boost::asio::io_context background;
  limits.start(background);
  std::thread loop([&background] { background.run(); });

  RedisClient probe(io, connectOptions());
  std::vector<std::string> const score = {"ZSCORE", "llmux:replicas", limits.replica()};
  std::optional<RedisReply> seen;
  auto started = SteadyClock::now();
  while (!seen && since(started) < seconds(10)) {
    auto reply = run(io, probe.call(score));
    if (reply.ok() && reply->kind == RedisReply::Kind::Bulk) seen = *reply;
  }
  ASSERT_TRUE(seen.has_value()) << "no heartbeat within 10 s";
  auto now_ms = std::chrono::floor<milliseconds>(clock.wallNow().time_since_epoch()).count();
  EXPECT_EQ(seen->text, std::to_string(now_ms + kHeartbeatTtl.count()));

  // stop() ends the loop: the background context runs out of work and its thread returns.
  limits.stop();
  loop.join();
  EXPECT_TRUE(background.stopped());
  // Every later call is local.
  Driver driver{io, limits};
  EXPECT_EQ(driver.admit("team", rpmLimit(5)).backend, LimitBackend::Local);
  EXPECT_FALSE(limits.stats().redis_active);
}

TEST_F(SharedLimitsTest, StopClosesTheWorkersConnections) {
  SharedLimits limits(clock, options());
  Driver driver{io, limits};
  ASSERT_EQ(driver.admit("team", rpmLimit(5)).backend, LimitBackend::Redis);
  limits.stop();
  // The idle connection's pending read was the context's last work.
  io.restart();
  io.run();
  EXPECT_TRUE(io.stopped());
}

}  // namespace
}  // namespace llmux::shared_state::testing
