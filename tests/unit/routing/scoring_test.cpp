#include "routing/scoring.h"

#include <gtest/gtest.h>

#include <cmath>

namespace llmux::routing {
namespace {

using config::Billing;
using config::Strategy;
using namespace std::chrono_literals;

TEST(Scoring, ConsecutiveFailuresDecayByPointEightOrPointSeven) {
  EXPECT_DOUBLE_EQ(failureFactor(0, Strategy::Intelligent), 1.0);
  EXPECT_DOUBLE_EQ(failureFactor(1, Strategy::Intelligent), 0.8);
  EXPECT_NEAR(failureFactor(3, Strategy::Intelligent), 0.512, 1e-12);
  EXPECT_DOUBLE_EQ(failureFactor(1, Strategy::Fast), 0.7);
  EXPECT_NEAR(failureFactor(2, Strategy::Fast), 0.49, 1e-12);
  EXPECT_NEAR(failureFactor(40, Strategy::Intelligent), std::pow(0.8, 40), 1e-15);
}

TEST(Scoring, CooldownGrowsByFifteenSecondsUpToTwoMinutes) {
  EXPECT_EQ(cooldownDuration(0), 15s);
  EXPECT_EQ(cooldownDuration(1), 30s);
  EXPECT_EQ(cooldownDuration(6), 105s);
  EXPECT_EQ(cooldownDuration(7), 120s);
  EXPECT_EQ(cooldownDuration(50), 120s);
  EXPECT_EQ(cooldownFactor(true), 0.0);
  EXPECT_EQ(cooldownFactor(false), 1.0);
}

TEST(Scoring, AffinityTakesTheLargerBoostAndNeverPinsToAFailingKey) {
  EXPECT_DOUBLE_EQ(affinityFactor(false, false, 0), 1.0);
  EXPECT_DOUBLE_EQ(affinityFactor(true, false, 0), 4.0);
  EXPECT_DOUBLE_EQ(affinityFactor(false, true, 0), 1.5);
  EXPECT_DOUBLE_EQ(affinityFactor(true, true, 0), 4.0) << "the larger, not the product";
  EXPECT_DOUBLE_EQ(affinityFactor(true, true, 1), 0.3) << "one failure moves the session";
  EXPECT_LT(affinityFactor(true, true, 1), affinityFactor(false, false, 0));
  EXPECT_EQ(affinityFactor(true, true, 2), 0.0) << "excluded after two failures";
}

TEST(Scoring, PerRequestBillingCrossesOverAtTwoThousandTokens) {
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerToken, 100'000, std::nullopt), 1.0);
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerRequest, 2000, std::nullopt), 1.0);
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerRequest, 4000, std::nullopt), 2.0);
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerRequest, 1000, std::nullopt), 0.5);
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerRequest, 10, std::nullopt), 0.25);
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerRequest, 1'000'000, std::nullopt), 4.0);
}

TEST(Scoring, DailyQuotaBelowTwentyPercentMultipliesByPointThree) {
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerToken, 0, 0.2), 1.0);
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerToken, 0, 0.19), 0.3);
  EXPECT_DOUBLE_EQ(billingFactor(Billing::PerRequest, 4000, 0.1), 0.6);
}

TEST(Scoring, SuccessYieldAfterARun) {
  EXPECT_EQ(yieldFactor(9), 1.0);
  EXPECT_EQ(yieldFactor(10), 0.85);
  EXPECT_EQ(yieldFactor(1000), 0.85);
}

TEST(Scoring, PerformanceRewardsSuccessAndSpeedFastMoreSo) {
  EXPECT_DOUBLE_EQ(performanceFactor(1, std::nullopt, Strategy::Intelligent), 1.0);
  EXPECT_DOUBLE_EQ(performanceFactor(0.5, std::nullopt, Strategy::Intelligent), 0.5);
  EXPECT_DOUBLE_EQ(performanceFactor(1, 2000, Strategy::Intelligent), 0.5);
  EXPECT_DOUBLE_EQ(performanceFactor(1, 500, Strategy::Fast), 0.25);
  double slow_vs_quick_intelligent =
      performanceFactor(1, 3000, Strategy::Intelligent) / performanceFactor(1, 300, Strategy::Intelligent);
  double slow_vs_quick_fast = performanceFactor(1, 3000, Strategy::Fast) / performanceFactor(1, 300, Strategy::Fast);
  EXPECT_LT(slow_vs_quick_fast, slow_vs_quick_intelligent) << "speed dominates fast";
}

}  // namespace
}  // namespace llmux::routing
