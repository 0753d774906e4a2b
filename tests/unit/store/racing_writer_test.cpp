#include "store/racing_writer.h"

#include <gtest/gtest.h>

#include "temp_dir.h"

namespace llmux::store {
namespace {

using namespace std::chrono_literals;
using config::CostPreference;
using racing::Combination;
using racing::LatencyMemory;

Combination const kSlowRelay{"relay-a/3f2a", "claude-sonnet-4", "coding"};

class RacingWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteRacingStore::open(dir.path());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    rows = std::move(*opened);
  }

  std::vector<LatencyMemory::Entry> kept() {
    auto loaded = rows->loadLatency(clock.wallNow());
    EXPECT_TRUE(loaded.ok());
    return loaded.ok() ? std::move(*loaded) : std::vector<LatencyMemory::Entry>{};
  }

  TempDir dir;
  ManualTimeSource clock;
  config::RacingSettings settings;
  std::unique_ptr<SqliteRacingStore> rows;
};

TEST_F(RacingWriterTest, RestorePutsTheKeptSwitchesAndLearningIntoTheState) {
  WallTime now = clock.wallNow();
  ASSERT_TRUE(rows->saveSwitches({true, CostPreference::QualityFirst}, now).ok());
  ASSERT_TRUE(rows->saveLatency({LatencyMemory::idOf(kSlowRelay), kSlowRelay, 3, true, now - 1h}).ok());
  racing::RacingState state(settings);
  RacingWriter writer(*rows, state, clock);
  ASSERT_TRUE(writer.restore().ok());
  EXPECT_EQ(state.enabledOverride(), true);
  EXPECT_TRUE(state.enabled(settings));
  EXPECT_EQ(state.preference(settings), CostPreference::QualityFirst);
  EXPECT_TRUE(state.latency.degraded(kSlowRelay, now));
  ASSERT_EQ(state.latency.list(now).size(), 1u);
}

TEST_F(RacingWriterTest, ChangesToTheStateAreWrittenBehindIt) {
  racing::RacingState state(settings);
  RacingWriter writer(*rows, state, clock);
  ASSERT_TRUE(writer.restore().ok());
  EXPECT_EQ(state.enabledOverride(), std::nullopt);
  WallTime now = clock.wallNow();
  for (int i = 0; i < 3; ++i) state.latency.noteSlow(kSlowRelay, now);
  Combination mild{"relay-b/77aa", "gpt-4o", "unknown"};
  state.latency.noteSlow(mild, now);
  // Of two changes of the switches, the last stays, whatever the writer saw when they queued.
  state.overrideEnabled(true);
  state.switchesChanged();
  state.overrideEnabled(std::nullopt);
  state.overridePreference(CostPreference::CostFirst);
  state.switchesChanged();
  writer.flush();
  auto entries = kept();
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[0].combination, kSlowRelay);
  EXPECT_TRUE(entries[0].degraded);
  EXPECT_EQ(entries[0].slow_streak, 3);
  EXPECT_EQ(rows->loadSwitches().value(), (RacingSwitches{std::nullopt, CostPreference::CostFirst}));

  EXPECT_TRUE(state.latency.clear(LatencyMemory::idOf(kSlowRelay)));
  state.latency.noteFast(mild, now);  // recovered: nothing left to keep
  writer.flush();
  EXPECT_TRUE(kept().empty());
  EXPECT_EQ(writer.failedWrites(), 0u);
}

TEST_F(RacingWriterTest, ShutdownWritesWhatIsQueuedAndDetachesTheWriter) {
  racing::RacingState state(settings);
  {
    RacingWriter writer(*rows, state, clock);
    state.latency.noteSlow(kSlowRelay, clock.wallNow());
    state.overrideEnabled(false);
    state.switchesChanged();
  }  // no flush: the destructor writes what is queued
  EXPECT_EQ(kept().size(), 1u);
  EXPECT_EQ(rows->loadSwitches().value(), (RacingSwitches{false, std::nullopt}));
  // The state outlives its writer: changes after it are kept in memory only.
  state.latency.noteSlow(kSlowRelay, clock.wallNow());
  state.switchesChanged();
  EXPECT_EQ(kept()[0].slow_streak, 1);
}

}  // namespace
}  // namespace llmux::store
