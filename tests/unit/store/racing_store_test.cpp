#include "store/racing_store.h"

#include <gtest/gtest.h>

#include "store/sqlite_db.h"
#include "store/sqlite_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

using namespace std::chrono_literals;
using config::CostPreference;
using racing::Combination;
using racing::LatencyMemory;

WallTime const kNow{std::chrono::hours(480'000)};

std::unique_ptr<SqliteRacingStore> openRacing(std::filesystem::path const& dir) {
  auto store = SqliteRacingStore::open(dir);
  if (!store.ok()) ADD_FAILURE() << store.error().message;
  return store.ok() ? std::move(*store) : nullptr;
}

LatencyMemory::Entry entryOf(Combination combination, int streak, bool degraded, WallTime at) {
  std::string id = LatencyMemory::idOf(combination);
  return {std::move(id), std::move(combination), streak, degraded, at};
}

std::vector<LatencyMemory::Entry> loadAll(SqliteRacingStore& store, WallTime now) {
  auto loaded = store.loadLatency(now);
  if (!loaded.ok()) ADD_FAILURE() << loaded.error().message;
  return loaded.ok() ? std::move(*loaded) : std::vector<LatencyMemory::Entry>{};
}

TEST(SqliteRacingStore, SwitchesRoundTripWithUnsetAsTheConfigurations) {
  TempDir dir;
  auto store = openRacing(dir.path());
  ASSERT_TRUE(store);
  EXPECT_EQ(store->loadSwitches().value(), RacingSwitches{}) << "nothing set yet";

  ASSERT_TRUE(store->saveSwitches({true, CostPreference::CostFirst}, kNow).ok());
  EXPECT_EQ(store->loadSwitches().value(), (RacingSwitches{true, CostPreference::CostFirst}));
  ASSERT_TRUE(store->saveSwitches({false, std::nullopt}, kNow).ok());
  EXPECT_EQ(store->loadSwitches().value(), (RacingSwitches{false, std::nullopt}));
  ASSERT_TRUE(store->saveSwitches({std::nullopt, CostPreference::QualityFirst}, kNow).ok());
  EXPECT_EQ(store->loadSwitches().value(),
            (RacingSwitches{std::nullopt, CostPreference::QualityFirst}));
}

TEST(SqliteRacingStore, APreferenceThisBuildDoesNotKnowReadsAsUnset) {
  TempDir dir;
  auto store = openRacing(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->saveSwitches({true, CostPreference::Balanced}, kNow).ok());
  auto db = SqliteDb::open((dir.path() / SqliteStore::kFileName).string());
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->exec("UPDATE racing_switches SET cost_preference = 'speed_first'").ok());
  EXPECT_EQ(store->loadSwitches().value(), (RacingSwitches{true, std::nullopt}));
}

TEST(SqliteRacingStore, LatencyEntriesRoundTripAndThoseOverADayOldAreDropped) {
  TempDir dir;
  auto store = openRacing(dir.path());
  ASSERT_TRUE(store);
  auto degraded = entryOf({"relay-a/3f2a", "claude-sonnet-4", "coding"}, 3, true, kNow - 2h);
  auto mild = entryOf({"relay-b/77aa", "gpt-4o", "unknown"}, 1, false, kNow - 1h);
  auto old = entryOf({"relay-c/0101", "gemini-2.5-pro", "chat"}, 3, true, kNow - 24h - 1s);
  for (auto const& entry : {mild, degraded, old}) ASSERT_TRUE(store->saveLatency(entry).ok());

  auto loaded = loadAll(*store, kNow);
  ASSERT_EQ(loaded.size(), 2u);  // oldest first, the expired one gone
  for (auto [got, want] : {std::pair{loaded[0], degraded}, std::pair{loaded[1], mild}}) {
    EXPECT_EQ(got.id, want.id);
    EXPECT_EQ(got.combination, want.combination);
    EXPECT_EQ(got.slow_streak, want.slow_streak);
    EXPECT_EQ(got.degraded, want.degraded);
    EXPECT_EQ(got.updated_at, want.updated_at);
  }
  // The expired row was deleted, not only skipped.
  EXPECT_EQ(loadAll(*store, kNow - 48h).size(), 2u);

  // Saving an id again replaces it; removing one that is gone is not an error.
  mild.slow_streak = 2;
  ASSERT_TRUE(store->saveLatency(mild).ok());
  ASSERT_TRUE(store->removeLatency(degraded.id).ok());
  ASSERT_TRUE(store->removeLatency(degraded.id).ok());
  loaded = loadAll(*store, kNow);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].slow_streak, 2);
}

TEST(SqliteRacingStore, KeptAcrossReopeningBesideTheRequestLog) {
  TempDir dir;
  auto entry = entryOf({"relay-a/3f2a", "claude-sonnet-4", "coding"}, 3, true, kNow);
  {
    auto log = SqliteStore::open(dir.path());
    ASSERT_TRUE(log.ok()) << log.error().message;
    auto store = openRacing(dir.path());
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->saveSwitches({false, CostPreference::CostFirst}, kNow).ok());
    ASSERT_TRUE(store->saveLatency(entry).ok());
    (*log)->putSetting("k", "v");
  }
  auto store = openRacing(dir.path());
  ASSERT_TRUE(store);
  EXPECT_EQ(store->loadSwitches().value(), (RacingSwitches{false, CostPreference::CostFirst}));
  ASSERT_EQ(loadAll(*store, kNow + 1h).size(), 1u);
}

}  // namespace
}  // namespace llmux::store
