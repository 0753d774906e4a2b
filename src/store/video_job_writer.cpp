#include "store/video_job_writer.h"

#include <utility>

#include "store/writer_support.h"

namespace llmux::store {

VideoJobWriter::VideoJobWriter(VideoJobRows& rows, routing::VideoJobTable& table,
                               TimeSource const& clock, VideoJobWriterOptions options)
    : rows_(rows),
      table_(table),
      clock_(clock),
      options_(options),
      // One write per transaction: jobs are rare next to requests, and each must be kept.
      queue_(WriteQueueOptions{.capacity = options.capacity, .batch_size = 1}),
      // restore() deletes the expired rows, so the first prune waits a whole interval.
      next_prune_((clock.now() + options.prune_interval).time_since_epoch().count()) {
  thread_ = std::thread(&VideoJobWriter::run, this);
  table_.setSink(this);
}

VideoJobWriter::~VideoJobWriter() {
  table_.setSink(nullptr);
  queue_.close();
  if (thread_.joinable()) thread_.join();
}

Result<void> VideoJobWriter::restore() {
  flush();
  auto jobs = rows_.load(clock_.wallNow() - table_.retention(), table_.capacity());
  if (!jobs.ok()) return jobs.takeError();
  table_.load(std::move(*jobs));
  return {};
}

void VideoJobWriter::videoJobRemembered(routing::VideoJob const& job) {
  // A full queue means the disk has been stuck for thousands of writes; the dropped write is
  // counted by the queue and surfaces in failedWrites().
  (void)queue_.push(Op{job, {}});
  if (claimPrune()) {
    (void)queue_.push(Op{std::nullopt, clock_.wallNow() - table_.retention()});
  }
}

std::uint64_t VideoJobWriter::failedWrites() const {
  return failed_.load(std::memory_order_relaxed) + queue_.dropped();
}

void VideoJobWriter::flush() {
  queue_.waitDone();
}

bool VideoJobWriter::claimPrune() {
  MonoClock::rep now = clock_.now().time_since_epoch().count();
  MonoClock::rep due = next_prune_.load(std::memory_order_relaxed);
  if (now < due) return false;
  MonoClock::rep next = now + MonoClock::duration(options_.prune_interval).count();
  return next_prune_.compare_exchange_strong(due, next, std::memory_order_relaxed);
}

void VideoJobWriter::run() {
  OpWriterTuning tuning{"video job persistence", options_.write_retries};
  runOpWriter(queue_, tuning, clock_, failed_, [&](Op const& op) {
    return op.job ? rows_.save(*op.job) : rows_.deleteOlderThan(op.prune_before);
  });
}

}  // namespace llmux::store
