#include "racing/threshold_registry.h"

#include <gtest/gtest.h>

namespace llmux::racing {
namespace {

using namespace std::chrono_literals;

MonoTime const kT0{std::chrono::hours(100)};
ThresholdBounds const kBounds{8s, 60s};

struct ThresholdRegistryTest : ::testing::Test {
  ThresholdRegistry registry;

  /// `n` samples of 1 s, 2 s, ... n s, one a second from kT0.
  void recordRamp(int n, ModelFamily family = ModelFamily::Claude,
                  Stage stage = Stage::StreamFirstContent) {
    for (int i = 1; i <= n; ++i) {
      registry.record(family, stage, Millis(i * 1000), kT0 + std::chrono::seconds(i));
    }
  }
};

TEST_F(ThresholdRegistryTest, TooFewSamplesGiveTheFloor) {
  recordRamp(19, ModelFamily::Claude);
  MonoTime now = kT0 + 20s;
  EXPECT_EQ(registry.sampleCount(ModelFamily::Claude, Stage::StreamFirstContent, now), 19u);
  EXPECT_FALSE(registry.p90(ModelFamily::Claude, Stage::StreamFirstContent, now));
  // Samples of 1-19 s would have a p90 of 18 s: not enough of them yet.
  EXPECT_EQ(registry.threshold(ModelFamily::Claude, Stage::StreamFirstContent, kBounds, now), 8s);
}

TEST_F(ThresholdRegistryTest, TwentySamplesGiveTheirP90) {
  recordRamp(20);
  MonoTime now = kT0 + 21s;
  EXPECT_EQ(registry.p90(ModelFamily::Claude, Stage::StreamFirstContent, now), 18s);
  EXPECT_EQ(registry.threshold(ModelFamily::Claude, Stage::StreamFirstContent, kBounds, now), 18s);
}

TEST_F(ThresholdRegistryTest, AP90UnderTheFloorIsRaisedToIt) {
  for (int i = 0; i < 30; ++i) {
    registry.record(ModelFamily::Gpt, Stage::StreamFirstContent, 500ms, kT0 + Millis(i));
  }
  EXPECT_EQ(registry.p90(ModelFamily::Gpt, Stage::StreamFirstContent, kT0 + 1s), 500ms);
  EXPECT_EQ(registry.threshold(ModelFamily::Gpt, Stage::StreamFirstContent, kBounds, kT0 + 1s),
            8s);
}

TEST_F(ThresholdRegistryTest, AP90OverTheCeilingIsCutToIt) {
  for (int i = 0; i < 30; ++i) {
    registry.record(ModelFamily::Gemini, Stage::NonStreamCompletion, 90s, kT0 + Millis(i));
  }
  EXPECT_EQ(
      registry.threshold(ModelFamily::Gemini, Stage::NonStreamCompletion, kBounds, kT0 + 1s),
      60s);
}

TEST_F(ThresholdRegistryTest, SamplesExpireAfterFifteenMinutes) {
  recordRamp(25);
  MonoTime const last = kT0 + 25s;
  EXPECT_TRUE(registry.p90(ModelFamily::Claude, Stage::StreamFirstContent, last));
  // 15 minutes after the 6th sample, the first six are gone: 19 left, the floor again.
  MonoTime const later = kT0 + 6s + ThresholdRegistry::kWindow + 1ms;
  EXPECT_EQ(registry.sampleCount(ModelFamily::Claude, Stage::StreamFirstContent, later), 19u);
  EXPECT_EQ(registry.threshold(ModelFamily::Claude, Stage::StreamFirstContent, kBounds, later),
            8s);
  EXPECT_EQ(registry.sampleCount(ModelFamily::Claude, Stage::StreamFirstContent,
                                 last + ThresholdRegistry::kWindow + 1ms),
            0u);
}

TEST_F(ThresholdRegistryTest, FamiliesAndStagesHaveWindowsOfTheirOwn) {
  recordRamp(30, ModelFamily::Claude, Stage::StreamFirstContent);
  MonoTime now = kT0 + 31s;
  EXPECT_EQ(registry.threshold(ModelFamily::Claude, Stage::StreamFirstContent, kBounds, now), 27s);
  EXPECT_EQ(registry.threshold(ModelFamily::Claude, Stage::NonStreamCompletion, kBounds, now), 8s);
  EXPECT_EQ(registry.threshold(ModelFamily::Gpt, Stage::StreamFirstContent, kBounds, now), 8s);
  EXPECT_EQ(registry.sampleCount(ModelFamily::Other, Stage::StreamFirstContent, now), 0u);
}

TEST_F(ThresholdRegistryTest, TheRingKeepsItsNewestSamples) {
  ThresholdRegistry small(40);
  // 40 slow samples, then 40 fast ones: only the fast ones are left.
  for (int i = 0; i < 40; ++i) {
    small.record(ModelFamily::Other, Stage::StreamFirstContent, 50s, kT0 + Millis(i));
  }
  for (int i = 40; i < 80; ++i) {
    small.record(ModelFamily::Other, Stage::StreamFirstContent, 9s, kT0 + Millis(i));
  }
  EXPECT_EQ(small.sampleCount(ModelFamily::Other, Stage::StreamFirstContent, kT0 + 1s), 40u);
  EXPECT_EQ(small.p90(ModelFamily::Other, Stage::StreamFirstContent, kT0 + 1s), 9s);
}

TEST_F(ThresholdRegistryTest, ANewSampleMovesTheThreshold) {
  recordRamp(20);
  MonoTime now = kT0 + 21s;
  EXPECT_EQ(registry.p90(ModelFamily::Claude, Stage::StreamFirstContent, now), 18s);
  for (int i = 0; i < 10; ++i) {
    registry.record(ModelFamily::Claude, Stage::StreamFirstContent, 40s, now);
  }
  EXPECT_EQ(registry.p90(ModelFamily::Claude, Stage::StreamFirstContent, now), 40s);
}

TEST_F(ThresholdRegistryTest, AFullWindowsP90IsComputedAgainAfterAFewChangesOrASecond) {
  // 400 samples: 360 of 1 s, 40 of 2 s; the p90 (nearest rank 360) is 1 s.
  MonoTime now = kT0;
  for (int i = 0; i < 400; ++i) {
    registry.record(ModelFamily::Gpt, Stage::StreamFirstContent, i < 360 ? 1s : 2s, now);
  }
  EXPECT_EQ(registry.p90(ModelFamily::Gpt, Stage::StreamFirstContent, now), 1s);
  // Ten more of 2 s make it 2 s (rank 369 of 410), but ten changes are under a quarter of the
  // window: the cached figure stands, until a second has passed...
  for (int i = 0; i < 10; ++i) registry.record(ModelFamily::Gpt, Stage::StreamFirstContent, 2s, now);
  EXPECT_EQ(registry.p90(ModelFamily::Gpt, Stage::StreamFirstContent, now + 999ms), 1s);
  EXPECT_EQ(registry.p90(ModelFamily::Gpt, Stage::StreamFirstContent, now + 1s), 2s);
  // ...or a quarter of the window (full at 512) changed: after 127 samples of 9 s the p90 would
  // be 9 s (rank 461 of 512, past 335 of 1 s and 50 of 2 s) but the cached 2 s stands; the 128th
  // makes it fall.
  for (int i = 0; i < 127; ++i) registry.record(ModelFamily::Gpt, Stage::StreamFirstContent, 9s, now + 1s);
  EXPECT_EQ(registry.p90(ModelFamily::Gpt, Stage::StreamFirstContent, now + 1s), 2s);
  registry.record(ModelFamily::Gpt, Stage::StreamFirstContent, 9s, now + 1s);
  EXPECT_EQ(registry.p90(ModelFamily::Gpt, Stage::StreamFirstContent, now + 1s), 9s);
}

}  // namespace
}  // namespace llmux::racing
