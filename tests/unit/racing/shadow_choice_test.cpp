#include "racing/shadow_choice.h"

#include <gtest/gtest.h>

#include <vector>

namespace llmux::racing {
namespace {

using Indexes = std::vector<std::size_t>;

ShadowCandidate candidate(std::string_view channel, std::string_view key_id,
                          std::string_view model = "claude-sonnet-4") {
  ShadowCandidate c;
  c.channel = channel;
  c.key_id = key_id;
  c.upstream_model = model;
  return c;
}

RacePolicy shadows(int n) {
  RacePolicy policy = policyFor(CostPreference::QualityFirst);
  policy.max_shadows = n;
  return policy;
}

TEST(ShadowChoice, ThePrimarysChannelAndKeyAreNeverItsShadows) {
  std::vector<ShadowCandidate> plan{
      candidate("relay-a", "relay-a/k1"),  // the primary
      candidate("relay-a", "relay-a/k2"),  // same channel
      candidate("mirror", "mirror/k1"),    // the primary's secret, configured in another channel
      candidate("relay-b", "relay-b/k3"),
  };
  auto choice = chooseShadows(plan, 0, shadows(3), false);
  EXPECT_EQ(choice.shadows, (Indexes{3}));
  EXPECT_EQ(choice.none_because, "");
}

TEST(ShadowChoice, UnavailableSlowSwitchedOffAndToolFailingCandidatesAreLeftOut) {
  std::vector<ShadowCandidate> plan{candidate("p", "p/k0"), candidate("a", "a/k1"),
                                    candidate("b", "b/k2"), candidate("c", "c/k3"),
                                    candidate("d", "d/k4"), candidate("e", "e/k5")};
  plan[1].available = false;
  plan[2].slow = true;
  plan[3].racing_enabled = false;
  plan[4].fails_tools = true;
  EXPECT_EQ(chooseShadows(plan, 0, shadows(3), true).shadows, (Indexes{5}));
  // Without tools, the tool record does not matter.
  EXPECT_EQ(chooseShadows(plan, 0, shadows(3), false).shadows, (Indexes{4, 5}));
  plan[5].available = false;
  auto none = chooseShadows(plan, 0, shadows(3), true);
  EXPECT_TRUE(none.shadows.empty());
  EXPECT_EQ(none.none_because, "none_eligible");
}

TEST(ShadowChoice, ShadowsGoToDistinctKeysInTheRoutersOrderUpToTheMaximum) {
  std::vector<ShadowCandidate> plan{
      candidate("p", "p/k0"),
      candidate("a", "a/k1", "claude-sonnet-4"),
      candidate("a2", "a2/k1", "claude-opus-4"),  // k1 again, through another channel
      candidate("b", "b/k2"),
      candidate("c", "c/k3"),
      candidate("d", "d/k4"),
  };
  EXPECT_EQ(chooseShadows(plan, 0, shadows(3), false).shadows, (Indexes{1, 3, 4}));
  EXPECT_EQ(chooseShadows(plan, 0, shadows(1), false).shadows, (Indexes{1}));
  EXPECT_TRUE(chooseShadows(plan, 0, shadows(0), false).shadows.empty());
  // A primary that is not first: candidates before it count too.
  EXPECT_EQ(chooseShadows(plan, 3, shadows(2), false).shadows, (Indexes{0, 1}));
}

TEST(ShadowChoice, CostFirstTakesOnlyCandidatesAtMostHalfThePrimarysPrice) {
  std::vector<ShadowCandidate> plan{candidate("p", "p/k0"), candidate("a", "a/k1"),
                                    candidate("b", "b/k2"), candidate("c", "c/k3")};
  plan[0].price = 18.0;
  plan[1].price = 12.0;  // two thirds: too dear
  plan[2].price = 9.0;   // half: cheap enough
  // plan[3] unpriced: never assumed cheap
  RacePolicy cost_first = policyFor(CostPreference::CostFirst);
  EXPECT_EQ(chooseShadows(plan, 0, cost_first, false).shadows, (Indexes{2}));
  plan[2].price = 9.5;
  auto none = chooseShadows(plan, 0, cost_first, false);
  EXPECT_TRUE(none.shadows.empty());
  EXPECT_EQ(none.none_because, "none_cheaper");
  plan[0].price.reset();
  EXPECT_EQ(chooseShadows(plan, 0, cost_first, false).none_because, "primary_unpriced");
  // Other preferences ignore prices.
  EXPECT_EQ(chooseShadows(plan, 0, policyFor(CostPreference::Balanced), false).shadows,
            (Indexes{1}));
}

TEST(ShadowChoice, KeyAccountsAreTheHashOfTheId) {
  EXPECT_EQ(keyAccount("relay-a/3f2a9c"), "3f2a9c");
  EXPECT_EQ(keyAccount("bare"), "bare");
}

}  // namespace
}  // namespace llmux::racing
