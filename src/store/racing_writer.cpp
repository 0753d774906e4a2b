#include "store/racing_writer.h"

#include <utility>

#include "store/writer_support.h"

namespace llmux::store {

RacingWriter::RacingWriter(RacingRows& rows, racing::RacingState& state,
                           TimeSource const& clock)
    : rows_(rows),
      state_(state),
      clock_(clock),
      // A write a transaction: a change is rare next to requests (slow evidence, an operator's
      // call); the capacity is only reached when the disk is stuck.
      queue_(WriteQueueOptions{.capacity = 4096, .batch_size = 1}) {
  thread_ = std::thread(&RacingWriter::run, this);
  state_.latency.setSink(this);
  state_.setSwitchSink(this);
}

RacingWriter::~RacingWriter() {
  state_.setSwitchSink(nullptr);
  state_.latency.setSink(nullptr);
  queue_.close();
  if (thread_.joinable()) thread_.join();
}

Result<void> RacingWriter::restore() {
  flush();
  auto switches = rows_.loadSwitches();
  if (!switches.ok()) return switches.takeError();
  auto entries = rows_.loadLatency(clock_.wallNow());
  if (!entries.ok()) return entries.takeError();
  (void)state_.adoptSwitches(switches->enabled, switches->cost_preference,
                             state_.switches().generation);
  state_.latency.load(*entries, clock_.wallNow());
  return {};
}

void RacingWriter::latencySaved(racing::LatencyMemory::Entry const& entry) {
  (void)queue_.push(Op{Op::Kind::SaveLatency, entry, {}});  // a drop is counted by the queue
}

void RacingWriter::latencyRemoved(std::string const& id, racing::Combination const&) {
  (void)queue_.push(Op{Op::Kind::RemoveLatency, {}, id});
}

void RacingWriter::switchesChanged() {
  (void)queue_.push(Op{Op::Kind::Switches, {}, {}});
}

std::uint64_t RacingWriter::failedWrites() const {
  return failed_.load(std::memory_order_relaxed) + queue_.dropped();
}

void RacingWriter::flush() {
  queue_.waitDone();
}

Result<void> RacingWriter::write(Op const& op) {
  switch (op.kind) {
    case Op::Kind::Switches: {
      // Read now, not when queued: of concurrent changes, the last one is what stays.
      racing::RacingState::Switches const now = state_.switches();
      auto saved = rows_.saveSwitches({now.enabled, now.cost_preference}, clock_.wallNow());
      if (saved.ok()) stored_generation_.store(now.generation, std::memory_order_release);
      return saved;
    }
    case Op::Kind::SaveLatency: {
      auto saved = rows_.saveLatency(op.entry);
      if (saved.ok() && note_stored_latency_) state_.latency.noteStored(op.entry.id);
      return saved;
    }
    case Op::Kind::RemoveLatency:
      return rows_.removeLatency(op.id);
  }
  return {};
}

void RacingWriter::run() {
  runOpWriter(queue_, OpWriterTuning{"racing persistence"}, clock_, failed_,
              [&](Op const& op) { return write(op); });
}

}  // namespace llmux::store
