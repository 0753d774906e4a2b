#include "store/record_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace llmux::store {
namespace {

using std::chrono::milliseconds;

// A linger this long would make a test time out if anything relied on it running out.
constexpr auto kForever = std::chrono::hours(1);

WriteQueueOptions options(std::size_t capacity, std::size_t batch_size,
                          std::chrono::milliseconds linger = {}) {
  return WriteQueueOptions{.capacity = capacity, .batch_size = batch_size, .linger = linger};
}

RequestRecord named(std::string id) {
  RequestRecord r;
  r.request_id = std::move(id);
  return r;
}

TEST(RecordQueue, BatchesInOrderUpToTheBatchSize) {
  RecordQueue queue(options(10, 3));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(queue.push(named(std::to_string(i))));
  EXPECT_EQ(queue.pending(), 5u);
  std::vector<RequestRecord> batch;
  ASSERT_TRUE(queue.popBatch(batch));
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[0].request_id, "0");
  EXPECT_EQ(batch[2].request_id, "2");
  batch.clear();
  ASSERT_TRUE(queue.popBatch(batch));
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[1].request_id, "4");
  EXPECT_EQ(queue.pending(), 0u);
}

TEST(RecordQueue, FullQueueDropsAndCountsWhenNobodyMakesRoom) {
  RecordQueue queue(options(2, 10));
  EXPECT_TRUE(queue.push(named("a")));
  EXPECT_TRUE(queue.push(named("b")));
  EXPECT_FALSE(queue.push(named("c")));
  EXPECT_EQ(queue.dropped(), 1u);
  EXPECT_EQ(queue.pending(), 2u);
}

TEST(RecordQueue, AFullQueueNeverMakesAProducerWait) {
  // Room would come back the moment a writer took a batch, but no producer waits for it: a
  // thousand pushes onto a full queue return at once (a wait of even 5 ms each would take 5 s).
  RecordQueue queue(options(1, 10));
  ASSERT_TRUE(queue.push(named("kept")));
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < 1000; ++i) EXPECT_FALSE(queue.push(named("dropped")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(queue.dropped(), 1000u);

  // Once the writer made room, records are accepted again; the capacity still holds.
  std::vector<RequestRecord> batch;
  ASSERT_TRUE(queue.popBatch(batch));
  ASSERT_EQ(batch.size(), 1u);
  EXPECT_EQ(batch[0].request_id, "kept");
  EXPECT_TRUE(queue.push(named("next")));
  EXPECT_FALSE(queue.push(named("over")));
  EXPECT_EQ(queue.dropped(), 1001u);
  EXPECT_EQ(queue.pending(), 1u);
}

TEST(RecordQueue, PopBatchReturnsEmptyHandedAfterMaxWait) {
  RecordQueue queue(options(10, 10));
  std::vector<RequestRecord> batch;
  EXPECT_TRUE(queue.popBatch(batch, milliseconds(1)));  // not closed: the writer goes on
  EXPECT_TRUE(batch.empty());
  ASSERT_TRUE(queue.push(named("a")));
  EXPECT_TRUE(queue.popBatch(batch, milliseconds(1)));
  EXPECT_EQ(batch.size(), 1u);
  queue.close();
  batch.clear();
  EXPECT_FALSE(queue.popBatch(batch, milliseconds(1)));  // closed and drained
}

TEST(RecordQueue, AFullBatchEndsTheLingerAtOnce) {
  RecordQueue queue(options(100, 3, kForever));
  std::thread producer([&] {
    for (int i = 0; i < 3; ++i) queue.push(named(std::to_string(i)));
  });
  std::vector<RequestRecord> batch;
  ASSERT_TRUE(queue.popBatch(batch));
  producer.join();
  EXPECT_EQ(batch.size(), 3u);
}

TEST(RecordQueue, WaitDoneCutsTheLingerShortAndReturnsWhenAllIsDone) {
  RecordQueue queue(options(100, 2, kForever));
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(queue.push(named(std::to_string(i))));
  ASSERT_TRUE(queue.push(named("odd one out")));  // 8 records: the last batch is not full
  ASSERT_TRUE(queue.push(named("another")));
  std::atomic<int> handled{0};
  std::thread writer([&] {
    std::vector<RequestRecord> batch;
    while (queue.popBatch(batch)) {
      handled += static_cast<int>(batch.size());
      queue.markDone(batch.size());
      batch.clear();
    }
  });
  queue.waitDone();
  EXPECT_EQ(handled.load(), 9);
  queue.close();
  writer.join();
  EXPECT_FALSE(queue.push(named("late")));
  EXPECT_EQ(queue.dropped(), 1u);
}

TEST(RecordQueue, CloseEndsTheLingerAndStillDrains) {
  RecordQueue queue(options(100, 10, kForever));
  ASSERT_TRUE(queue.push(named("a")));
  std::thread closer([&] { queue.close(); });
  std::vector<RequestRecord> batch;
  EXPECT_TRUE(queue.popBatch(batch));
  closer.join();
  EXPECT_EQ(batch.size(), 1u);
  EXPECT_FALSE(queue.popBatch(batch));
}

}  // namespace
}  // namespace llmux::store
