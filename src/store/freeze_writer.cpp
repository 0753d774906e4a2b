#include "store/freeze_writer.h"

#include <stdexcept>
#include <utility>

#include "store/writer_support.h"

namespace llmux::store {

FreezeWriter::FreezeWriter(FreezeRows& rows, TimeSource const& clock, FreezeWriterOptions options)
    : rows_(rows),
      clock_(clock),
      options_(options),
      // One write per transaction: freezes are rare and each must be durable on its own.
      queue_(WriteQueueOptions{.capacity = options.capacity, .batch_size = 1}) {
  thread_ = std::thread(&FreezeWriter::run, this);
}

FreezeWriter::~FreezeWriter() {
  queue_.close();
  if (thread_.joinable()) thread_.join();
}

std::vector<routing::Freeze> FreezeWriter::loadFreezes() {
  flush();
  auto loaded = rows_.load();
  if (!loaded.ok()) throw std::runtime_error(loaded.error().message);
  return std::move(*loaded);
}

void FreezeWriter::saveFreeze(routing::Freeze const& freeze) {
  enqueue(Op{freeze, {}});
}

void FreezeWriter::removeFreeze(std::string const& id) {
  enqueue(Op{std::nullopt, id});
}

std::uint64_t FreezeWriter::failedWrites() const {
  return failed_.load(std::memory_order_relaxed) + queue_.dropped();
}

void FreezeWriter::flush() {
  queue_.waitDone();
}

void FreezeWriter::enqueue(Op op) {
  // A full queue means the disk has been stuck for thousands of writes; the dropped write is
  // counted by the queue and surfaces in failedWrites().
  (void)queue_.push(std::move(op));
}

void FreezeWriter::run() {
  OpWriterTuning tuning{"freeze persistence", options_.write_retries, options_.failure_log_interval};
  runOpWriter(queue_, tuning, clock_, failed_, [&](Op const& op) -> Result<void> {
    if (!op.freeze) return rows_.remove(op.id);
    Result<void> saved = rows_.save(*op.freeze);
    if (saved.ok() && saved_) saved_(op.freeze->id);
    return saved;
  });
}

}  // namespace llmux::store
