#include "store/freeze_writer.h"

#include <gtest/gtest.h>

#include <future>

#include "captured_log.h"
#include "held_writes.h"
#include "store/freeze_store.h"
#include "store/sqlite_db.h"
#include "store/sqlite_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

namespace fs = std::filesystem;
using config::FreezeObject;
using config::FreezePeriod;
using std::chrono::seconds;

/// Freeze rows in memory whose writes can be held or made to fail.
class HeldRows final : public FreezeRows, public HeldWrites {
 public:
  Result<std::vector<routing::Freeze>> load() override { return loaded; }
  Result<void> save(routing::Freeze const& freeze) override { return write("save " + freeze.id); }
  Result<void> remove(std::string const& id) override { return write("remove " + id); }

  std::vector<routing::Freeze> loaded;  ///< set before the writer starts
};

config::FreezeRule rule(std::string name, FreezePeriod period, Millis duration = Millis(0)) {
  config::FreezeRule r;
  r.name = std::move(name);
  r.status = 403;
  r.object = FreezeObject::Channel;
  r.period = period;
  r.duration = duration;
  return r;
}

routing::FreezeTarget channel(std::string name) {
  return routing::FreezeTarget{std::move(name), "k1", "k1#0", "m"};
}

TEST(FreezeWriter, NoTableCallWaitsForAHeldWriteAndTheWritesLandInOrder) {
  ManualTimeSource clock;
  HeldRows rows;
  ReleaseAtEnd release{rows};
  FreezeWriter writer(rows, clock);
  routing::FreezeTable table(clock, &writer);
  rows.hold();

  // Everything a request thread, an admin call or a /metrics scrape does with freezes, while
  // the disk holds the first write.
  std::string fixed_id, forever_id;
  auto calls = std::async(std::launch::async, [&] {
    fixed_id = table
                   .apply(rule("short", FreezePeriod::Fixed, Millis(1000)), channel("a"),
                          std::nullopt, "short")
                   .id;
    forever_id =
        table.apply(rule("ever", FreezePeriod::Forever), channel("b"), std::nullopt, "ever").id;
    EXPECT_TRUE(table.frozen("a", "", "m"));
    clock.advance(seconds(2));
    EXPECT_FALSE(table.frozen("a", "", "m"));  // expired: its row's removal is queued
    EXPECT_EQ(table.list().size(), 1u);
    EXPECT_TRUE(table.lift(forever_id));
    EXPECT_TRUE(table.list().empty());
  });
  ASSERT_EQ(calls.wait_for(kPatience), std::future_status::ready)
      << "a freeze table call waited for the held write";
  calls.get();

  // Structurally: the first write is still held, nothing has landed, all four are pending.
  ASSERT_TRUE(rows.waitHolding());
  EXPECT_TRUE(rows.written().empty());
  EXPECT_EQ(writer.pendingWrites(), 4u);

  rows.release();
  writer.flush();
  EXPECT_EQ(writer.pendingWrites(), 0u);
  EXPECT_EQ(rows.written(),
            (std::vector<std::string>{"save " + fixed_id, "save " + forever_id,
                                      "remove " + fixed_id, "remove " + forever_id}));
  EXPECT_EQ(table.persistenceFailures(), 0u);
}

TEST(FreezeWriter, FailedWritesAreCountedAndLoggedOncePerBurst) {
  CapturedLog captured;
  ManualTimeSource clock;
  HeldRows rows;
  rows.failWith("disk I/O error");
  FreezeWriter writer(rows, clock, FreezeWriterOptions{.write_retries = 0});
  routing::FreezeTable table(clock, &writer);
  for (int i = 0; i < 20; ++i) {
    table.apply(rule("ever", FreezePeriod::Forever), channel("c" + std::to_string(i)), std::nullopt,
                "ever");
  }
  writer.flush();
  EXPECT_EQ(table.persistenceFailures(), 20u);
  EXPECT_EQ(table.list().size(), 20u) << "the table stays right";
  auto lines = captured.lines();
  ASSERT_EQ(lines.size(), 1u) << "one line for the burst, not one per write";
  EXPECT_NE(lines[0].find("freeze persistence failed: disk I/O error"), std::string::npos)
      << lines[0];

  rows.failWith("");
  table.apply(rule("ever", FreezePeriod::Forever), channel("ok"), std::nullopt, "ever");
  writer.flush();
  EXPECT_EQ(table.persistenceFailures(), 20u);
  lines = captured.lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("freeze persistence works again after 20 failure(s)"), std::string::npos)
      << lines[1];
}

TEST(FreezeWriter, AFullQueueDropsTheWriteAndCountsIt) {
  ManualTimeSource clock;
  HeldRows rows;
  ReleaseAtEnd release{rows};
  FreezeWriter writer(rows, clock, FreezeWriterOptions{.capacity = 1});
  rows.hold();
  routing::Freeze freeze;
  freeze.id = "frz_1";
  writer.saveFreeze(freeze);  // taken by the writer thread, which the disk then holds
  ASSERT_TRUE(rows.waitHolding());
  writer.removeFreeze("frz_2");  // queued: the one place left
  writer.removeFreeze("frz_3");  // no room: dropped at once, never waited for
  EXPECT_EQ(writer.failedWrites(), 1u);
  rows.release();
  writer.flush();
  EXPECT_EQ(rows.written(), (std::vector<std::string>{"save frz_1", "remove frz_2"}));
  EXPECT_EQ(writer.failedWrites(), 1u);
}

TEST(FreezeWriter, LoadReadsAfterTheQueuedWritesAndTheDestructorWritesWhatIsQueued) {
  ManualTimeSource clock;
  HeldRows rows;
  routing::Freeze stored;
  stored.id = "frz_stored";
  stored.until = clock.wallNow() + std::chrono::hours(1);
  rows.loaded = {stored};
  {
    FreezeWriter writer(rows, clock);
    routing::FreezeTable table(clock, &writer);
    table.load();
    ASSERT_EQ(table.list().size(), 1u);
    EXPECT_TRUE(table.lift("frz_stored"));
    writer.removeFreeze("frz_other");
  }
  EXPECT_EQ(rows.written(), (std::vector<std::string>{"remove frz_stored", "remove frz_other"}));
}

// The real store: another connection holds SQLite's write lock (as a long transaction of the
// request log writer or an operator's sqlite3 shell would), so every freeze write must wait.
TEST(FreezeWriter, ALockedDatabaseDelaysTheWriteNotTheTable) {
  TempDir dir;
  auto rows = SqliteFreezeStore::open(dir.path());
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  ManualTimeSource clock;
  FreezeWriter writer(**rows, clock);
  routing::FreezeTable table(clock, &writer);

  auto locker = SqliteDb::open((dir.path() / SqliteStore::kFileName).string());
  ASSERT_TRUE(locker.ok());
  ASSERT_TRUE(locker->exec("BEGIN IMMEDIATE").ok());
  struct Unlock {
    SqliteDb& db;
    ~Unlock() { (void)db.exec("ROLLBACK"); }
  } unlock{*locker};

  std::string id;
  auto calls = std::async(std::launch::async, [&] {
    id = table.apply(rule("ever", FreezePeriod::Forever), channel("a"), std::nullopt, "ever").id;
    EXPECT_TRUE(table.frozen("a", "", "m"));
    EXPECT_EQ(table.list().size(), 1u);
  });
  ASSERT_EQ(calls.wait_for(kPatience), std::future_status::ready)
      << "a freeze table call waited for SQLite's lock";
  calls.get();
  EXPECT_EQ(writer.pendingWrites(), 1u) << "the write waits for the lock, not the table";

  ASSERT_TRUE(locker->exec("COMMIT").ok());
  writer.flush();
  EXPECT_EQ(writer.failedWrites(), 0u);
  auto stored = (*rows)->load();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_EQ((*stored)[0].id, id);
}

}  // namespace
}  // namespace llmux::store
