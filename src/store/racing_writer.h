#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "core/clock.h"
#include "core/result.h"
#include "racing/latency_memory.h"
#include "racing/racing_state.h"
#include "store/racing_store.h"
#include "store/record_queue.h"

namespace llmux::store {

/// Racing's persistence: the admin switches and latency learning outlive restarts. `restore`
/// puts what the store kept into the state at start-up; from then on the writer is the state's
/// sinks, so a change only queues its write (a request or admin thread never waits for a disk or
/// a SQLite lock) and a thread of its own makes the writes in order. The memory stays the truth:
/// a write that fails after its retries is counted and logged once per burst, and the change is
/// lost only at the next restart. Thread-safe.
class RacingWriter final : public racing::LatencySink, public racing::SwitchSink {
 public:
  /// Starts the writer thread and becomes `state`'s sinks. `rows`, `state` and `clock` must
  /// outlive the writer.
  RacingWriter(RacingRows& rows, racing::RacingState& state, TimeSource const& clock);
  /// Stops being the sinks, writes everything queued, then stops the thread.
  ~RacingWriter() override;
  RacingWriter(RacingWriter const&) = delete;
  RacingWriter& operator=(RacingWriter const&) = delete;

  /// Start-up, before serving: the kept switches become the state's overrides and the kept
  /// latency entries (those under a day old) its memory.
  Result<void> restore();

  void latencySaved(racing::LatencyMemory::Entry const& entry) override;
  void latencyRemoved(std::string const& id, racing::Combination const& combination) override;
  /// Queues a write of the switches as they are when it is made.
  void switchesChanged() override;

  /// With a shared store: the latency entries this writer stored are told to the memory
  /// (LatencyMemory::noteStored), so a removal by another replica is recognised. Set at start-up,
  /// before the first write.
  void noteStoredLatency() { note_stored_latency_ = true; }
  /// The generation of the switches (RacingState::switches) last stored: behind the state's
  /// while an operator's change here is on its way (the shared store's copy is then older).
  std::uint64_t storedSwitchGeneration() const {
    return stored_generation_.load(std::memory_order_acquire);
  }

  /// Writes given up on (after retries, or dropped by a full queue). Monotonic.
  std::uint64_t failedWrites() const override;
  /// Returns once every write queued before the call is done (or given up on). For shutdown and
  /// tests; never on an I/O thread.
  void flush();

 private:
  /// One queued write.
  struct Op {
    enum class Kind { Switches, SaveLatency, RemoveLatency } kind;
    racing::LatencyMemory::Entry entry;  ///< SaveLatency
    std::string id;                      ///< RemoveLatency
  };

  void run();
  Result<void> write(Op const& op);

  RacingRows& rows_;
  racing::RacingState& state_;
  TimeSource const& clock_;
  WriteQueue<Op> queue_;
  std::atomic<std::uint64_t> failed_{0};
  std::atomic<std::uint64_t> stored_generation_{0};
  bool note_stored_latency_ = false;
  std::thread thread_;
};

}  // namespace llmux::store
