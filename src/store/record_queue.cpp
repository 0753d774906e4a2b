#include "store/record_queue.h"

namespace llmux::store {

RecordQueue::RecordQueue(std::size_t capacity, std::chrono::milliseconds max_block)
    : capacity_(capacity == 0 ? 1 : capacity), max_block_(max_block) {}

bool RecordQueue::push(RequestRecord record) {
  std::unique_lock lock(mutex_);
  if (items_.size() >= capacity_ && !closed_) {
    not_full_.wait_for(lock, max_block_, [&] { return items_.size() < capacity_ || closed_; });
  }
  if (closed_ || items_.size() >= capacity_) {
    ++dropped_;
    return false;
  }
  bool was_empty = items_.empty();
  items_.push_back(std::move(record));
  ++accepted_;
  lock.unlock();
  // The writer only sleeps on an empty queue: one wake-up per batch, not per record.
  if (was_empty) not_empty_.notify_one();
  return true;
}

bool RecordQueue::popBatch(std::vector<RequestRecord>& out, std::size_t max) {
  std::unique_lock lock(mutex_);
  not_empty_.wait(lock, [&] { return !items_.empty() || closed_; });
  if (items_.empty()) return false;  // closed and drained
  bool was_full = items_.size() >= capacity_;
  std::size_t n = std::min(max == 0 ? 1 : max, items_.size());
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(std::move(items_.front()));
    items_.pop_front();
  }
  lock.unlock();
  if (was_full) not_full_.notify_all();
  return true;
}

void RecordQueue::markDone(std::size_t n) {
  {
    std::lock_guard lock(mutex_);
    done_ += n;
  }
  done_changed_.notify_all();
}

void RecordQueue::waitDone() {
  std::unique_lock lock(mutex_);
  std::uint64_t target = accepted_;
  done_changed_.wait(lock, [&] { return done_ >= target; });
}

void RecordQueue::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  not_empty_.notify_all();
  not_full_.notify_all();
}

std::uint64_t RecordQueue::dropped() const {
  std::lock_guard lock(mutex_);
  return dropped_;
}

std::size_t RecordQueue::pending() const {
  std::lock_guard lock(mutex_);
  return items_.size();
}

}  // namespace llmux::store
