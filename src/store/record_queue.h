#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "core/request_record.h"

namespace llmux::store {

/// The hand-off between request threads and a sink's background writer.
///
/// Policy ("nothing is lost", without stalling I/O threads): the queue accepts records without
/// ever waiting until it holds `capacity` of them. A writer that keeps up empties it in batches
/// long before that; the room is there to ride out a slow disk or a checkpoint. Only when it is
/// full does `push` wait, at most `max_block`, for the writer to make room; if the writer is
/// still stuck after that, the record is dropped and counted (`dropped()`), because an I/O
/// thread blocked for longer would stall every connection it serves.
class RecordQueue {
 public:
  RecordQueue(std::size_t capacity, std::chrono::milliseconds max_block);

  /// Queues `record`; false when it had to be dropped (queue full past `max_block`, or closed).
  bool push(RequestRecord record);

  /// Writer side: waits until records are queued, then moves up to `max` of them into `out`
  /// (oldest first). Returns false once the queue is closed and empty.
  bool popBatch(std::vector<RequestRecord>& out, std::size_t max);

  /// Writer side: `n` records taken by `popBatch` are written (or given up on).
  void markDone(std::size_t n);

  /// Waits until every record accepted before the call has been marked done.
  void waitDone();

  /// No more records are accepted; `popBatch` still drains what is queued.
  void close();

  std::uint64_t dropped() const;
  std::size_t pending() const;  ///< queued, not yet taken by the writer

 private:
  std::size_t const capacity_;
  std::chrono::milliseconds const max_block_;

  mutable std::mutex mutex_;
  std::condition_variable not_empty_;
  std::condition_variable not_full_;
  std::condition_variable done_changed_;
  std::deque<RequestRecord> items_;
  std::uint64_t accepted_ = 0;
  std::uint64_t done_ = 0;
  std::uint64_t dropped_ = 0;
  bool closed_ = false;
};

}  // namespace llmux::store
