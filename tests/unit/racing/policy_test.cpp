#include "racing/policy.h"

#include <gtest/gtest.h>

#include "racing/model_family.h"

namespace llmux::racing {
namespace {

using namespace std::chrono_literals;
using protocol::ReasoningTier;

TEST(RacePolicy, EachPreferenceHasItsShadowsFloorsAndFilter) {
  RacePolicy quality = policyFor(CostPreference::QualityFirst);
  EXPECT_EQ(quality.max_shadows, 3);
  EXPECT_EQ(quality.stream_floor, 4s);
  EXPECT_EQ(quality.non_stream_floor, 10s);
  EXPECT_FALSE(quality.cheaper_shadows_only);

  RacePolicy balanced = policyFor(CostPreference::Balanced);
  EXPECT_EQ(balanced.max_shadows, 1);
  EXPECT_EQ(balanced.stream_floor, 8s);
  EXPECT_EQ(balanced.non_stream_floor, 10s);
  EXPECT_FALSE(balanced.cheaper_shadows_only);

  RacePolicy cost = policyFor(CostPreference::CostFirst);
  EXPECT_EQ(cost.max_shadows, 1);
  EXPECT_EQ(cost.stream_floor, 8s);
  EXPECT_TRUE(cost.cheaper_shadows_only);
}

TEST(RacePolicy, TheHeaderWinsOverTheKeyWhichWinsOverTheGlobalSetting) {
  auto const global = CostPreference::CostFirst;
  EXPECT_EQ(effectivePreference(std::nullopt, std::nullopt, global), CostPreference::CostFirst);
  EXPECT_EQ(effectivePreference(std::nullopt, CostPreference::QualityFirst, global),
            CostPreference::QualityFirst);
  EXPECT_EQ(effectivePreference("quality_first", CostPreference::CostFirst, global),
            CostPreference::QualityFirst);
  // A header that names nothing is balanced, not the key's or the global preference.
  EXPECT_EQ(effectivePreference("fastest", CostPreference::QualityFirst, global),
            CostPreference::Balanced);
  EXPECT_EQ(effectivePreference("", std::nullopt, global), CostPreference::Balanced);
}

TEST(RacePolicy, NamesRoundTrip) {
  for (auto preference :
       {CostPreference::QualityFirst, CostPreference::Balanced, CostPreference::CostFirst}) {
    EXPECT_EQ(config::parseCostPreference(config::costPreferenceName(preference)), preference);
  }
  EXPECT_FALSE(config::parseCostPreference("Balanced"));
}

TEST(RacePolicy, ReasoningRaisesTheStreamFloorAndNeverLowersIt) {
  EXPECT_EQ(streamFloorForReasoning(8s, ReasoningTier::None), 8s);
  EXPECT_EQ(streamFloorForReasoning(4s, ReasoningTier::Low), 16s);
  EXPECT_EQ(streamFloorForReasoning(8s, ReasoningTier::Medium), 24s);
  EXPECT_EQ(streamFloorForReasoning(4s, ReasoningTier::High), 30s);
  EXPECT_EQ(streamFloorForReasoning(35s, ReasoningTier::Low), 35s);
}

TEST(RacePolicy, TheFloorIsCutToTheCeiling) {
  ThresholdBounds bounds = boundsFor(24s, 10s);
  EXPECT_EQ(bounds.floor, 10s);
  EXPECT_EQ(bounds.ceiling, 10s);
  bounds = boundsFor(8s, 60s);
  EXPECT_EQ(bounds.floor, 8s);
  EXPECT_EQ(bounds.ceiling, 60s);
}

TEST(ModelFamily, ModelsFallIntoTheirFamilies) {
  EXPECT_EQ(familyOf("claude-sonnet-4-5-20250929"), ModelFamily::Claude);
  EXPECT_EQ(familyOf("anthropic/claude-3-haiku"), ModelFamily::Claude);
  EXPECT_EQ(familyOf("Opus-4"), ModelFamily::Claude);
  EXPECT_EQ(familyOf("gpt-4o-mini"), ModelFamily::Gpt);
  EXPECT_EQ(familyOf("o3-mini"), ModelFamily::Gpt);
  EXPECT_EQ(familyOf("o4-mini"), ModelFamily::Gpt);
  EXPECT_EQ(familyOf("o1"), ModelFamily::Gpt);
  EXPECT_EQ(familyOf("gpt-5-codex"), ModelFamily::Gpt);
  EXPECT_EQ(familyOf("openai/codex-mini-latest"), ModelFamily::Gpt);
  EXPECT_EQ(familyOf("gemini-2.5-pro"), ModelFamily::Gemini);
  EXPECT_EQ(familyOf("models/gemini-2.5-flash"), ModelFamily::Gemini);
  EXPECT_EQ(familyOf("deepseek-chat"), ModelFamily::Other);
  EXPECT_EQ(familyOf("kimi-k2-0711-preview"), ModelFamily::Other);
  EXPECT_EQ(familyOf("vertex-gemini"), ModelFamily::Other);  // a prefix, not anywhere
  EXPECT_EQ(familyOf(""), ModelFamily::Other);
  EXPECT_EQ(familyName(ModelFamily::Gpt), "gpt");
}

}  // namespace
}  // namespace llmux::racing
