#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <vector>

#include "core/request_record.h"

namespace llmux::store {

/// Limits and pacing of a RecordQueue.
struct RecordQueueOptions {
  /// Records held before `push` has to wait for room.
  std::size_t capacity = 65'536;
  /// Most records `popBatch` hands out at once (one transaction's worth).
  std::size_t batch_size = 512;
  /// Longest `push` waits for room in a full queue before dropping the record.
  std::chrono::milliseconds max_block{20};
  /// How long the writer waits for a batch to fill once a first record is queued. Fewer, larger
  /// transactions cost far less per record than one commit per request; `waitDone` and `close`
  /// cut the wait short.
  std::chrono::milliseconds linger{0};
};

/// The hand-off between request threads and a sink's background writer.
///
/// Policy ("nothing is lost", without stalling I/O threads): the queue accepts records without
/// ever waiting until it holds `capacity` of them. A writer that keeps up empties it in batches
/// long before that; the room is there to ride out a slow disk or a checkpoint. Only when it is
/// full does `push` wait, at most `max_block`, for the writer to make room; if the writer is
/// still stuck after that, the record is dropped and counted (`dropped()`), because an I/O
/// thread blocked for longer would stall every connection it serves.
///
/// `push` wakes the writer only when the queue stops being empty or a batch becomes full, so a
/// busy gateway does not pay a wake-up per request.
class RecordQueue {
 public:
  explicit RecordQueue(RecordQueueOptions options);

  /// Queues `record`; false when it had to be dropped (queue full past `max_block`, or closed).
  bool push(RequestRecord record);

  /// Writer side: waits until records are queued (and, with a linger, until a batch is full, the
  /// linger has passed, someone waits in `waitDone`, or the queue is closed), then moves up to
  /// `batch_size` records into `out`, oldest first. Returns false once closed and empty.
  bool popBatch(std::vector<RequestRecord>& out);

  /// Writer side: `n` records taken by `popBatch` are written (or given up on).
  void markDone(std::size_t n);

  /// Waits until every record accepted before the call has been marked done.
  void waitDone();

  /// No more records are accepted; `popBatch` still drains what is queued.
  void close();

  std::uint64_t dropped() const;
  std::size_t pending() const;  ///< queued, not yet taken by the writer

 private:
  RecordQueueOptions const options_;

  mutable std::mutex mutex_;
  std::condition_variable writer_wake_;
  std::condition_variable not_full_;
  std::condition_variable done_changed_;
  std::deque<RequestRecord> items_;
  std::uint64_t accepted_ = 0;
  std::uint64_t done_ = 0;
  std::uint64_t dropped_ = 0;
  int done_waiters_ = 0;
  bool closed_ = false;
};

}  // namespace llmux::store
