#include "store/racing_writer.h"

#include <gtest/gtest.h>

#include "held_writes.h"
#include "store/shared_state_sync.h"
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
  state.changeSwitches(std::optional<bool>(true), std::nullopt);
  state.changeSwitches(std::optional<bool>(std::nullopt),
                       std::optional<CostPreference>(CostPreference::CostFirst));
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
    state.changeSwitches(std::optional<bool>(false), std::nullopt);
  }  // no flush: the destructor writes what is queued
  EXPECT_EQ(kept().size(), 1u);
  EXPECT_EQ(rows->loadSwitches().value(), (RacingSwitches{false, std::nullopt}));
  // The state outlives its writer: changes after it are kept in memory only.
  state.latency.noteSlow(kSlowRelay, clock.wallNow());
  state.changeSwitches(std::optional<bool>(true), std::nullopt);
  EXPECT_EQ(kept()[0].slow_streak, 1);
  EXPECT_EQ(rows->loadSwitches().value(), (RacingSwitches{false, std::nullopt}));
}

/// Another replica's view of the same rows, whose switch writes can be held (a slow store).
class HeldSwitchRows final : public RacingRows, public HeldWrites {
 public:
  explicit HeldSwitchRows(RacingRows& rows) : rows_(rows) {}
  Result<RacingSwitches> loadSwitches() override { return rows_.loadSwitches(); }
  Result<void> saveSwitches(RacingSwitches const& switches, WallTime now) override {
    if (auto held = write("switches"); !held.ok()) return held;
    return rows_.saveSwitches(switches, now);
  }
  Result<std::vector<LatencyMemory::Entry>> loadLatency(WallTime now) override {
    return rows_.loadLatency(now);
  }
  Result<void> saveLatency(LatencyMemory::Entry const& entry) override {
    return rows_.saveLatency(entry);
  }
  Result<void> removeLatency(std::string const& id) override { return rows_.removeLatency(id); }

 private:
  RacingRows& rows_;
};

TEST_F(RacingWriterTest, ReplicasSharingTheRowsTakeEachOthersSwitchesAndVerdicts) {
  auto other_rows = SqliteRacingStore::open(dir.path());
  ASSERT_TRUE(other_rows.ok()) << other_rows.error().message;
  HeldSwitchRows b_rows(**other_rows);
  ReleaseAtEnd release{b_rows};
  racing::RacingState a(settings);
  racing::RacingState b(settings);
  RacingWriter a_writer(*rows, a, clock);
  RacingWriter b_writer(b_rows, b, clock);
  a_writer.noteStoredLatency();
  b_writer.noteStoredLatency();
  SharedPull a_pull = racingPull(*rows, a, a_writer, clock);
  SharedPull b_pull = racingPull(b_rows, b, b_writer, clock);

  // An operator's switch on A, and A's slow verdict, reach B at its next look.
  a.changeSwitches(std::optional<bool>(true), std::nullopt);
  for (int i = 0; i < 3; ++i) a.latency.noteSlow(kSlowRelay, clock.wallNow());
  a_writer.flush();
  EXPECT_EQ(b_pull.pull().value(), 2u);
  EXPECT_EQ(b.enabledOverride(), true);
  EXPECT_TRUE(b.latency.degraded(kSlowRelay, clock.wallNow()));
  EXPECT_EQ(a_pull.pull().value(), 0u) << "A's own changes are no news to A";

  // B's operator switches off while B's write is slow: B's look must not bring back the stored
  // "on" (its own change is the newer one) ...
  b_rows.hold();
  b.changeSwitches(std::optional<bool>(false),
                   std::optional<CostPreference>(CostPreference::CostFirst));
  ASSERT_TRUE(b_rows.waitHolding());
  EXPECT_EQ(b_pull.pull().value(), 0u);
  EXPECT_EQ(b.enabledOverride(), false);
  EXPECT_EQ(b.preferenceOverride(), CostPreference::CostFirst);
  // ... and once it lands, A takes it.
  b_rows.release();
  b_writer.flush();
  EXPECT_EQ(a_pull.pull().value(), 1u);
  EXPECT_EQ(a.enabledOverride(), false);
  EXPECT_EQ(a.preferenceOverride(), CostPreference::CostFirst);

  // Recovered on B: forgotten on A.
  b.latency.noteFast(kSlowRelay, clock.wallNow());
  b_writer.flush();
  EXPECT_EQ(a_pull.pull().value(), 1u);
  EXPECT_FALSE(a.latency.degraded(kSlowRelay, clock.wallNow()));
  EXPECT_EQ(a_writer.failedWrites() + b_writer.failedWrites(), 0u);
}

}  // namespace
}  // namespace llmux::store
