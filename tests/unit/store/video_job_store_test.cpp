#include "store/video_job_store.h"

#include <gtest/gtest.h>

#include "store/sqlite_db.h"
#include "store/sqlite_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

using namespace std::chrono_literals;
using routing::VideoJob;
using routing::VideoJobTable;

WallTime const kNow{std::chrono::hours(480'000)};
WallTime const kCutoff = kNow - VideoJobTable::kDefaultRetention;

std::unique_ptr<SqliteVideoJobStore> openJobs(std::filesystem::path const& dir) {
  auto store = SqliteVideoJobStore::open(dir);
  if (!store.ok()) ADD_FAILURE() << store.error().message;
  return store.ok() ? std::move(*store) : nullptr;
}

VideoJob job(std::string id, WallTime created) {
  return VideoJob{std::move(id), "team-a", "openai", "openai/3f2a", "sora-2", "sora-2-2025",
                  created};
}

std::vector<VideoJob> loadAll(SqliteVideoJobStore& store, WallTime cutoff,
                              std::size_t limit = VideoJobTable::kCapacity) {
  auto loaded = store.load(cutoff, limit);
  if (!loaded.ok()) ADD_FAILURE() << loaded.error().message;
  return loaded.ok() ? std::move(*loaded) : std::vector<VideoJob>{};
}

std::int64_t rowCount(std::filesystem::path const& dir) {
  auto db = SqliteDb::open((dir / SqliteStore::kFileName).string());
  if (!db.ok()) return -1;
  auto stmt = db->prepare("SELECT COUNT(*) FROM video_jobs");
  if (!stmt.ok() || !stmt->step().value()) return -1;
  return stmt->columnInt(0);
}

TEST(SqliteVideoJobStore, JobsSurviveAReopenOldestFirstWithEveryField) {
  TempDir dir;
  VideoJob older = job("video_a", kNow - 2h);
  VideoJob newer{"video_b", "team-b", "relay", "relay/77aa", "sora-2-pro", "sora-2-pro-x",
                 kNow - 1h};
  {
    auto store = openJobs(dir.path());
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->save(newer).ok());
    ASSERT_TRUE(store->save(older).ok());
  }
  // A restart: a new connection to the same file.
  auto store = openJobs(dir.path());
  ASSERT_TRUE(store);
  EXPECT_EQ(loadAll(*store, kCutoff), (std::vector<VideoJob>{older, newer}));
}

TEST(SqliteVideoJobStore, SaveReplacesTheJobWithItsId) {
  TempDir dir;
  auto store = openJobs(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->save(job("video_a", kNow - 2h)).ok());
  VideoJob again = job("video_a", kNow - 1h);
  again.channel = "other";
  ASSERT_TRUE(store->save(again).ok());
  EXPECT_EQ(loadAll(*store, kCutoff), std::vector<VideoJob>{again});
}

TEST(SqliteVideoJobStore, LoadDeletesTheJobsOlderThanTheRetention) {
  TempDir dir;
  auto store = openJobs(dir.path());
  ASSERT_TRUE(store);
  VideoJob kept = job("video_kept", kCutoff);  // exactly at the cutoff: still within
  ASSERT_TRUE(store->save(job("video_old", kCutoff - 1ms)).ok());
  ASSERT_TRUE(store->save(kept).ok());
  EXPECT_EQ(loadAll(*store, kCutoff), std::vector<VideoJob>{kept});
  EXPECT_EQ(rowCount(dir.path()), 1) << "the old row is deleted, not only skipped";
}

TEST(SqliteVideoJobStore, LoadReturnsTheNewestUpToTheLimit) {
  TempDir dir;
  auto store = openJobs(dir.path());
  ASSERT_TRUE(store);
  for (int i = 1; i <= 5; ++i) {
    ASSERT_TRUE(store->save(job("video_" + std::to_string(i), kNow - std::chrono::hours(6 - i))).ok());
  }
  auto loaded = loadAll(*store, kCutoff, 2);
  ASSERT_EQ(loaded.size(), 2u);
  EXPECT_EQ(loaded[0].id, "video_4");
  EXPECT_EQ(loaded[1].id, "video_5");
  EXPECT_EQ(rowCount(dir.path()), 5) << "the limit only bounds what is read";
}

TEST(SqliteVideoJobStore, DeleteOlderThanKeepsTheRest) {
  TempDir dir;
  auto store = openJobs(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->save(job("video_old", kNow - 3h)).ok());
  ASSERT_TRUE(store->save(job("video_new", kNow - 1h)).ok());
  ASSERT_TRUE(store->deleteOlderThan(kNow - 2h).ok());
  EXPECT_EQ(rowCount(dir.path()), 1);
  auto loaded = loadAll(*store, kCutoff);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].id, "video_new");
}

}  // namespace
}  // namespace llmux::store
