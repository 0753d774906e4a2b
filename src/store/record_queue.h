#pragma once

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "core/request_record.h"

namespace llmux::store {

/// Limits and pacing of a WriteQueue.
struct WriteQueueOptions {
  /// Most items held; an item pushed onto a full queue is dropped. This bounds the memory a
  /// stalled writer can make the queue take.
  std::size_t capacity = 65'536;
  /// Most items `popBatch` hands out at once (one transaction's worth).
  std::size_t batch_size = 512;
  /// How long the writer waits for a batch to fill once a first item is queued. Fewer, larger
  /// transactions cost far less per item than one commit per request; `waitDone` and `close`
  /// cut the wait short.
  std::chrono::milliseconds linger{0};
};

/// The hand-off between request threads and a store's background writer thread (the request
/// log's records, the freezes' writes).
///
/// Policy: a producer never waits. `push` takes one short lock (no I/O happens under it) and
/// returns. A writer that keeps up empties the queue in batches long before it holds `capacity`
/// items; the room is there to ride out a slow disk or a checkpoint. When the queue is full
/// anyway (the disk is stuck), the item is dropped at once and counted (`dropped()`; for the
/// request log, llmux_log_records_dropped_total): losing a log row is better than stalling an
/// I/O thread, which would stall every connection it serves. Nothing is dropped silently.
///
/// `push` wakes the writer only when the queue stops being empty or a batch becomes full, so a
/// busy gateway does not pay a wake-up per request.
template <class Item>
class WriteQueue {
 public:
  explicit WriteQueue(WriteQueueOptions options);

  /// Queues `item` without waiting; false when it was dropped (queue full, or closed).
  bool push(Item item);

  /// Writer side: waits until items are queued (and, with a linger, until a batch is full, the
  /// linger has passed, someone waits in `waitDone`, or the queue is closed), then moves up to
  /// `batch_size` items into `out`, oldest first. Returns false once closed and empty. When
  /// nothing is queued within `max_wait`, returns true with `out` unchanged (the writer's other
  /// periodic work, such as the retention, then runs).
  bool popBatch(std::vector<Item>& out,
                std::chrono::milliseconds max_wait = std::chrono::milliseconds::max());

  /// Writer side: `n` items taken by `popBatch` are written (or given up on).
  void markDone(std::size_t n);

  /// Waits until every item accepted before the call has been marked done.
  void waitDone();

  /// No more items are accepted; `popBatch` still drains what is queued.
  void close();

  /// Writer side: true once the queue is closed or someone waits in `waitDone`: a writer that
  /// cannot write now (its database is unreachable) gives up on what it holds instead of waiting.
  bool urgent() const;
  /// Writer side: sleeps up to `duration`, less when the queue becomes urgent.
  void sleepUnlessUrgent(std::chrono::milliseconds duration);

  std::uint64_t dropped() const;
  std::size_t pending() const;  ///< queued, not yet taken by the writer
  std::size_t unfinished() const;  ///< accepted, not yet marked done (queued or being written)

 private:
  WriteQueueOptions const options_;

  mutable std::mutex mutex_;
  std::condition_variable writer_wake_;
  std::condition_variable done_changed_;
  std::deque<Item> items_;
  std::uint64_t accepted_ = 0;
  std::uint64_t done_ = 0;
  std::uint64_t dropped_ = 0;
  int done_waiters_ = 0;
  bool closed_ = false;
};

/// The request log's queue.
using RecordQueue = WriteQueue<RequestRecord>;
extern template class WriteQueue<RequestRecord>;

// --- implementation -----------------------------------------------------------------------------

namespace detail {

inline WriteQueueOptions sanitized(WriteQueueOptions options) {
  options.capacity = std::max<std::size_t>(options.capacity, 1);
  options.batch_size = std::max<std::size_t>(options.batch_size, 1);
  return options;
}

}  // namespace detail

template <class Item>
WriteQueue<Item>::WriteQueue(WriteQueueOptions options) : options_(detail::sanitized(options)) {}

template <class Item>
bool WriteQueue<Item>::push(Item item) {
  std::unique_lock lock(mutex_);
  if (closed_ || items_.size() >= options_.capacity) {
    ++dropped_;
    return false;
  }
  items_.push_back(std::move(item));
  ++accepted_;
  bool wake = items_.size() == 1 || items_.size() == options_.batch_size;
  lock.unlock();
  if (wake) writer_wake_.notify_one();
  return true;
}

template <class Item>
bool WriteQueue<Item>::popBatch(std::vector<Item>& out, std::chrono::milliseconds max_wait) {
  std::unique_lock lock(mutex_);
  auto ready = [&] { return !items_.empty() || closed_; };
  if (max_wait == std::chrono::milliseconds::max()) {
    writer_wake_.wait(lock, ready);
  } else if (!writer_wake_.wait_for(lock, max_wait, ready)) {
    return true;  // nothing to write yet
  }
  if (options_.linger.count() > 0) {
    writer_wake_.wait_for(lock, options_.linger, [&] {
      return items_.size() >= options_.batch_size || closed_ || done_waiters_ > 0;
    });
  }
  if (items_.empty()) return false;  // closed and drained
  std::size_t n = std::min(options_.batch_size, items_.size());
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(std::move(items_.front()));
    items_.pop_front();
  }
  return true;
}

template <class Item>
void WriteQueue<Item>::markDone(std::size_t n) {
  {
    std::lock_guard lock(mutex_);
    done_ += n;
  }
  done_changed_.notify_all();
}

template <class Item>
void WriteQueue<Item>::waitDone() {
  std::unique_lock lock(mutex_);
  std::uint64_t target = accepted_;
  if (done_ >= target) return;
  ++done_waiters_;
  writer_wake_.notify_one();  // cut a linger short
  done_changed_.wait(lock, [&] { return done_ >= target; });
  --done_waiters_;
}

template <class Item>
void WriteQueue<Item>::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  writer_wake_.notify_all();
}

template <class Item>
bool WriteQueue<Item>::urgent() const {
  std::lock_guard lock(mutex_);
  return closed_ || done_waiters_ > 0;
}

template <class Item>
void WriteQueue<Item>::sleepUnlessUrgent(std::chrono::milliseconds duration) {
  std::unique_lock lock(mutex_);
  writer_wake_.wait_for(lock, duration, [&] { return closed_ || done_waiters_ > 0; });
}

template <class Item>
std::uint64_t WriteQueue<Item>::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

template <class Item>
std::size_t WriteQueue<Item>::pending() const {
  std::lock_guard lock(mutex_);
  return items_.size();
}

template <class Item>
std::size_t WriteQueue<Item>::unfinished() const {
  std::lock_guard lock(mutex_);
  return static_cast<std::size_t>(accepted_ - done_);
}

}  // namespace llmux::store
