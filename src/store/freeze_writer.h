#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "routing/freezes.h"
#include "store/record_queue.h"

namespace llmux::store {

/// The stored freezes, read and written synchronously (SqliteFreezeStore). Only a FreezeWriter's
/// thread writes through it once the gateway runs: a write may wait for the disk or a lock.
class FreezeRows {
 public:
  virtual ~FreezeRows() = default;
  /// Every stored freeze, oldest first.
  virtual Result<std::vector<routing::Freeze>> load() = 0;
  /// Inserts or replaces the freeze with this id.
  virtual Result<void> save(routing::Freeze const& freeze) = 0;
  /// Deletes the freeze with this id (nothing when there is none).
  virtual Result<void> remove(std::string const& id) = 0;
};

/// Tuning of a FreezeWriter.
struct FreezeWriterOptions {
  /// Most writes queued. Freezes change rarely (a write per new, extended, lifted or expired
  /// freeze), so this is only reached when the disk is stuck; a write beyond it is dropped and
  /// counted as failed.
  std::size_t capacity = 4096;
  /// Further tries of a failed write (after 10 ms, 100 ms, 1 s, ...) before it counts as failed.
  int write_retries = 3;
  /// While writes keep failing, at most one log line per this.
  std::chrono::seconds failure_log_interval{60};
};

/// The freezes' persistence as FreezeTable uses it: `saveFreeze` and `removeFreeze` queue the
/// write and return at once, and a thread of its own performs the writes in order through
/// `rows`. So a request thread that applies or lifts a freeze, or meets an expired one (a
/// routing decision, an admin call, a /metrics scrape), never waits for a disk, an fsync or a
/// SQLite lock. FreezeTable's memory stays the truth; a write that fails after its retries is
/// counted (`failedWrites`) and logged once per burst, and the change is lost only at the next
/// restart. Thread-safe.
class FreezeWriter final : public routing::FreezePersistence {
 public:
  /// Starts the writer thread. `rows` and `clock` must outlive the writer.
  FreezeWriter(FreezeRows& rows, TimeSource const& clock, FreezeWriterOptions options = {});
  /// Writes everything queued, then stops the thread.
  ~FreezeWriter() override;
  FreezeWriter(FreezeWriter const&) = delete;
  FreezeWriter& operator=(FreezeWriter const&) = delete;

  /// Synchronous, for start-up: the queued writes first, then the rows. Throws
  /// std::runtime_error when they cannot be read.
  std::vector<routing::Freeze> loadFreezes() override;
  void saveFreeze(routing::Freeze const& freeze) override;
  void removeFreeze(std::string const& id) override;
  /// Writes given up on (after retries, or dropped by a full queue). Monotonic.
  std::uint64_t failedWrites() const override;

  /// Returns once every write queued before the call is done (or given up on). For shutdown and
  /// tests; never on an I/O thread.
  void flush();
  /// Writes queued or being written.
  std::size_t pendingWrites() const { return queue_.unfinished(); }
  /// Called on the writer's thread with a freeze's id once its save is stored (a shared store:
  /// FreezeTable::noteStored). Set at start-up, before the first write.
  void onSaved(std::function<void(std::string const&)> saved) { saved_ = std::move(saved); }

 private:
  /// One queued write: a save when `freeze` is set, else the removal of `id`.
  struct Op {
    std::optional<routing::Freeze> freeze;
    std::string id;
  };

  void enqueue(Op op);
  void run();

  FreezeRows& rows_;
  TimeSource const& clock_;
  FreezeWriterOptions const options_;
  WriteQueue<Op> queue_;
  std::atomic<std::uint64_t> failed_{0};
  std::function<void(std::string const&)> saved_;
  std::thread thread_;
};

}  // namespace llmux::store
