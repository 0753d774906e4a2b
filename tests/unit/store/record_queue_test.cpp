#include "store/record_queue.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace llmux::store {
namespace {

RequestRecord named(std::string id) {
  RequestRecord r;
  r.request_id = std::move(id);
  return r;
}

TEST(RecordQueue, BatchesInOrderUpToTheMaximum) {
  RecordQueue queue(10, std::chrono::milliseconds(0));
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(queue.push(named(std::to_string(i))));
  EXPECT_EQ(queue.pending(), 5u);
  std::vector<RequestRecord> batch;
  ASSERT_TRUE(queue.popBatch(batch, 3));
  ASSERT_EQ(batch.size(), 3u);
  EXPECT_EQ(batch[0].request_id, "0");
  EXPECT_EQ(batch[2].request_id, "2");
  batch.clear();
  ASSERT_TRUE(queue.popBatch(batch, 3));
  ASSERT_EQ(batch.size(), 2u);
  EXPECT_EQ(batch[1].request_id, "4");
  EXPECT_EQ(queue.pending(), 0u);
}

TEST(RecordQueue, FullQueueDropsAndCountsWhenNobodyMakesRoom) {
  RecordQueue queue(2, std::chrono::milliseconds(0));
  EXPECT_TRUE(queue.push(named("a")));
  EXPECT_TRUE(queue.push(named("b")));
  EXPECT_FALSE(queue.push(named("c")));
  EXPECT_EQ(queue.dropped(), 1u);
  EXPECT_EQ(queue.pending(), 2u);
}

TEST(RecordQueue, FullQueueWaitsForTheWriterToMakeRoom) {
  // A generous wait: the consumer below frees a slot long before it ends.
  RecordQueue queue(1, std::chrono::seconds(30));
  ASSERT_TRUE(queue.push(named("a")));
  std::atomic<bool> pushed{false};
  std::thread producer([&] { pushed = queue.push(named("b")); });
  std::vector<RequestRecord> batch;
  ASSERT_TRUE(queue.popBatch(batch, 10));
  producer.join();
  EXPECT_TRUE(pushed);
  EXPECT_EQ(queue.dropped(), 0u);
  EXPECT_EQ(queue.pending(), 1u);
}

TEST(RecordQueue, WaitDoneReturnsOnceEverythingEarlierIsMarkedDone) {
  RecordQueue queue(100, std::chrono::milliseconds(0));
  for (int i = 0; i < 7; ++i) ASSERT_TRUE(queue.push(named(std::to_string(i))));
  std::atomic<int> handled{0};
  std::thread writer([&] {
    std::vector<RequestRecord> batch;
    while (queue.popBatch(batch, 2)) {
      handled += static_cast<int>(batch.size());
      queue.markDone(batch.size());
      batch.clear();
    }
  });
  queue.waitDone();
  EXPECT_EQ(handled.load(), 7);
  queue.close();
  writer.join();
  EXPECT_FALSE(queue.push(named("late")));
  EXPECT_EQ(queue.dropped(), 1u);
}

TEST(RecordQueue, CloseStillDrainsWhatIsQueued) {
  RecordQueue queue(100, std::chrono::milliseconds(0));
  ASSERT_TRUE(queue.push(named("a")));
  queue.close();
  std::vector<RequestRecord> batch;
  EXPECT_TRUE(queue.popBatch(batch, 10));
  EXPECT_EQ(batch.size(), 1u);
  EXPECT_FALSE(queue.popBatch(batch, 10));
}

}  // namespace
}  // namespace llmux::store
