#include "racing/latency_memory.h"

#include <gtest/gtest.h>

namespace llmux::racing {
namespace {

using namespace std::chrono_literals;

WallTime const kT0{std::chrono::hours(500'000)};
Combination const kSlowRelay{"relay-a/3f2a", "claude-sonnet-4", "coding"};

TEST(LatencyMemory, ThreeSlowSamplesInARowDegradeAndOneFastOneRecovers) {
  LatencyMemory memory;
  using Change = LatencyMemory::Change;
  EXPECT_EQ(memory.noteSlow(kSlowRelay, kT0), Change::None);
  EXPECT_EQ(memory.noteSlow(kSlowRelay, kT0 + 1s), Change::None);
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 1s));
  EXPECT_EQ(memory.noteSlow(kSlowRelay, kT0 + 2s), Change::Degraded);
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0 + 2s));
  EXPECT_EQ(memory.noteSlow(kSlowRelay, kT0 + 3s), Change::None);  // logged once
  // A first token in under half the threshold: recovered at once.
  EXPECT_EQ(memory.noteFirstToken(kSlowRelay, 3s, 8s, kT0 + 4s), Change::Recovered);
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 4s));
  // The streak starts again from nothing.
  memory.noteSlow(kSlowRelay, kT0 + 5s);
  memory.noteSlow(kSlowRelay, kT0 + 6s);
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 6s));
}

TEST(LatencyMemory, AFastSampleBreaksTheStreakAndANeutralOneDoesNot) {
  LatencyMemory memory;
  memory.noteFirstToken(kSlowRelay, 9s, 8s, kT0);           // slow
  memory.noteFirstToken(kSlowRelay, 6s, 8s, kT0 + 1s);      // neither
  memory.noteFirstToken(kSlowRelay, 10s, 8s, kT0 + 2s);     // slow
  EXPECT_EQ(memory.noteFirstToken(kSlowRelay, 12s, 8s, kT0 + 3s), LatencyMemory::Change::Degraded);
  LatencyMemory other;
  other.noteSlow(kSlowRelay, kT0);
  other.noteSlow(kSlowRelay, kT0);
  other.noteFirstToken(kSlowRelay, 1s, 8s, kT0);  // fast: the row is broken
  EXPECT_EQ(other.noteSlow(kSlowRelay, kT0), LatencyMemory::Change::None);
  EXPECT_FALSE(other.degraded(kSlowRelay, kT0));
}

TEST(LatencyMemory, TheUnknownTaskClassCoversEveryClass) {
  LatencyMemory memory;
  Combination any{"relay-a/3f2a", "claude-sonnet-4", "unknown"};
  for (int i = 0; i < 3; ++i) memory.noteSlow(any, kT0);
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0));
  Combination other_model{"relay-a/3f2a", "claude-opus-4", "coding"};
  EXPECT_FALSE(memory.degraded(other_model, kT0));
  // A degraded class does not spread to the others.
  LatencyMemory classes;
  for (int i = 0; i < 3; ++i) classes.noteSlow(kSlowRelay, kT0);
  EXPECT_FALSE(classes.degraded(Combination{"relay-a/3f2a", "claude-sonnet-4", "chat"}, kT0));
}

TEST(LatencyMemory, EvidenceIsKeptForADay) {
  LatencyMemory memory;
  for (int i = 0; i < 3; ++i) memory.noteSlow(kSlowRelay, kT0);
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0 + 23h));
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 24h + 1s));
  EXPECT_TRUE(memory.list(kT0 + 24h + 1s).empty());
}

TEST(LatencyMemory, EntriesAreListedAndClearedByAStableId) {
  LatencyMemory memory;
  for (int i = 0; i < 3; ++i) memory.noteSlow(kSlowRelay, kT0);
  Combination mild{"relay-b/77aa", "gpt-4o", "unknown"};
  memory.noteSlow(mild, kT0);
  auto entries = memory.list(kT0);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_TRUE(entries[0].degraded);
  EXPECT_EQ(entries[0].combination, kSlowRelay);
  EXPECT_EQ(entries[0].slow_streak, 3);
  EXPECT_FALSE(entries[1].degraded);
  EXPECT_EQ(entries[0].id, LatencyMemory::idOf(kSlowRelay));
  EXPECT_EQ(entries[0].id.size(), 16u);
  EXPECT_NE(entries[0].id, entries[1].id);
  // The id does not run fields together: ("ab", "c") is not ("a", "bc").
  EXPECT_NE(LatencyMemory::idOf({"ab", "c", "x"}), LatencyMemory::idOf({"a", "bc", "x"}));
  EXPECT_TRUE(memory.clear(entries[0].id));
  EXPECT_FALSE(memory.clear(entries[0].id));
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0));
  EXPECT_EQ(memory.list(kT0).size(), 1u);
}

}  // namespace
}  // namespace llmux::racing
