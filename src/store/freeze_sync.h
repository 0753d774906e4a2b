#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

#include "routing/freezes.h"
#include "store/freeze_writer.h"

namespace llmux::store {

/// Keeps a replica's FreezeTable in step with the freezes every replica shares (`database:`):
/// a thread of its own reads the stored freezes every `interval` and hands them to
/// FreezeTable::adopt, so a freeze made or lifted by one replica reaches the others within an
/// interval plus the writer's own delay. A failed read is logged once per burst and tried again
/// at the next interval; routing goes on with what the table knows.
class FreezeSync {
 public:
  /// Starts the thread; `rows` and `table` must outlive the sync.
  FreezeSync(FreezeRows& rows, routing::FreezeTable& table, std::chrono::milliseconds interval);
  ~FreezeSync();
  FreezeSync(FreezeSync const&) = delete;
  FreezeSync& operator=(FreezeSync const&) = delete;

  /// Reads since start that failed (monotonic), for tests and metrics.
  std::uint64_t failedReads() const;

 private:
  void run();

  FreezeRows& rows_;
  routing::FreezeTable& table_;
  std::chrono::milliseconds const interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::uint64_t failed_reads_ = 0;
  std::thread thread_;
};

}  // namespace llmux::store
