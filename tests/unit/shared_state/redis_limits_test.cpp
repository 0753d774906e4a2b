#include "shared_state/redis_limits.h"

#include <gtest/gtest.h>

#include <deque>
#include <limits>
#include <map>

#include "redis_fixture.h"
#include "routing/rate_limits.h"

// The Redis scripts against the in-process tables: the same scripted sequence on a fake clock
// goes to both, and every answer must be the same (bit for bit for the levels). The in-process
// header is the specification; the numbers asserted here are worked out from it.
namespace llmux::shared_state::testing {
namespace {

using routing::BucketDemand;
using routing::BucketLimits;
using routing::BucketTake;
using routing::ClientAdmission;
using routing::ClientLimits;
using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr double kUnlimited = std::numeric_limits<double>::infinity();
// ManualTimeSource starts at Tuesday 2023-11-14 22:13:20 UTC.
constexpr Millis kToMidnight{6'400'000};         // -> Wed 2023-11-15 00:00 UTC
constexpr Millis kMidnightToDec1{1'382'400'000};  // Wed 2023-11-15 -> Fri 2023-12-01 00:00 UTC

class RedisLimitsTest : public RedisTest {
 protected:
  void SetUp() override {
    RedisTest::SetUp();
    if (HasFatalFailure()) return;
    redis = std::make_unique<RedisClient>(io, connectOptions());
  }

  /// Takes from both tables (at `skew` from the clock's now) and checks they agree.
  BucketTake take(std::vector<BucketDemand> const& demands, std::int64_t tokens,
                  Millis skew = Millis(0)) {
    BucketTake local = buckets.tryTake(demands, tokens, clock.now() + skew);
    auto remote = run(io, shared.take(*redis, demands, tokens, clock.wallNow() + skew));
    EXPECT_TRUE(remote.ok()) << (remote.ok() ? "" : remote.error().message);
    if (!remote.ok()) return local;
    EXPECT_EQ(remote->taken, local.taken);
    EXPECT_EQ(remote->wait, local.wait);
    return *remote;
  }

  void settle(std::vector<BucketDemand> const& demands, std::int64_t reserved, std::int64_t used) {
    buckets.settle(demands, reserved, used, clock.now());
    auto remote = run(io, shared.settle(*redis, demands, reserved, used, clock.wallNow()));
    EXPECT_TRUE(remote.ok()) << (remote.ok() ? "" : remote.error().message);
  }

  /// Both tables' levels of one pair, checked equal; the Redis ones returned.
  std::pair<double, double> levels(std::string_view id, BucketLimits limits) {
    auto local = buckets.levels(id, limits, clock.now());
    // An id the table never saw reads full (Redis cannot tell unknown from full).
    std::pair<double, double> expected =
        local.value_or(std::pair{limits.rpm > 0 ? double(limits.rpm) : kUnlimited,
                                 limits.tpm > 0 ? double(limits.tpm) : kUnlimited});
    auto remote = run(io, shared.levels(*redis, id, limits, clock.wallNow()));
    EXPECT_TRUE(remote.ok()) << (remote.ok() ? "" : remote.error().message);
    if (!remote.ok()) return expected;
    EXPECT_EQ(remote->first, expected.first) << id;
    EXPECT_EQ(remote->second, expected.second) << id;
    return *remote;
  }

  /// Admits in both tables and checks they agree; an admitted request's lease is kept for finish.
  ClientAdmission admit(std::string const& key, ClientLimits const& limits,
                        std::int64_t estimate = 0) {
    ClientAdmission local = windows.admit(key, limits, estimate, clock.now(), clock.wallNow());
    std::string lease = shared.leaseName(++lease_count);
    auto remote = run(io, shared.admit(*redis, key, limits, estimate, lease, clock.wallNow()));
    EXPECT_TRUE(remote.ok()) << (remote.ok() ? "" : remote.error().message);
    if (!remote.ok()) return local;
    EXPECT_EQ(remote->admitted, local.admitted);
    EXPECT_EQ(remote->limit, local.limit);
    EXPECT_EQ(remote->retry_after, local.retry_after);
    if (remote->admitted) leases[key].push_back(lease);
    return *remote;
  }

  /// Finishes the oldest admitted request of `key` in both tables.
  void finish(std::string const& key, ClientLimits const& limits, std::int64_t estimate,
              std::int64_t used, double cost = 0) {
    ASSERT_FALSE(leases[key].empty()) << "nothing admitted for " << key;
    std::string lease = leases[key].front();
    leases[key].pop_front();
    windows.finish(key, limits, estimate, used, cost, clock.now(), clock.wallNow());
    auto remote =
        run(io, shared.finish(*redis, key, limits, lease, estimate, used, cost, clock.wallNow()));
    EXPECT_TRUE(remote.ok()) << (remote.ok() ? "" : remote.error().message);
  }

  std::int64_t leaseCount(std::string_view key) {
    auto count = run(io, shared.leaseCount(*redis, key));
    EXPECT_TRUE(count.ok());
    return count.ok() ? *count : -1;
  }

  ManualTimeSource clock;
  std::unique_ptr<RedisClient> redis;
  RedisLimits shared{"llmux:", "replica-a"};
  routing::LocalBuckets buckets;
  routing::ClientWindows windows;
  std::uint64_t lease_count = 0;
  std::map<std::string, std::deque<std::string>> leases;
};

// --- bucket pairs -------------------------------------------------------------------------------

TEST_F(RedisLimitsTest, BothBucketsOfAPairOrNeither) {
  BucketLimits const limits{2, 100};
  std::vector<BucketDemand> const a = {{"key:a", limits}};
  EXPECT_TRUE(take(a, 60).taken);
  EXPECT_EQ(levels("key:a", limits), (std::pair{1.0, 40.0}));

  // TPM lacks 20 tokens at 100/min: 12 s. The RPM bucket is not touched by the refusal.
  BucketTake refused = take(a, 60);
  EXPECT_FALSE(refused.taken);
  EXPECT_EQ(refused.wait, Millis(12'000));
  EXPECT_EQ(levels("key:a", limits), (std::pair{1.0, 40.0}));

  clock.advance(seconds(12));
  EXPECT_TRUE(take(a, 60).taken);
  auto [rpm, tpm] = levels("key:a", limits);
  EXPECT_DOUBLE_EQ(rpm, 0.4);
  EXPECT_DOUBLE_EQ(tpm, 0.0);

  // Now RPM lacks 0.6 requests at 2/min: 18 s.
  refused = take(a, 0);
  EXPECT_FALSE(refused.taken);
  EXPECT_EQ(refused.wait, Millis(18'000));
}

TEST_F(RedisLimitsTest, AllPairsOfATakeOrNone) {
  BucketLimits const a_limits{10, 0};
  BucketLimits const b_limits{1, 1000};
  std::vector<BucketDemand> const both = {{"key:a", a_limits}, {"model:b", b_limits}};
  EXPECT_TRUE(take(both, 100).taken);
  EXPECT_EQ(levels("key:a", a_limits), (std::pair{9.0, kUnlimited}));
  EXPECT_EQ(levels("model:b", b_limits), (std::pair{0.0, 900.0}));

  BucketTake refused = take(both, 100);
  EXPECT_FALSE(refused.taken);
  EXPECT_EQ(refused.wait, Millis(60'000));  // b's one request per minute
  EXPECT_EQ(levels("key:a", a_limits), (std::pair{9.0, kUnlimited}));

  EXPECT_TRUE(take({{"key:a", a_limits}}, 100).taken);
  EXPECT_EQ(levels("key:a", a_limits), (std::pair{8.0, kUnlimited}));

  // A repeated id counts once; its first occurrence decides (here: no limits, so nothing).
  EXPECT_TRUE(take({{"key:a", a_limits}, {"key:a", a_limits}, {"key:a", a_limits}}, 0).taken);
  EXPECT_EQ(levels("key:a", a_limits), (std::pair{7.0, kUnlimited}));
  EXPECT_TRUE(take({{"key:c", {}}, {"key:c", {1, 0}}}, 0).taken);
  EXPECT_TRUE(take({{"key:c", {1, 0}}}, 0).taken);
  EXPECT_FALSE(take({{"key:c", {1, 0}}}, 0).taken);
  // Demands without limits are free.
  EXPECT_TRUE(take({{"free", {}}}, 1'000'000).taken);
}

TEST_F(RedisLimitsTest, TokensAboveCapacityNeedAFullBucket) {
  BucketLimits const limits{0, 1000};
  std::vector<BucketDemand> const c = {{"key:c", limits}};
  EXPECT_TRUE(take(c, 5000).taken);
  EXPECT_EQ(levels("key:c", limits), (std::pair{kUnlimited, 0.0}));
  BucketTake refused = take(c, 5000);
  EXPECT_EQ(refused.wait, Millis(60'000));
  EXPECT_TRUE(take(c, -5).taken);  // negative counts as 0
}

TEST_F(RedisLimitsTest, SettleMayGoNegativeNeverAboveCapacityNeverTouchesRpm) {
  BucketLimits const limits{5, 1000};
  std::vector<BucketDemand> const c = {{"key:c", limits}};
  EXPECT_TRUE(take(c, 500).taken);
  settle(c, 500, 1500);
  EXPECT_EQ(levels("key:c", limits), (std::pair{4.0, -500.0}));

  BucketTake refused = take(c, 100);
  EXPECT_FALSE(refused.taken);
  EXPECT_EQ(refused.wait, Millis(36'000));  // 600 tokens at 1000/min
  clock.advance(seconds(36));
  EXPECT_TRUE(take(c, 100).taken);

  // `reserved` is capped as the take capped it; the level never exceeds capacity.
  settle(c, 5000, 0);
  EXPECT_EQ(levels("key:c", limits).second, 1000.0);
  settle(c, 100, -50);  // used below 0 counts as 0
  EXPECT_EQ(levels("key:c", limits).second, 1000.0);
  // Settling a pair never taken: it starts full.
  settle({{"key:new", limits}}, 10, 30);
  EXPECT_EQ(levels("key:new", limits), (std::pair{5.0, 980.0}));
  // An RPM-only pair has nothing to settle.
  settle({{"key:rpm-only", {5, 0}}}, 10, 1000);
  EXPECT_EQ(levels("key:rpm-only", {5, 0}), (std::pair{5.0, kUnlimited}));
}

TEST_F(RedisLimitsTest, AnOlderTimeRefillsNothing) {
  BucketLimits const limits{0, 600};
  std::vector<BucketDemand> const d = {{"key:d", limits}};
  EXPECT_TRUE(take(d, 600).taken);
  BucketTake refused = take(d, 1, Millis(-5'000));
  EXPECT_FALSE(refused.taken);
  EXPECT_EQ(refused.wait, Millis(100));  // 1 token at 10/s, from the bucket's own time
  clock.advance(seconds(1));
  EXPECT_TRUE(take(d, 10).taken);
  EXPECT_FALSE(take(d, 1).taken);
}

TEST_F(RedisLimitsTest, RefillsAcrossManySmallStepsStayEqual) {
  BucketLimits const limits{7, 1234};
  std::vector<BucketDemand> const e = {{"key:e", limits}};
  for (int i = 0; i < 200; ++i) {
    take(e, 37 + i % 11);
    if (i % 3 == 0) settle(e, 37 + i % 11, 29 + i % 17);
    clock.advance(milliseconds(1 + (i * 7919) % 4000));
  }
  levels("key:e", limits);
}

TEST_F(RedisLimitsTest, UnknownScriptsAreSentAgainWithEval) {
  std::vector<BucketDemand> const a = {{"key:a", {5, 0}}};
  EXPECT_TRUE(take(a, 0).taken);
  std::vector<std::string> flush = {"SCRIPT", "FLUSH"};
  ASSERT_TRUE(run(io, redis->call(flush)).ok());
  EXPECT_TRUE(take(a, 0).taken);
  std::vector<std::string> exists = {"SCRIPT", "EXISTS", bucketTakeScript().sha1};
  auto known = run(io, redis->call(exists));
  ASSERT_TRUE(known.ok());
  EXPECT_EQ(*known, RedisReply::array({RedisReply::number(1)}));
  EXPECT_EQ(levels("key:a", {5, 0}).first, 3.0);
}

TEST_F(RedisLimitsTest, ScriptShaIsWhatRedisComputes) {
  EXPECT_EQ(sha1Hex("abc"), "a9993e364706816aba3e25717850c26c9cd0d89d");
  for (LuaScript const& script : {bucketTakeScript(), bucketSettleScript(), bucketLevelsScript(),
                                  clientAdmitScript(), clientFinishScript(), heartbeatScript()}) {
    std::vector<std::string> load = {"SCRIPT", "LOAD", script.body};
    auto reply = run(io, redis->call(load));
    ASSERT_TRUE(reply.ok());
    EXPECT_EQ(*reply, RedisReply::bulk(script.sha1)) << script.name;
  }
}

// --- gateway keys -------------------------------------------------------------------------------

TEST_F(RedisLimitsTest, RpmIsAnExactSlidingWindow) {
  ClientLimits limits;
  limits.rpm = 3;
  EXPECT_TRUE(admit("team", limits).admitted);  // t0
  clock.advance(seconds(10));
  EXPECT_TRUE(admit("team", limits).admitted);  // t0 + 10 s
  clock.advance(seconds(10));
  EXPECT_TRUE(admit("team", limits).admitted);  // t0 + 20 s
  clock.advance(seconds(10));
  ClientAdmission refused = admit("team", limits);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "rpm");
  EXPECT_EQ(refused.retry_after, Millis(30'000));  // until t0 leaves
  clock.advance(milliseconds(29'999));
  EXPECT_EQ(admit("team", limits).retry_after, Millis(1));
  clock.advance(milliseconds(1));  // t0 is exactly 60 s old: it has left
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_EQ(admit("team", limits).retry_after, Millis(10'000));

  // A lowered limit keeps only the newest admissions; raising it again finds only those.
  limits.rpm = 1;
  EXPECT_EQ(admit("team", limits).retry_after, Millis(60'000));
  limits.rpm = 3;
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_FALSE(admit("team", limits).admitted);
}

TEST_F(RedisLimitsTest, RpdCountsPerUtcDay) {
  ClientLimits limits;
  limits.rpd = 2;
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_TRUE(admit("team", limits).admitted);
  ClientAdmission refused = admit("team", limits);
  EXPECT_EQ(refused.limit, "rpd");
  EXPECT_EQ(refused.retry_after, kToMidnight);
  clock.advance(kToMidnight - Millis(1));
  EXPECT_EQ(admit("team", limits).retry_after, Millis(1));
  clock.advance(Millis(1));  // 00:00 UTC: a new day
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_EQ(admit("team", limits).retry_after, Millis(86'400'000));
}

TEST_F(RedisLimitsTest, TpmIsDeductedOnAdmissionAndSettledOnFinish) {
  ClientLimits limits;
  limits.tpm = 1000;
  EXPECT_TRUE(admit("team", limits, 800).admitted);
  ClientAdmission refused = admit("team", limits, 800);
  EXPECT_EQ(refused.limit, "tpm");
  EXPECT_EQ(refused.retry_after, Millis(36'000));  // 600 tokens at 1000/min
  finish("team", limits, 800, 100);                 // 200 + 800 - 100
  EXPECT_TRUE(admit("team", limits, 800).admitted);  // 900 - 800
  finish("team", limits, 800, 2000);                 // 100 + 800 - 2000 = -1100
  EXPECT_EQ(admit("team", limits, 10).retry_after, Millis(66'600));
  EXPECT_EQ(admit("team", limits, 5000).retry_after, Millis(126'000));  // capped at capacity
}

TEST_F(RedisLimitsTest, ARefusalRecordsNothing) {
  ClientLimits limits;
  limits.rpm = 2;
  limits.tpm = 100;
  EXPECT_TRUE(admit("team", limits, 100).admitted);
  EXPECT_EQ(admit("team", limits, 100).limit, "tpm");  // no rpm time recorded by it
  clock.advance(seconds(1));
  EXPECT_TRUE(admit("team", limits, 1).admitted);
  ClientAdmission refused = admit("team", limits, 0);
  EXPECT_EQ(refused.limit, "rpm");
  EXPECT_EQ(refused.retry_after, Millis(59'000));
  EXPECT_EQ(leaseCount("team"), 2);
}

TEST_F(RedisLimitsTest, ConcurrencyLeasesAreReleasedByFinish) {
  ClientLimits limits;
  limits.concurrency = 2;
  limits.rpm = 2;
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_TRUE(admit("team", limits).admitted);
  EXPECT_EQ(leaseCount("team"), 2);
  ClientAdmission refused = admit("team", limits);  // rpm is full too: concurrency comes first
  EXPECT_EQ(refused.limit, "concurrency");
  EXPECT_EQ(refused.retry_after, Millis(1000));
  finish("team", limits, 0, 0);
  EXPECT_EQ(leaseCount("team"), 1);
  EXPECT_EQ(admit("team", limits).limit, "rpm");
  clock.advance(seconds(60));
  EXPECT_TRUE(admit("team", limits).admitted);
  finish("team", limits, 0, 0);
  finish("team", limits, 0, 0);
  EXPECT_EQ(leaseCount("team"), 0);
  EXPECT_EQ(windows.inFlight("team"), 0);
}

TEST_F(RedisLimitsTest, LeasesOfACrashedReplicaArePurgedWhenItsHeartbeatLapses) {
  RedisLimits other{"llmux:", "replica-b"};
  ClientLimits limits;
  limits.concurrency = 2;
  for (int i = 1; i <= 2; ++i) {
    auto admitted = run(io, other.admit(*redis, "team", limits, 0, other.leaseName(i), clock.wallNow()));
    ASSERT_TRUE(admitted.ok());
    EXPECT_TRUE(admitted->admitted);
  }
  auto mine = [&] {
    auto admission = run(io, shared.admit(*redis, "team", limits, 0, shared.leaseName(++lease_count),
                                          clock.wallNow()));
    EXPECT_TRUE(admission.ok());
    return admission.ok() ? *admission : ClientAdmission{};
  };
  EXPECT_EQ(mine().limit, "concurrency");
  clock.advance(milliseconds(9'999));
  EXPECT_EQ(mine().limit, "concurrency");  // replica-b's heartbeat still holds
  clock.advance(milliseconds(1));           // 10 s after its last sign of life: gone
  EXPECT_TRUE(mine().admitted);
  EXPECT_EQ(leaseCount("team"), 1);
}

TEST_F(RedisLimitsTest, AHeartbeatKeepsALiveReplicasLeases) {
  RedisLimits other{"llmux:", "replica-b"};
  ClientLimits limits;
  limits.concurrency = 1;
  auto admitted = run(io, other.admit(*redis, "team", limits, 0, other.leaseName(1), clock.wallNow()));
  ASSERT_TRUE(admitted.ok());
  clock.advance(seconds(8));
  ASSERT_TRUE(run(io, other.heartbeat(*redis, clock.wallNow())).ok());
  clock.advance(seconds(9));  // 17 s after the admission, 9 s after the heartbeat
  auto refused = run(io, shared.admit(*redis, "team", limits, 0, shared.leaseName(1), clock.wallNow()));
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->limit, "concurrency");
  clock.advance(seconds(1));
  auto admission = run(io, shared.admit(*redis, "team", limits, 0, shared.leaseName(2), clock.wallNow()));
  ASSERT_TRUE(admission.ok());
  EXPECT_TRUE(admission->admitted);
}

TEST_F(RedisLimitsTest, LeasesExpireAfterTheBackstopEvenOfALiveReplica) {
  ClientLimits limits;
  limits.concurrency = 1;
  auto first = run(io, shared.admit(*redis, "team", limits, 0, shared.leaseName(1), clock.wallNow()));
  ASSERT_TRUE(first.ok());
  clock.advance(kLeaseBackstop - Millis(1));
  auto refused = run(io, shared.admit(*redis, "team", limits, 0, shared.leaseName(2), clock.wallNow()));
  EXPECT_EQ(refused->limit, "concurrency");
  clock.advance(Millis(1));
  auto admitted = run(io, shared.admit(*redis, "team", limits, 0, shared.leaseName(3), clock.wallNow()));
  EXPECT_TRUE(admitted->admitted);
  ASSERT_TRUE(run(io, shared.releaseLease(*redis, "team", shared.leaseName(3))).ok());
  EXPECT_EQ(leaseCount("team"), 0);
}

TEST_F(RedisLimitsTest, TokenBudgetsPerUtcDayAndMonth) {
  ClientLimits limits;
  limits.daily_tokens = 1000;
  limits.monthly_tokens = 1500;
  EXPECT_TRUE(admit("team", limits).admitted);
  finish("team", limits, 0, 600);
  EXPECT_TRUE(admit("team", limits).admitted);
  finish("team", limits, 0, 500);  // the day: 1100
  ClientAdmission refused = admit("team", limits);
  EXPECT_EQ(refused.limit, "daily_tokens");
  EXPECT_EQ(refused.retry_after, kToMidnight);
  clock.advance(kToMidnight);
  EXPECT_TRUE(admit("team", limits).admitted);  // a new day; the month: 1100 < 1500
  finish("team", limits, 0, 500);
  refused = admit("team", limits);
  EXPECT_EQ(refused.limit, "monthly_tokens");
  EXPECT_EQ(refused.retry_after, kMidnightToDec1);
  clock.advance(kMidnightToDec1);
  EXPECT_TRUE(admit("team", limits).admitted);
}

TEST_F(RedisLimitsTest, CostBudgetsSumDoublesExactly) {
  ClientLimits limits;
  limits.daily_cost_usd = 0.3;
  limits.monthly_cost_usd = 0.6;
  EXPECT_TRUE(admit("team", limits).admitted);
  finish("team", limits, 0, 0, 0.1);
  EXPECT_TRUE(admit("team", limits).admitted);
  finish("team", limits, 0, 0, 0.2);  // 0.1 + 0.2 = 0.30000000000000004 >= 0.3
  ClientAdmission refused = admit("team", limits);
  EXPECT_EQ(refused.limit, "daily_cost_usd");
  EXPECT_EQ(refused.retry_after, kToMidnight);
  clock.advance(kToMidnight);
  EXPECT_TRUE(admit("team", limits).admitted);
  finish("team", limits, 0, 0, -4.0);  // a negative cost counts as 0
  limits.daily_cost_usd = 0;  // (else the day's 0.3 would refuse first)
  EXPECT_TRUE(admit("team", limits).admitted);
  finish("team", limits, 0, 0, 0.3);  // the month: 0.6000000000000001 >= 0.6
  refused = admit("team", limits);
  EXPECT_EQ(refused.limit, "monthly_cost_usd");
  EXPECT_EQ(refused.retry_after, kMidnightToDec1);
}

TEST_F(RedisLimitsTest, SpendingGoesToTheDayOfTheFinish) {
  ClientLimits limits;
  limits.daily_tokens = 100;
  clock.advance(kToMidnight - Millis(10));
  EXPECT_TRUE(admit("team", limits).admitted);
  clock.advance(Millis(20));
  finish("team", limits, 0, 100);  // finished on the new day
  ClientAdmission refused = admit("team", limits);
  EXPECT_EQ(refused.limit, "daily_tokens");
  EXPECT_EQ(refused.retry_after, Millis(86'400'000 - 10));
}

TEST_F(RedisLimitsTest, EveryLimitAtOnceRefusesInOrder) {
  ClientLimits limits;
  limits.concurrency = 1;
  limits.rpm = 1;
  limits.rpd = 1;
  limits.tpm = 10;
  limits.daily_tokens = 10;
  limits.monthly_tokens = 10;
  limits.daily_cost_usd = 1;
  limits.monthly_cost_usd = 1;
  EXPECT_TRUE(admit("team", limits, 10).admitted);
  EXPECT_EQ(admit("team", limits, 10).limit, "concurrency");
  finish("team", limits, 10, 10, 1.0);
  EXPECT_EQ(admit("team", limits, 10).limit, "rpm");
  clock.advance(seconds(60));
  EXPECT_EQ(admit("team", limits, 10).limit, "rpd");
  limits.rpd = 0;
  EXPECT_EQ(admit("team", limits, 11).limit, "daily_tokens");  // tpm refilled in the minute
  limits.daily_tokens = 0;
  EXPECT_EQ(admit("team", limits, 10).limit, "monthly_tokens");
  limits.monthly_tokens = 0;
  EXPECT_EQ(admit("team", limits, 10).limit, "daily_cost_usd");
  limits.daily_cost_usd = 0;
  EXPECT_EQ(admit("team", limits, 10).limit, "monthly_cost_usd");
  limits.monthly_cost_usd = 0;
  EXPECT_TRUE(admit("team", limits, 10).admitted);
  EXPECT_EQ(admit("team", limits, 10).limit, "concurrency");
}

}  // namespace
}  // namespace llmux::shared_state::testing
