#include "store/video_job_writer.h"

#include <gtest/gtest.h>

#include <future>

#include "captured_log.h"
#include "held_writes.h"
#include "store/video_job_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

using namespace std::chrono_literals;
using routing::VideoJob;
using routing::VideoJobTable;

/// Video job rows in memory whose writes can be held or made to fail.
class HeldRows final : public VideoJobRows, public HeldWrites {
 public:
  Result<std::vector<VideoJob>> load(WallTime, std::size_t) override { return loaded; }
  Result<void> save(VideoJob const& job) override { return write("save " + job.id); }
  Result<void> deleteOlderThan(WallTime cutoff) override {
    return write("prune " + std::to_string(toUnixMillis(cutoff)));
  }

  std::vector<VideoJob> loaded;  ///< set before the writer starts
};

VideoJob job(std::string id) {
  return VideoJob{std::move(id), "team-a", "openai", "openai/3f2a", "sora-2", "sora-2-2025",
                  WallTime{}};
}

std::string pruneAt(WallTime now) {
  return "prune " + std::to_string(toUnixMillis(now - VideoJobTable::kDefaultRetention));
}

TEST(VideoJobWriter, NoRememberWaitsForAHeldWriteAndAFullQueueDropsTheWrite) {
  ManualTimeSource clock;
  HeldRows rows;
  ReleaseAtEnd release{rows};
  VideoJobTable table(clock);
  VideoJobWriter writer(rows, table, clock, VideoJobWriterOptions{.capacity = 1});
  rows.hold();

  auto calls = std::async(std::launch::async, [&] {
    table.remember(job("video_1"));  // taken by the writer thread, which the disk then holds
    ASSERT_TRUE(rows.waitHolding());
    table.remember(job("video_2"));  // queued: the one place left
    table.remember(job("video_3"));  // no room: dropped at once, never waited for
  });
  ASSERT_EQ(calls.wait_for(kPatience), std::future_status::ready)
      << "remember() waited for the held write";
  calls.get();
  EXPECT_EQ(writer.failedWrites(), 1u);
  EXPECT_EQ(table.persistenceFailures(), 1u);
  EXPECT_TRUE(table.find("video_3")) << "a dropped write leaves the job in memory";

  rows.release();
  writer.flush();
  EXPECT_EQ(writer.pendingWrites(), 0u);
  EXPECT_EQ(rows.written(), (std::vector<std::string>{"save video_1", "save video_2"}));
}

TEST(VideoJobWriter, FailedWritesAreCountedAndLoggedOncePerBurst) {
  CapturedLog captured;
  ManualTimeSource clock;
  HeldRows rows;
  rows.failWith("disk I/O error");
  VideoJobTable table(clock);
  VideoJobWriter writer(rows, table, clock, VideoJobWriterOptions{.write_retries = 0});
  for (int i = 0; i < 5; ++i) table.remember(job("video_" + std::to_string(i)));
  writer.flush();
  EXPECT_EQ(table.persistenceFailures(), 5u);
  EXPECT_EQ(table.size(), 5u) << "the table stays right";
  auto lines = captured.lines();
  ASSERT_EQ(lines.size(), 1u) << "one line for the burst, not one per write";
  EXPECT_NE(lines[0].find("video job persistence failed: disk I/O error"), std::string::npos)
      << lines[0];
}

TEST(VideoJobWriter, ExpiredRowsArePrunedBehindASaveAtMostOncePerInterval) {
  ManualTimeSource clock;
  HeldRows rows;
  VideoJobTable table(clock);
  VideoJobWriter writer(rows, table, clock, VideoJobWriterOptions{.prune_interval = 60min});
  table.remember(job("video_1"));  // restore pruned at start: not due yet
  clock.advance(60min);
  table.remember(job("video_2"));  // due: one prune
  WallTime pruned_at = clock.wallNow();
  clock.advance(30min);
  table.remember(job("video_3"));  // not again within the interval
  writer.flush();
  EXPECT_EQ(rows.written(), (std::vector<std::string>{"save video_1", "save video_2",
                                                      pruneAt(pruned_at), "save video_3"}));
}

TEST(VideoJobWriter, TheDestructorWritesWhatIsQueuedAndStopsBeingTheSink) {
  ManualTimeSource clock;
  HeldRows rows;
  VideoJobTable table(clock);
  {
    VideoJobWriter writer(rows, table, clock);
    rows.hold();
    table.remember(job("video_1"));
    ASSERT_TRUE(rows.waitHolding());
    table.remember(job("video_2"));
    rows.release();
  }
  EXPECT_EQ(rows.written(), (std::vector<std::string>{"save video_1", "save video_2"}));
  table.remember(job("video_3"));  // no sink any more: nothing to tell
  EXPECT_EQ(table.persistenceFailures(), 0u);
}

// The real store across a restart: what one run remembered, the next run finds (until it
// expires).
TEST(VideoJobWriter, AJobRememberedBeforeARestartIsFoundAfterIt) {
  TempDir dir;
  ManualTimeSource clock;
  VideoJob first = job("video_first");
  VideoJob second = job("video_second");
  {
    auto rows = SqliteVideoJobStore::open(dir.path());
    ASSERT_TRUE(rows.ok()) << rows.error().message;
    VideoJobTable table(clock);
    VideoJobWriter writer(**rows, table, clock);
    ASSERT_TRUE(writer.restore().ok());
    table.remember(first);
    clock.advance(1h);
    table.remember(second);
    second.created = clock.wallNow();
    writer.flush();
    EXPECT_EQ(writer.failedWrites(), 0u);
  }
  // Down for most of a week: the first job is now past the retention, the second is not.
  clock.advance(VideoJobTable::kDefaultRetention - 45min);
  auto rows = SqliteVideoJobStore::open(dir.path());
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  VideoJobTable table(clock);
  VideoJobWriter writer(**rows, table, clock);
  ASSERT_TRUE(writer.restore().ok());
  EXPECT_EQ(table.size(), 1u);
  EXPECT_FALSE(table.find("video_first"));
  EXPECT_EQ(table.find("video_second"), second);
}

TEST(VideoJobWriter, RestoreLoadsTheKeptJobsIntoTheTable) {
  TempDir dir;
  ManualTimeSource clock;
  auto rows = SqliteVideoJobStore::open(dir.path());
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  VideoJob kept = job("video_kept");
  kept.created = clock.wallNow() - 2h;
  ASSERT_TRUE((*rows)->save(kept).ok());
  VideoJobTable table(clock);
  VideoJobWriter writer(**rows, table, clock);
  ASSERT_TRUE(writer.restore().ok());
  EXPECT_EQ(table.find("video_kept"), kept);
}

TEST(VideoJobWriter, TheTablesRetentionBoundsRestoreAndPruneOnDisk) {
  TempDir dir;
  ManualTimeSource clock;
  auto rows = SqliteVideoJobStore::open(dir.path());
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  auto aged = [&](std::string id, std::chrono::hours age) {
    VideoJob j = job(std::move(id));
    j.created = clock.wallNow() - age;
    return j;
  };
  ASSERT_TRUE((*rows)->save(aged("video_3d", 72h)).ok());
  ASSERT_TRUE((*rows)->save(aged("video_1d", 24h)).ok());
  // Every row in the file: a cutoff at the epoch deletes none.
  auto ids_on_disk = [&] {
    std::vector<std::string> ids;
    auto all = (*rows)->load(WallTime{}, VideoJobTable::kCapacity);
    EXPECT_TRUE(all.ok()) << all.error().message;
    if (all.ok()) {
      for (auto const& j : *all) ids.push_back(j.id);
    }
    return ids;
  };

  // `retention.video_jobs_days: 2`: the default week would keep both jobs.
  VideoJobTable table(clock, VideoJobTable::kCapacity, std::chrono::days(2));
  VideoJobWriter writer(**rows, table, clock, VideoJobWriterOptions{.prune_interval = 60min});
  ASSERT_TRUE(writer.restore().ok());
  EXPECT_FALSE(table.find("video_3d"));
  EXPECT_TRUE(table.find("video_1d"));
  EXPECT_EQ(ids_on_disk(), std::vector<std::string>{"video_1d"});

  // A day and an hour on, the prune due behind the next save takes video_1d too.
  clock.advance(25h);
  table.remember(job("video_new"));
  writer.flush();
  EXPECT_EQ(writer.failedWrites(), 0u);
  EXPECT_EQ(ids_on_disk(), std::vector<std::string>{"video_new"});
}

}  // namespace
}  // namespace llmux::store
