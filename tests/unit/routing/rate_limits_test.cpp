#include "routing/rate_limits.h"

#include <gtest/gtest.h>

#include <atomic>
#include <limits>
#include <thread>
#include <vector>

namespace llmux::routing {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;

constexpr double kUnlimited = std::numeric_limits<double>::infinity();
// Tuesday 2023-11-14 22:13:20 UTC (as ManualTimeSource starts).
constexpr long long kStart = 1'700'000'000;
constexpr long long kNov15 = 1'700'006'400;  // Wed 2023-11-15 00:00 UTC
constexpr long long kDec1 = 1'701'388'800;   // Fri 2023-12-01 00:00 UTC
constexpr Millis kToMidnight{6'400'000};     // kStart -> kNov15
constexpr Millis kToDec1{1'388'800'000};     // kStart -> kDec1

MonoTime const t0 = MonoTime(seconds(1000));

WallTime at(long long unix_seconds) {
  return WallTime(std::chrono::duration_cast<WallClock::duration>(seconds(unix_seconds)));
}

WallTime const kWall = at(kStart);

std::pair<double, double> levelsOf(LocalBuckets const& buckets, std::string_view id,
                                   BucketLimits limits, MonoTime now) {
  auto levels = buckets.levels(id, limits, now);
  EXPECT_TRUE(levels.has_value()) << id;
  return levels.value_or(std::pair{-1.0, -1.0});
}

// --- bucket pairs -------------------------------------------------------------------------------

TEST(LocalBuckets, RpmAvailableButTpmShortDeductsNothing) {
  LocalBuckets buckets;
  BucketLimits limits{10, 100};
  BucketDemand demand{"key:k1", limits};
  ASSERT_TRUE(buckets.tryTake({&demand, 1}, 100, t0).taken);
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0), std::pair(9.0, 0.0));

  BucketTake take = buckets.tryTake({&demand, 1}, 50, t0);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(30'000));  // 50 tokens at 100/60 per second
  // The RPM token was there but is not taken without the TPM tokens.
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0), std::pair(9.0, 0.0));
}

TEST(LocalBuckets, MultiPairTakeIsAllOrNothing) {
  LocalBuckets buckets;
  BucketLimits key_limits{5, 1000};
  BucketLimits model_limits{1, 0};
  BucketDemand demands[] = {{"key:k1", key_limits}, {"model:openai/gpt-4o", model_limits}};
  ASSERT_TRUE(buckets.tryTake(demands, 10, t0).taken);
  EXPECT_EQ(levelsOf(buckets, "key:k1", key_limits, t0), std::pair(4.0, 990.0));
  EXPECT_EQ(levelsOf(buckets, "model:openai/gpt-4o", model_limits, t0), std::pair(0.0, kUnlimited));

  BucketTake take = buckets.tryTake(demands, 10, t0);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(60'000));  // the model's single request per minute
  // The key pair had room; it gave nothing because the model pair had none.
  EXPECT_EQ(levelsOf(buckets, "key:k1", key_limits, t0), std::pair(4.0, 990.0));
  EXPECT_EQ(levelsOf(buckets, "model:openai/gpt-4o", model_limits, t0), std::pair(0.0, kUnlimited));

  EXPECT_TRUE(buckets.tryTake(demands, 10, t0 + seconds(60)).taken);
  EXPECT_EQ(levelsOf(buckets, "key:k1", key_limits, t0 + seconds(60)), std::pair(4.0, 990.0));
}

TEST(LocalBuckets, RepeatedIdInOneTakeCountsOnce) {
  LocalBuckets buckets;
  BucketLimits limits{2, 0};
  BucketDemand demands[] = {{"key:k1", limits}, {"key:k1", limits}};
  ASSERT_TRUE(buckets.tryTake(demands, 0, t0).taken);
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0).first, 1.0);
}

TEST(LocalBuckets, RefillsAtLimitPerMinuteContinuously) {
  LocalBuckets buckets;
  BucketLimits limits{60, 0};
  BucketDemand demand{"key:k1", limits};
  for (int i = 0; i < 60; ++i) ASSERT_TRUE(buckets.tryTake({&demand, 1}, 0, t0).taken) << i;
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0).first, 0.0);
  EXPECT_DOUBLE_EQ(levelsOf(buckets, "key:k1", limits, t0 + milliseconds(500)).first, 0.5);
  EXPECT_DOUBLE_EQ(levelsOf(buckets, "key:k1", limits, t0 + seconds(1)).first, 1.0);
  EXPECT_DOUBLE_EQ(levelsOf(buckets, "key:k1", limits, t0 + seconds(90)).first, 60.0);  // capped

  BucketTake early = buckets.tryTake({&demand, 1}, 0, t0 + milliseconds(500));
  EXPECT_FALSE(early.taken);
  EXPECT_EQ(early.wait, Millis(500));
  EXPECT_TRUE(buckets.tryTake({&demand, 1}, 0, t0 + seconds(1)).taken);
  EXPECT_NEAR(levelsOf(buckets, "key:k1", limits, t0 + seconds(1)).first, 0.0, 1e-9);
}

TEST(LocalBuckets, WaitIsForTheScarcerBucket) {
  LocalBuckets buckets;
  // TPM scarcer: 6 rpm (1 per 10 s) with 5 left, 600 tpm (10 per s) empty.
  BucketLimits tpm_scarce{6, 600};
  BucketDemand a{"key:a", tpm_scarce};
  ASSERT_TRUE(buckets.tryTake({&a, 1}, 600, t0).taken);
  BucketTake take = buckets.tryTake({&a, 1}, 300, t0);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(30'000));

  // RPM scarcer: 1 rpm empty, 6000 tpm (100 per s) nearly full.
  BucketLimits rpm_scarce{1, 6000};
  BucketDemand b{"key:b", rpm_scarce};
  ASSERT_TRUE(buckets.tryTake({&b, 1}, 100, t0).taken);
  take = buckets.tryTake({&b, 1}, 1000, t0 + seconds(1));
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(59'000));

  // Both short: the longer wait (RPM 60 s, TPM 30 s).
  BucketLimits both{1, 60};
  BucketDemand c{"key:c", both};
  ASSERT_TRUE(buckets.tryTake({&c, 1}, 60, t0).taken);
  take = buckets.tryTake({&c, 1}, 30, t0);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(60'000));

  // The announced wait is enough, to the millisecond.
  EXPECT_FALSE(buckets.tryTake({&b, 1}, 1000, t0 + milliseconds(59'999)).taken);
  EXPECT_TRUE(buckets.tryTake({&b, 1}, 1000, t0 + seconds(60)).taken);
}

TEST(LocalBuckets, WaitIsRoundedUpToWholeMilliseconds) {
  LocalBuckets buckets;
  BucketLimits limits{0, 60'000};  // 1 token per millisecond
  BucketDemand demand{"key:k1", limits};
  ASSERT_TRUE(buckets.tryTake({&demand, 1}, 60'000, t0).taken);
  MonoTime later = t0 + std::chrono::microseconds(500);  // half a token back
  BucketTake take = buckets.tryTake({&demand, 1}, 1, later);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(1));  // 0.5 ms, rounded up
  take = buckets.tryTake({&demand, 1}, 3, later);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(3));  // 2.5 ms, rounded up
}

TEST(LocalBuckets, DemandAboveCapacityNeedsAFullBucket) {
  LocalBuckets buckets;
  BucketLimits limits{0, 100};
  BucketDemand demand{"key:k1", limits};
  ASSERT_TRUE(buckets.tryTake({&demand, 1}, 500, t0).taken);
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0).second, 0.0);  // 100 taken, not 500

  BucketTake take = buckets.tryTake({&demand, 1}, 500, t0 + seconds(30));
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(30'000));  // 50 of the 100 back; the other 50 take 30 s
  EXPECT_TRUE(buckets.tryTake({&demand, 1}, 500, t0 + seconds(60)).taken);
}

TEST(LocalBuckets, SettleAboveTheEstimateGoesNegativeAndRefills) {
  LocalBuckets buckets;
  BucketLimits limits{0, 600};  // 10 tokens per second
  BucketDemand demand{"key:k1", limits};
  ASSERT_TRUE(buckets.tryTake({&demand, 1}, 100, t0).taken);
  buckets.settle({&demand, 1}, 100, 700, t0);
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0).second, -100.0);
  EXPECT_DOUBLE_EQ(levelsOf(buckets, "key:k1", limits, t0 + seconds(10)).second, 0.0);
  EXPECT_DOUBLE_EQ(levelsOf(buckets, "key:k1", limits, t0 + seconds(20)).second, 100.0);

  BucketTake take = buckets.tryTake({&demand, 1}, 50, t0);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(15'000));  // from -100 to 50 at 10 per second
}

TEST(LocalBuckets, SettleNeverExceedsCapacity) {
  LocalBuckets buckets;
  BucketLimits limits{0, 600};
  BucketDemand demand{"key:k1", limits};
  ASSERT_TRUE(buckets.tryTake({&demand, 1}, 100, t0).taken);
  // 500 left, +50 refilled in 5 s, +90 returned: 640, capped at 600.
  buckets.settle({&demand, 1}, 100, 10, t0 + seconds(5));
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0 + seconds(5)).second, 600.0);
}

TEST(LocalBuckets, SettleReturnsOnlyWhatTheCappedTakeTook) {
  LocalBuckets buckets;
  BucketLimits limits{0, 100};
  BucketDemand demand{"key:k1", limits};
  ASSERT_TRUE(buckets.tryTake({&demand, 1}, 500, t0).taken);  // took 100
  buckets.settle({&demand, 1}, 500, 30, t0);
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0).second, 70.0);  // 0 + 100 - 30
}

TEST(LocalBuckets, SettleNeverTouchesRpm) {
  LocalBuckets buckets;
  BucketLimits limits{10, 1000};
  BucketDemand demand{"key:k1", limits};
  ASSERT_TRUE(buckets.tryTake({&demand, 1}, 200, t0).taken);
  buckets.settle({&demand, 1}, 200, 50, t0);
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0), std::pair(9.0, 950.0));
}

TEST(LocalBuckets, UnlimitedDimensionIsNotTracked) {
  LocalBuckets buckets;
  BucketLimits tokens_only{0, 100};
  BucketDemand demand{"key:k1", tokens_only};
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(buckets.tryTake({&demand, 1}, 20, t0).taken) << i;
  EXPECT_EQ(levelsOf(buckets, "key:k1", tokens_only, t0), std::pair(kUnlimited, 0.0));
  BucketTake take = buckets.tryTake({&demand, 1}, 20, t0);
  EXPECT_FALSE(take.taken);
  EXPECT_EQ(take.wait, Millis(12'000));

  BucketLimits requests_only{2, 0};
  BucketDemand other{"key:k2", requests_only};
  EXPECT_TRUE(buckets.tryTake({&other, 1}, 1'000'000'000, t0).taken);
  EXPECT_EQ(levelsOf(buckets, "key:k2", requests_only, t0), std::pair(1.0, kUnlimited));

  BucketDemand none{"key:k3", BucketLimits{}};
  EXPECT_TRUE(buckets.tryTake({&none, 1}, 100, t0).taken);
  EXPECT_FALSE(buckets.levels("key:k3", BucketLimits{}, t0).has_value());  // no pair created
}

TEST(LocalBuckets, UnknownIdHasNoLevels) {
  LocalBuckets buckets;
  EXPECT_FALSE(buckets.levels("key:never", BucketLimits{10, 10}, t0).has_value());
}

TEST(LocalBuckets, ConcurrentTakesNeverOverdraw) {
  LocalBuckets buckets;
  BucketLimits limits{1000, 0};
  BucketDemand demand{"key:k1", limits};
  std::atomic<int> taken{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 300; ++i) {
        if (buckets.tryTake({&demand, 1}, 0, t0).taken) taken.fetch_add(1);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(taken.load(), 1000);  // 1200 tries, 1000 tokens
  EXPECT_EQ(levelsOf(buckets, "key:k1", limits, t0).first, 0.0);
}

// --- gateway-key windows ------------------------------------------------------------------------

TEST(ClientWindows, RpmIsAnExactSlidingWindow) {
  ClientWindows windows;
  ClientLimits limits;
  limits.rpm = 3;
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0 + seconds(10), kWall).admitted);
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0 + seconds(20), kWall).admitted);

  ClientAdmission refused = windows.admit("team-a", limits, 0, t0 + seconds(30), kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "rpm");
  EXPECT_EQ(refused.retry_after, Millis(30'000));  // the first leaves at t0 + 60 s

  refused = windows.admit("team-a", limits, 0, t0 + milliseconds(59'999), kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, Millis(1));

  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0 + seconds(60), kWall).admitted);
  refused = windows.admit("team-a", limits, 0, t0 + seconds(60), kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, Millis(10'000));  // the second leaves at t0 + 70 s

  // Another key has its own window.
  EXPECT_TRUE(windows.admit("team-b", limits, 0, t0 + seconds(60), kWall).admitted);
}

TEST(ClientWindows, LoweredRpmDecidesOnTheNewestAdmissions) {
  ClientWindows windows;
  ClientLimits limits;
  limits.rpm = 3;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(windows.admit("team-a", limits, 0, t0 + seconds(10 * i), kWall).admitted);
  }
  limits.rpm = 2;  // a reload: the 2 newest (t0 + 10 s, t0 + 20 s) decide
  ClientAdmission refused = windows.admit("team-a", limits, 0, t0 + seconds(30), kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, Millis(40'000));
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0 + seconds(70), kWall).admitted);
}

TEST(ClientWindows, RpdResetsAtUtcMidnight) {
  ClientWindows windows;
  ClientLimits limits;
  limits.rpd = 2;
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  ClientAdmission refused = windows.admit("team-a", limits, 0, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "rpd");
  EXPECT_EQ(refused.retry_after, kToMidnight);

  refused = windows.admit("team-a", limits, 0, t0, at(kNov15) - milliseconds(1));
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, Millis(1));

  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, at(kNov15)).admitted);
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, at(kNov15)).admitted);
  refused = windows.admit("team-a", limits, 0, t0, at(kNov15));
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, Millis(86'400'000));  // a whole day from midnight
}

TEST(ClientWindows, TpmIsDeductedOnAdmissionAndSettledOnFinish) {
  ClientWindows windows;
  ClientLimits limits;
  limits.tpm = 600;  // 10 tokens per second
  EXPECT_TRUE(windows.admit("team-a", limits, 400, t0, kWall).admitted);
  ClientAdmission refused = windows.admit("team-a", limits, 300, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "tpm");
  EXPECT_EQ(refused.retry_after, Millis(10'000));  // 200 left, 300 needed

  windows.finish("team-a", limits, 400, 100, 0.0, t0, kWall);  // 300 returned: 500
  EXPECT_TRUE(windows.admit("team-a", limits, 500, t0, kWall).admitted);
  refused = windows.admit("team-a", limits, 1, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, Millis(100));

  windows.finish("team-a", limits, 500, 1100, 0.0, t0, kWall);  // 600 over: -600
  refused = windows.admit("team-a", limits, 600, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.retry_after, Millis(120'000));  // -600 -> 600 at 10 per second
  EXPECT_TRUE(windows.admit("team-a", limits, 600, t0 + seconds(120), kWall).admitted);
}

TEST(ClientWindows, ConcurrencySlotIsReleasedByFinish) {
  ClientWindows windows;
  ClientLimits limits;
  limits.concurrency = 2;
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  EXPECT_EQ(windows.inFlight("team-a"), 2);
  ClientAdmission refused = windows.admit("team-a", limits, 0, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "concurrency");
  EXPECT_EQ(refused.retry_after, Millis(1000));
  EXPECT_EQ(windows.inFlight("team-a"), 2);

  windows.finish("team-a", limits, 0, 0, 0.0, t0, kWall);
  EXPECT_EQ(windows.inFlight("team-a"), 1);
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  EXPECT_EQ(windows.inFlight("team-a"), 2);

  // Releases beyond the takes never go below zero.
  for (int i = 0; i < 3; ++i) windows.finish("team-a", limits, 0, 0, 0.0, t0, kWall);
  EXPECT_EQ(windows.inFlight("team-a"), 0);
  EXPECT_EQ(windows.inFlight("unknown"), 0);
}

TEST(ClientWindows, InFlightIsCountedWithoutAConcurrencyLimit) {
  ClientWindows windows;
  ClientLimits none;
  EXPECT_FALSE(none.any());
  EXPECT_TRUE(windows.admit("team-a", none, 0, t0, kWall).admitted);
  EXPECT_EQ(windows.inFlight("team-a"), 1);
  ClientLimits limited;
  limited.concurrency = 1;  // a reload while the request runs
  EXPECT_FALSE(windows.admit("team-a", limited, 0, t0, kWall).admitted);
  windows.finish("team-a", limited, 0, 0, 0.0, t0, kWall);
  EXPECT_EQ(windows.inFlight("team-a"), 0);
}

TEST(ClientWindows, RefusedAdmissionChangesNothing) {
  ClientWindows windows;
  ClientLimits limits;
  limits.concurrency = 1;
  limits.rpm = 2;
  limits.rpd = 2;
  limits.tpm = 1000;
  limits.daily_tokens = 50;
  ASSERT_TRUE(windows.admit("team-a", limits, 100, t0, kWall).admitted);
  windows.finish("team-a", limits, 100, 60, 0.0, t0, kWall);  // 60 spent of 50; TPM at 940

  // Concurrency, rpm, rpd and tpm pass; the daily budget refuses last.
  ClientAdmission refused = windows.admit("team-a", limits, 100, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "daily_tokens");
  EXPECT_EQ(windows.inFlight("team-a"), 0);

  // Without the budget, exactly what the first admission left is there: 1 more request in the
  // minute and the day, and all 940 tokens.
  limits.daily_tokens = 0;
  EXPECT_TRUE(windows.admit("team-a", limits, 940, t0, kWall).admitted);
  EXPECT_EQ(windows.inFlight("team-a"), 1);
  windows.finish("team-a", limits, 940, 940, 0.0, t0, kWall);
  refused = windows.admit("team-a", limits, 0, t0, kWall);
  EXPECT_EQ(refused.limit, "rpm");
  EXPECT_EQ(refused.retry_after, Millis(60'000));
  refused = windows.admit("team-a", limits, 0, t0 + seconds(60), kWall);
  EXPECT_EQ(refused.limit, "rpd");
  EXPECT_EQ(refused.retry_after, kToMidnight);
}

TEST(ClientWindows, DailyTokenBudgetRefusesUntilTheNextUtcDay) {
  ClientWindows windows;
  ClientLimits limits;
  limits.daily_tokens = 1000;
  ASSERT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  windows.finish("team-a", limits, 0, 600, 0.0, t0, kWall);
  ASSERT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);  // 600 < 1000
  windows.finish("team-a", limits, 0, 500, 0.0, t0, kWall);

  ClientAdmission refused = windows.admit("team-a", limits, 0, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "daily_tokens");
  EXPECT_EQ(refused.retry_after, kToMidnight);
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, at(kNov15)).admitted);
}

TEST(ClientWindows, SpendingIsWhatTheBudgetsCountInTheirPeriods) {
  ClientWindows windows;
  EXPECT_EQ(windows.spending("team-a", kWall).tokens_today, 0);  // an unknown key
  ClientLimits limits;
  limits.daily_tokens = 1000;
  limits.monthly_tokens = 10'000;
  limits.monthly_cost_usd = 50;
  ASSERT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  windows.finish("team-a", limits, 0, 600, 1.5, t0, kWall);
  ClientSpending spent = windows.spending("team-a", kWall);
  EXPECT_EQ(spent.tokens_today, 600);
  EXPECT_EQ(spent.tokens_this_month, 600);
  EXPECT_DOUBLE_EQ(spent.cost_today, 0);  // no daily cost budget: not kept
  EXPECT_DOUBLE_EQ(spent.cost_this_month, 1.5);
  spent = windows.spending("team-a", at(kNov15));  // the next day of the same month
  EXPECT_EQ(spent.tokens_today, 0);
  EXPECT_EQ(spent.tokens_this_month, 600);
  EXPECT_EQ(windows.spending("team-a", at(kDec1)).tokens_this_month, 0);
}

TEST(ClientWindows, MonthlyTokenBudgetRefusesUntilTheNextUtcMonth) {
  ClientWindows windows;
  ClientLimits limits;
  limits.monthly_tokens = 1000;
  ASSERT_TRUE(windows.admit("team-a", limits, 0, t0, kWall).admitted);
  windows.finish("team-a", limits, 0, 1000, 0.0, t0, kWall);

  ClientAdmission refused = windows.admit("team-a", limits, 0, t0, kWall);
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "monthly_tokens");
  EXPECT_EQ(refused.retry_after, kToDec1);
  refused = windows.admit("team-a", limits, 0, t0, at(kNov15));  // a new day, the same month
  EXPECT_EQ(refused.limit, "monthly_tokens");
  EXPECT_EQ(refused.retry_after, Millis((kDec1 - kNov15) * 1000));
  EXPECT_TRUE(windows.admit("team-a", limits, 0, t0, at(kDec1)).admitted);
}

TEST(ClientWindows, CostBudgetsRefuseOnceSpentReachesTheBudget) {
  ClientWindows windows;
  ClientLimits daily;
  daily.daily_cost_usd = 1.0;
  ASSERT_TRUE(windows.admit("team-a", daily, 0, t0, kWall).admitted);
  windows.finish("team-a", daily, 0, 0, 0.75, t0, kWall);
  ASSERT_TRUE(windows.admit("team-a", daily, 0, t0, kWall).admitted);  // 0.75 < 1.0
  windows.finish("team-a", daily, 0, 0, 0.25, t0, kWall);
  ClientAdmission refused = windows.admit("team-a", daily, 0, t0, kWall);  // 1.0 >= 1.0
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "daily_cost_usd");
  EXPECT_EQ(refused.retry_after, kToMidnight);
  EXPECT_TRUE(windows.admit("team-a", daily, 0, t0, at(kNov15)).admitted);

  ClientLimits monthly;
  monthly.monthly_cost_usd = 2.5;
  ASSERT_TRUE(windows.admit("team-b", monthly, 0, t0, kWall).admitted);
  windows.finish("team-b", monthly, 0, 0, 3.0, t0, kWall);
  refused = windows.admit("team-b", monthly, 0, t0, at(kNov15));
  EXPECT_FALSE(refused.admitted);
  EXPECT_EQ(refused.limit, "monthly_cost_usd");
  EXPECT_EQ(refused.retry_after, Millis((kDec1 - kNov15) * 1000));
  EXPECT_TRUE(windows.admit("team-b", monthly, 0, t0, at(kDec1)).admitted);
}

TEST(ClientWindows, RefusalNamesTheFirstLimitInTheDocumentedOrder) {
  ClientWindows windows;
  ClientLimits all;
  all.concurrency = 1;
  all.rpm = 1;
  all.rpd = 1;
  all.tpm = 100;
  all.daily_tokens = 10;
  all.monthly_tokens = 10;
  all.daily_cost_usd = 0.5;
  all.monthly_cost_usd = 0.5;
  ASSERT_TRUE(windows.admit("team-a", all, 100, t0, kWall).admitted);
  windows.finish("team-a", all, 100, 100, 1.0, t0, kWall);  // TPM at 0, budgets spent
  ClientLimits slot_only;
  slot_only.concurrency = 1;
  ASSERT_TRUE(windows.admit("team-a", slot_only, 0, t0, kWall).admitted);  // the slot is taken
  // Every limit now refuses; each removed in turn uncovers the next.
  struct Step {
    std::string_view limit;
    Millis retry_after;
  };
  Step const steps[] = {{"concurrency", Millis(1000)},  {"rpm", Millis(60'000)},
                        {"rpd", kToMidnight},           {"tpm", Millis(60'000)},
                        {"daily_tokens", kToMidnight},  {"monthly_tokens", kToDec1},
                        {"daily_cost_usd", kToMidnight}, {"monthly_cost_usd", kToDec1}};
  ClientLimits limits = all;
  for (Step const& step : steps) {
    ClientAdmission refused = windows.admit("team-a", limits, 100, t0, kWall);
    EXPECT_FALSE(refused.admitted);
    EXPECT_EQ(refused.limit, step.limit);
    EXPECT_EQ(refused.retry_after, step.retry_after) << step.limit;
    if (step.limit == "concurrency") limits.concurrency = 0;
    if (step.limit == "rpm") limits.rpm = 0;
    if (step.limit == "rpd") limits.rpd = 0;
    if (step.limit == "tpm") limits.tpm = 0;
    if (step.limit == "daily_tokens") limits.daily_tokens = 0;
    if (step.limit == "monthly_tokens") limits.monthly_tokens = 0;
    if (step.limit == "daily_cost_usd") limits.daily_cost_usd = 0;
    if (step.limit == "monthly_cost_usd") limits.monthly_cost_usd = 0;
  }
  EXPECT_FALSE(limits.any());
  ClientAdmission admitted = windows.admit("team-a", limits, 100, t0, kWall);
  EXPECT_TRUE(admitted.admitted);
  EXPECT_EQ(admitted.limit, "");
  EXPECT_EQ(admitted.retry_after, Millis(0));
}

// --- UTC calendar -------------------------------------------------------------------------------

TEST(UtcCalendar, BoundariesAndStamps) {
  EXPECT_EQ(nextUtcMidnight(kWall), at(kNov15));
  EXPECT_EQ(nextUtcMidnight(at(kNov15)), at(kNov15 + 86'400));  // at midnight: the next one
  EXPECT_EQ(nextUtcMonthStart(kWall), at(kDec1));
  EXPECT_EQ(nextUtcMonthStart(at(kDec1)), at(1'704'067'200));  // 2024-01-01: over the year
  EXPECT_EQ(utcDayStamp(kWall), "2023-11-14");
  EXPECT_EQ(utcMonthStamp(kWall), "2023-11");
  EXPECT_EQ(utcDayStamp(at(1'796'169'600)), "2026-12-02");
  EXPECT_EQ(utcMonthStamp(at(1'796'169'600)), "2026-12");
  EXPECT_EQ(utcDayStamp(at(kNov15) - milliseconds(1)), "2023-11-14");
}

}  // namespace
}  // namespace llmux::routing
