#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "core/result.h"
#include "routing/freezes.h"
#include "racing/racing_state.h"
#include "routing/video_jobs.h"
#include "store/freeze_writer.h"

namespace llmux::store {

class PostgresVideoJobStore;
class RacingRows;
class RacingWriter;

/// One piece of shared state read back each interval: `pull` reads it from the store and takes
/// it into memory, returning how many changes it took in.
struct SharedPull {
  std::string what;  ///< "freezes", "video jobs": names it in log lines
  std::function<Result<std::size_t>()> pull;
};

/// Keeps a replica's memory in step with the state every replica shares (`database:`): a
/// thread of its own runs every pull each `interval`, so what one replica changes reaches the
/// others within an interval plus its writer's own delay. A failed read is logged once per burst
/// and tried again at the next interval; the gateway goes on with what it knows.
class SharedStateSync {
 public:
  /// Starts the thread; what the pulls use must outlive the sync.
  SharedStateSync(std::vector<SharedPull> pulls, std::chrono::milliseconds interval);
  ~SharedStateSync();
  SharedStateSync(SharedStateSync const&) = delete;
  SharedStateSync& operator=(SharedStateSync const&) = delete;

  /// Reads since start that failed (monotonic), for tests.
  std::uint64_t failedReads() const;

 private:
  void run();

  std::vector<SharedPull> const pulls_;
  std::chrono::milliseconds const interval_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::uint64_t failed_reads_ = 0;
  std::thread thread_;
};

/// The freezes' pull: every stored freeze, adopted (FreezeTable::adopt).
SharedPull freezePull(FreezeRows& rows, routing::FreezeTable& table);

/// Racing's pull: the switches another replica's operator set (unless this replica's own change
/// is still on its way: `writer` has not stored it), and the latency penalties, adopted
/// (LatencyMemory::adopt).
SharedPull racingPull(RacingRows& rows, racing::RacingState& state, RacingWriter const& writer,
                      TimeSource const& clock);

/// The video jobs' pull: the jobs created since the newest one seen (less a margin for replicas'
/// clocks and late commits) join the table, so a job created through another replica can be
/// polled through this one.
SharedPull videoJobPull(PostgresVideoJobStore& rows, routing::VideoJobTable& table,
                        WallTime since);

}  // namespace llmux::store
