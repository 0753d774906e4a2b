#include "racing/latency_memory.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

TEST(LatencyMemory, EmptyTellsWithoutALockWhetherAnythingIsRemembered) {
  LatencyMemory memory;
  EXPECT_TRUE(memory.empty());
  memory.noteSlow(kSlowRelay, kT0);
  EXPECT_FALSE(memory.empty());
  memory.noteFast(kSlowRelay, kT0 + 1s);
  EXPECT_TRUE(memory.empty()) << "recovered: nothing left";
  memory.noteSlow(kSlowRelay, kT0 + 2s);
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 2s + LatencyMemory::kKeep + 1s));
  EXPECT_TRUE(memory.empty()) << "expired";
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

/// Writes down what a sink is told, as "save <id> <streak> <degraded>" and "remove <id>".
class RecordingSink final : public LatencySink {
 public:
  void latencySaved(LatencyMemory::Entry const& entry) override {
    told.push_back("save " + entry.id + " " + std::to_string(entry.slow_streak) +
                   (entry.degraded ? " degraded" : ""));
    last_saved = entry;
  }
  void latencyRemoved(std::string const& id, Combination const&) override {
    told.push_back("remove " + id);
  }
  void latencyAdopted(Combination const& combination, bool degraded) override {
    told.push_back("adopt " + LatencyMemory::idOf(combination) + (degraded ? " degraded" : ""));
  }

  std::vector<std::string> told;
  LatencyMemory::Entry last_saved;
};

TEST(LatencyMemory, EveryChangeIsToldToTheSinkInOrder) {
  LatencyMemory memory;
  RecordingSink sink;
  memory.setSink(&sink);
  std::string const id = LatencyMemory::idOf(kSlowRelay);
  for (int i = 0; i < 3; ++i) memory.noteSlow(kSlowRelay, kT0 + std::chrono::seconds(i));
  EXPECT_EQ(sink.last_saved.combination, kSlowRelay);
  EXPECT_EQ(sink.last_saved.updated_at, kT0 + 2s);
  memory.noteFirstToken(kSlowRelay, 6s, 8s, kT0 + 3s);  // neither slow nor fast: nothing changes
  memory.noteFast(kSlowRelay, kT0 + 4s);                 // recovered: forgotten
  memory.noteFast(kSlowRelay, kT0 + 5s);                 // nothing left to forget
  memory.noteSlow(kSlowRelay, kT0 + 6s);
  EXPECT_TRUE(memory.clear(id));
  memory.noteSlow(kSlowRelay, kT0 + 7s);
  memory.list(kT0 + 7s + 24h + 1s);  // expired
  EXPECT_EQ(sink.told, (std::vector<std::string>{
                           "save " + id + " 1", "save " + id + " 2", "save " + id + " 3 degraded",
                           "remove " + id, "save " + id + " 1", "remove " + id,
                           "save " + id + " 1", "remove " + id}));
  memory.setSink(nullptr);
  memory.noteSlow(kSlowRelay, kT0);
  EXPECT_EQ(sink.told.size(), 8u);
}

TEST(LatencyMemory, LoadsKeptEntriesAndDropsThoseOverADayOld) {
  Combination mild{"relay-b/77aa", "gpt-4o", "unknown"};
  Combination old{"relay-c/0101", "gemini-2.5-pro", "chat"};
  std::vector<LatencyMemory::Entry> kept{
      {"ignored", kSlowRelay, 3, true, kT0 - 23h},
      {"", mild, 1, false, kT0 - 1h},
      {"", old, 3, true, kT0 - 24h - 1s},
  };
  LatencyMemory memory;
  RecordingSink sink;
  memory.setSink(&sink);
  memory.load(kept, kT0);
  EXPECT_TRUE(sink.told.empty()) << "what was loaded came from the store";
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0));
  EXPECT_FALSE(memory.degraded(old, kT0));
  auto entries = memory.list(kT0);
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].id, LatencyMemory::idOf(kSlowRelay));  // ids are derived, not loaded
  EXPECT_EQ(entries[1].combination, mild);
  EXPECT_EQ(entries[1].slow_streak, 1);
  // The streak goes on from where it was: two more slow pieces of evidence degrade.
  memory.noteSlow(mild, kT0);
  EXPECT_EQ(memory.noteSlow(mild, kT0), LatencyMemory::Change::Degraded);
  // Kept for a day from its last evidence, as before the restart.
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 1h + 1s));
}

/// An entry as another replica stored it.
LatencyMemory::Entry storedEntry(Combination const& combination, int streak, bool degraded,
                                 WallTime updated_at) {
  return {LatencyMemory::idOf(combination), combination, streak, degraded, updated_at};
}

TEST(LatencyMemory, AdoptTakesAnotherReplicasVerdictWithoutWritingItBack) {
  LatencyMemory memory;
  RecordingSink sink;
  memory.setSink(&sink);
  std::string const id = LatencyMemory::idOf(kSlowRelay);
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 3, true, kT0)}, kT0 + 1s), 1u);
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0 + 1s));
  EXPECT_EQ(sink.told, (std::vector<std::string>{"adopt " + id + " degraded"}))
      << "the router hears it; nothing is saved again";
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 3, true, kT0)}, kT0 + 2s), 0u)
      << "the same entry again changes nothing";

  // Recovered elsewhere: gone from the store, so gone here.
  EXPECT_EQ(memory.adopt({}, kT0 + 3s), 1u);
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 3s));
  EXPECT_EQ(sink.told.back(), "adopt " + id);
  EXPECT_TRUE(memory.empty());
  // Over a day old: not taken.
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 3, true, kT0)}, kT0 + LatencyMemory::kKeep + 1s),
            0u);
}

TEST(LatencyMemory, AdoptKeepsThisReplicasChangesThatAreNotStoredYet) {
  LatencyMemory memory;
  RecordingSink sink;
  memory.setSink(&sink);
  Combination const mild{"relay-b/77aa", "gpt-4o", "unknown"};
  std::string const id = LatencyMemory::idOf(kSlowRelay);
  memory.adopt({}, kT0);
  // Slow here, newer than what the store holds: kept until its write lands.
  for (int i = 0; i < 3; ++i) memory.noteSlow(kSlowRelay, kT0 + 10s);
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 1, false, kT0 + 5s)}, kT0 + 11s), 0u);
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0 + 11s));
  // Newer elsewhere: taken.
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 2, false, kT0 + 20s)}, kT0 + 21s), 1u);
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 21s));

  // Made here and never stored: a look that misses it does not forget it.
  memory.noteSlow(mild, kT0 + 22s);
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 2, false, kT0 + 20s)}, kT0 + 23s), 0u);
  EXPECT_EQ(memory.list(kT0 + 23s).size(), 2u);
  // Once stored (the writer says so), a look that misses it means another replica removed it.
  memory.noteStored(LatencyMemory::idOf(mild));
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 2, false, kT0 + 20s)}, kT0 + 24s), 1u);
  EXPECT_EQ(memory.list(kT0 + 24s).size(), 1u);

  // Recovered here while the store still holds it: not brought back by the next look ...
  memory.noteFast(kSlowRelay, kT0 + 25s);
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 2, false, kT0 + 20s)}, kT0 + 26s), 0u);
  EXPECT_TRUE(memory.empty());
  // ... and once the store shows the removal, a later slow verdict elsewhere is taken again.
  memory.adopt({}, kT0 + 27s);
  EXPECT_EQ(memory.adopt({storedEntry(kSlowRelay, 3, true, kT0 + 28s)}, kT0 + 29s), 1u);
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0 + 29s));
  EXPECT_EQ(sink.told.back(), "adopt " + id + " degraded");
}

TEST(LatencyMemory, ASnapshotReadBeforeASaveDoesNotTakeItForRemoved) {
  LatencyMemory memory;
  memory.adopt({}, kT0);
  for (int i = 0; i < 3; ++i) memory.noteSlow(kSlowRelay, kT0 + 10s);
  // A look begins, the save lands and is noted, then the look's snapshot (without it) arrives.
  std::uint64_t const read_mark = memory.storeMark();
  memory.noteStored(LatencyMemory::idOf(kSlowRelay));
  EXPECT_EQ(memory.adopt({}, kT0 + 11s, read_mark), 0u);
  EXPECT_TRUE(memory.degraded(kSlowRelay, kT0 + 11s)) << "the read could not see the save";
  // A look that began after the save and misses it: removed elsewhere.
  EXPECT_EQ(memory.adopt({}, kT0 + 12s, memory.storeMark()), 1u);
  EXPECT_FALSE(memory.degraded(kSlowRelay, kT0 + 12s));
}

}  // namespace
}  // namespace llmux::racing
