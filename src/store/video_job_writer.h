#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "routing/video_jobs.h"
#include "store/record_queue.h"

namespace llmux::store {

/// The stored video jobs, read and written synchronously (SqliteVideoJobStore). Only a
/// VideoJobWriter's thread writes through it once the gateway runs: a write may wait for the disk
/// or a lock.
class VideoJobRows {
 public:
  virtual ~VideoJobRows() = default;
  /// Deletes the jobs created before `cutoff`, then returns the newest `limit` of the others,
  /// oldest first.
  virtual Result<std::vector<routing::VideoJob>> load(WallTime cutoff, std::size_t limit) = 0;
  /// Inserts or replaces the job with this id.
  virtual Result<void> save(routing::VideoJob const& job) = 0;
  /// Deletes the jobs created before `cutoff`.
  virtual Result<void> deleteOlderThan(WallTime cutoff) = 0;
};

/// Tuning of a VideoJobWriter.
struct VideoJobWriterOptions {
  /// Most writes queued. A job is one paid generation, so this is only reached when the disk is
  /// stuck; a write beyond it is dropped (the job stays in memory) and counted as failed.
  std::size_t capacity = 4096;
  /// Further tries of a failed write (after 10 ms, 100 ms, 1 s, ...) before it counts as failed.
  int write_retries = 3;
  /// At most one deletion of expired rows per this, queued behind a save: the table on disk
  /// stays about the table's retention of jobs without a timer of its own.
  std::chrono::minutes prune_interval{60};
};

/// The video jobs' persistence: `restore` puts the kept jobs into the table at start-up; from
/// then on the writer is the table's sink, so remembering a job only queues its write (a request
/// thread never waits for a disk or a SQLite lock) and a thread of its own makes the writes in
/// order. The table stays the truth: a write that fails after its retries, or finds the queue
/// full, is counted (`failedWrites`) and logged once per burst, and the job is lost only at the
/// next restart. Thread-safe.
class VideoJobWriter final : public routing::VideoJobSink {
 public:
  /// Starts the writer thread and becomes `table`'s sink. `rows`, `table` and `clock` must
  /// outlive the writer.
  VideoJobWriter(VideoJobRows& rows, routing::VideoJobTable& table, TimeSource const& clock,
                 VideoJobWriterOptions options = {});
  /// Stops being the sink, writes everything queued, then stops the thread.
  ~VideoJobWriter() override;
  VideoJobWriter(VideoJobWriter const&) = delete;
  VideoJobWriter& operator=(VideoJobWriter const&) = delete;

  /// Start-up, before serving: the jobs kept from the last of the table's retention become the
  /// table's (deleting older rows).
  Result<void> restore();

  void videoJobRemembered(routing::VideoJob const& job) override;
  /// Writes given up on (after retries, or dropped by a full queue). Monotonic.
  std::uint64_t failedWrites() const override;

  /// Returns once every write queued before the call is done (or given up on). For shutdown and
  /// tests; never on an I/O thread.
  void flush();
  /// Writes queued or being written.
  std::size_t pendingWrites() const { return queue_.unfinished(); }

 private:
  /// One queued write: a save when `job` is set, else the deletion of the rows created before
  /// `prune_before`.
  struct Op {
    std::optional<routing::VideoJob> job;
    WallTime prune_before{};
  };

  /// Whether a prune is due now; claims it when so (one caller wins).
  bool claimPrune();
  void run();

  VideoJobRows& rows_;
  routing::VideoJobTable& table_;
  TimeSource const& clock_;
  VideoJobWriterOptions const options_;
  WriteQueue<Op> queue_;
  std::atomic<MonoClock::rep> next_prune_;  ///< MonoTime's ticks
  std::atomic<std::uint64_t> failed_{0};
  std::thread thread_;
};

}  // namespace llmux::store
