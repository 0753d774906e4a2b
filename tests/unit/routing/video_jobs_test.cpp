#include "routing/video_jobs.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace llmux::routing {
namespace {

using namespace std::chrono_literals;

VideoJob job(std::string id, std::string gateway_key = "team-a") {
  return VideoJob{std::move(id), std::move(gateway_key), "openai", "openai/3f2a", "sora-2",
                  "sora-2-2025", WallTime{}};
}

/// Records what the table tells its sink.
class RecordingSink final : public VideoJobSink {
 public:
  void videoJobRemembered(VideoJob const& job) override { told.push_back(job); }
  std::uint64_t failedWrites() const override { return failed; }
  std::vector<VideoJob> told;
  std::uint64_t failed = 0;
};

TEST(VideoJobTable, FindsARememberedJobStampedWithNow) {
  ManualTimeSource clock;
  VideoJobTable table(clock);
  table.remember(job("video_1"));
  auto found = table.find("video_1");
  ASSERT_TRUE(found);
  VideoJob want = job("video_1");
  want.created = clock.wallNow();
  EXPECT_EQ(*found, want);
  EXPECT_FALSE(table.find("video_2"));
  EXPECT_FALSE(table.find(""));
}

TEST(VideoJobTable, AJobWithoutAnIdIsNotKept) {
  ManualTimeSource clock;
  VideoJobTable table(clock);
  RecordingSink sink;
  table.setSink(&sink);
  table.remember(job(""));
  EXPECT_EQ(table.size(), 0u);
  EXPECT_TRUE(sink.told.empty());
}

TEST(VideoJobTable, AKnownIdIsReplacedAndBecomesTheNewest) {
  ManualTimeSource clock;
  VideoJobTable table(clock, 2);
  table.remember(job("video_1", "team-a"));
  table.remember(job("video_2"));
  clock.advance(1s);
  table.remember(job("video_1", "team-b"));
  EXPECT_EQ(table.size(), 2u);
  EXPECT_EQ(table.find("video_1")->gateway_key, "team-b");
  EXPECT_EQ(table.find("video_1")->created, clock.wallNow());
  table.remember(job("video_3"));  // evicts video_2, now the oldest
  EXPECT_FALSE(table.find("video_2"));
  EXPECT_TRUE(table.find("video_1"));
  EXPECT_TRUE(table.find("video_3"));
}

TEST(VideoJobTable, PastTheCapacityTheOldestIsEvicted) {
  ManualTimeSource clock;
  VideoJobTable table(clock, 3);
  for (int i = 1; i <= 5; ++i) {
    table.remember(job("video_" + std::to_string(i)));
    clock.advance(1s);
  }
  EXPECT_EQ(table.size(), 3u);
  EXPECT_FALSE(table.find("video_1"));
  EXPECT_FALSE(table.find("video_2"));
  for (auto id : {"video_3", "video_4", "video_5"}) EXPECT_TRUE(table.find(id)) << id;
}

TEST(VideoJobTable, AJobOlderThanTheRetentionIsNotAnsweredAndIsSweptLater) {
  ManualTimeSource clock;
  VideoJobTable table(clock);
  table.remember(job("video_old"));
  clock.advance(VideoJobTable::kDefaultRetention - 1s);
  EXPECT_TRUE(table.find("video_old"));
  clock.advance(1s);
  EXPECT_FALSE(table.find("video_old")) << "a week old: gone";
  EXPECT_EQ(table.size(), 1u) << "find() never writes";
  table.remember(job("video_new"));
  EXPECT_EQ(table.size(), 1u) << "remember() sweeps the expired";
  EXPECT_TRUE(table.find("video_new"));
}

TEST(VideoJobTable, AConfiguredRetentionBoundsFindLoadAndAReload) {
  ManualTimeSource clock;
  VideoJobTable table(clock, VideoJobTable::kCapacity, std::chrono::days(2));
  EXPECT_EQ(table.retention(), std::chrono::days(2));
  table.remember(job("video_1"));
  clock.advance(std::chrono::days(2) - 1s);
  EXPECT_TRUE(table.find("video_1"));
  clock.advance(1s);
  EXPECT_FALSE(table.find("video_1")) << "two days old: gone, long before the default week";

  WallTime const now = clock.wallNow();
  VideoJob three_days_old = job("video_2");
  three_days_old.created = now - std::chrono::days(3);
  VideoJob one_day_old = job("video_3");
  one_day_old.created = now - std::chrono::days(1);
  table.load({three_days_old, one_day_old});
  EXPECT_FALSE(table.find("video_2"));
  EXPECT_TRUE(table.find("video_3"));

  // A reload: a longer retention reaches the jobs not swept yet, a shorter one hides them.
  table.setRetention(std::chrono::days(30));
  EXPECT_TRUE(table.find("video_1"));
  table.setRetention(std::chrono::days(1));
  EXPECT_FALSE(table.find("video_3"));
}

TEST(VideoJobTable, LoadSkipsTheExpiredKeepsTheNewestAndTellsNoSink) {
  ManualTimeSource clock;
  VideoJobTable table(clock, 2);
  RecordingSink sink;
  table.setSink(&sink);
  WallTime now = clock.wallNow();
  auto at = [&](std::string id, WallTime created) {
    VideoJob j = job(std::move(id));
    j.created = created;
    return j;
  };
  // Out of order on purpose: the newest two of the live ones stay.
  table.load({at("video_3", now - 1h), at("video_expired", now - VideoJobTable::kDefaultRetention),
              at("video_1", now - 3h), at("video_2", now - 2h)});
  EXPECT_EQ(table.size(), 2u);
  EXPECT_FALSE(table.find("video_expired"));
  EXPECT_FALSE(table.find("video_1"));
  EXPECT_EQ(table.find("video_2")->created, now - 2h);
  EXPECT_EQ(table.find("video_3")->created, now - 1h);
  EXPECT_TRUE(sink.told.empty());
}

TEST(VideoJobTable, TheSinkIsToldEachRememberedJobAndItsFailuresAreTheTables) {
  ManualTimeSource clock;
  VideoJobTable table(clock);
  EXPECT_EQ(table.persistenceFailures(), 0u) << "no sink";
  RecordingSink sink;
  table.setSink(&sink);
  table.remember(job("video_1"));
  table.remember(job("video_2"));
  ASSERT_EQ(sink.told.size(), 2u);
  EXPECT_EQ(sink.told[0], *table.find("video_1"));
  EXPECT_EQ(sink.told[1].id, "video_2");
  sink.failed = 3;
  EXPECT_EQ(table.persistenceFailures(), 3u);
  table.setSink(nullptr);
  table.remember(job("video_3"));
  EXPECT_EQ(sink.told.size(), 2u);
}

// Smoke test: writers and readers at once. A race shows as a wrong job or a crash here, and
// is reported by a ThreadSanitizer build.
TEST(VideoJobTable, ConcurrentRemembersAndFindsStayConsistent) {
  ManualTimeSource clock;
  VideoJobTable table(clock, 1000);
  constexpr int kWriters = 4, kReaders = 4, kPerWriter = 2000;
  std::atomic<bool> stop{false};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      for (int i = 0; i < kPerWriter; ++i) {
        std::string key = "team-" + std::to_string(w);
        table.remember(job("video_" + std::to_string(w) + "_" + std::to_string(i), key));
      }
    });
  }
  for (int r = 0; r < kReaders; ++r) {
    threads.emplace_back([&, r] {
      while (!stop.load()) {
        for (int i = 0; i < kPerWriter; i += 97) {
          int w = (i + r) % kWriters;
          auto found = table.find("video_" + std::to_string(w) + "_" + std::to_string(i));
          if (found && found->gateway_key != "team-" + std::to_string(w)) ++wrong;
        }
        (void)table.size();
      }
    });
  }
  for (int w = 0; w < kWriters; ++w) threads[w].join();
  stop = true;
  for (std::size_t t = kWriters; t < threads.size(); ++t) threads[t].join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_EQ(table.size(), 1000u);
}

}  // namespace
}  // namespace llmux::routing
