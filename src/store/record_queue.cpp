#include "store/record_queue.h"

#include <algorithm>

namespace llmux::store {

namespace {

RecordQueueOptions sanitized(RecordQueueOptions options) {
  options.capacity = std::max<std::size_t>(options.capacity, 1);
  options.batch_size = std::max<std::size_t>(options.batch_size, 1);
  return options;
}

}  // namespace

RecordQueue::RecordQueue(RecordQueueOptions options) : options_(sanitized(options)) {}

bool RecordQueue::push(RequestRecord record) {
  std::unique_lock lock(mutex_);
  if (items_.size() >= options_.capacity && !closed_) {
    not_full_.wait_for(lock, options_.max_block,
                       [&] { return items_.size() < options_.capacity || closed_; });
  }
  if (closed_ || items_.size() >= options_.capacity) {
    ++dropped_;
    return false;
  }
  items_.push_back(std::move(record));
  ++accepted_;
  bool wake = items_.size() == 1 || items_.size() == options_.batch_size;
  lock.unlock();
  if (wake) writer_wake_.notify_one();
  return true;
}

bool RecordQueue::popBatch(std::vector<RequestRecord>& out) {
  std::unique_lock lock(mutex_);
  writer_wake_.wait(lock, [&] { return !items_.empty() || closed_; });
  if (options_.linger.count() > 0) {
    writer_wake_.wait_for(lock, options_.linger, [&] {
      return items_.size() >= options_.batch_size || closed_ || done_waiters_ > 0;
    });
  }
  if (items_.empty()) return false;  // closed and drained
  bool was_full = items_.size() >= options_.capacity;
  std::size_t n = std::min(options_.batch_size, items_.size());
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
  if (done_ >= target) return;
  ++done_waiters_;
  writer_wake_.notify_one();  // cut a linger short
  done_changed_.wait(lock, [&] { return done_ >= target; });
  --done_waiters_;
}

void RecordQueue::close() {
  {
    std::lock_guard lock(mutex_);
    closed_ = true;
  }
  writer_wake_.notify_all();
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
