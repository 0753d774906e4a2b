#include "store/shared_state_sync.h"

#include <memory>

#include "store/postgres_video_job_store.h"
#include "store/racing_writer.h"
#include "telemetry/failure_burst_log.h"
#include "telemetry/log.h"

namespace llmux::store {
namespace {

// Jobs are only ever added (expiry is each replica's own): reading from a little before the
// newest one seen never misses one committed late or stamped by a clock a little behind.
constexpr std::chrono::seconds kVideoJobMargin{5};
constexpr std::size_t kVideoJobsPerRead = 10'000;

}  // namespace

SharedStateSync::SharedStateSync(std::vector<SharedPull> pulls, std::chrono::milliseconds interval)
    : pulls_(std::move(pulls)), interval_(interval), thread_(&SharedStateSync::run, this) {}

SharedStateSync::~SharedStateSync() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::uint64_t SharedStateSync::failedReads() const {
  std::lock_guard lock(mutex_);
  return failed_reads_;
}

void SharedStateSync::run() {
  std::vector<telemetry::FailureBurstLog> failures;
  for (auto const& pull : pulls_) {
    failures.emplace_back("shared " + pull.what + " read", std::chrono::seconds(60));
  }
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    std::uint64_t failed = 0;
    for (std::size_t i = 0; i < pulls_.size(); ++i) {
      auto changed = pulls_[i].pull();
      if (!changed.ok()) {
        ++failed;
        failures[i].failed(MonoClock::now(), changed.error().message);
        continue;
      }
      failures[i].succeeded();
      if (*changed > 0) {
        telemetry::logInfo("{}: {} change(s) taken from the shared store", pulls_[i].what, *changed);
      }
    }
    lock.lock();
    failed_reads_ += failed;
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

SharedPull freezePull(FreezeRows& rows, routing::FreezeTable& table) {
  return {"freezes", [&rows, &table]() -> Result<std::size_t> {
            std::uint64_t const read_mark = table.storeMark();  // before the read: see StoredIds
            auto stored = rows.load();
            if (!stored.ok()) return stored.takeError();
            return table.adopt(*stored, read_mark);
          }};
}

SharedPull racingPull(RacingRows& rows, racing::RacingState& state, RacingWriter const& writer,
                      TimeSource const& clock) {
  return {"racing state", [&rows, &state, &writer, &clock]() -> Result<std::size_t> {
            std::size_t changed = 0;
            std::uint64_t const seen = state.switches().generation;
            if (writer.storedSwitchGeneration() >= seen) {
              auto switches = rows.loadSwitches();
              if (!switches.ok()) return switches.takeError();
              if (state.adoptSwitches(switches->enabled, switches->cost_preference, seen)) {
                ++changed;
              }
            }
            WallTime const now = clock.wallNow();
            std::uint64_t const read_mark = state.latency.storeMark();  // before the read
            auto entries = rows.loadLatency(now);
            if (!entries.ok()) return entries.takeError();
            return changed + state.latency.adopt(*entries, now, read_mark);
          }};
}

SharedPull videoJobPull(PostgresVideoJobStore& rows, routing::VideoJobTable& table,
                        WallTime since) {
  auto newest = std::make_shared<WallTime>(since);
  return {"video jobs", [&rows, &table, newest]() -> Result<std::size_t> {
            auto jobs = rows.createdSince(*newest - kVideoJobMargin, kVideoJobsPerRead);
            if (!jobs.ok()) return jobs.takeError();
            std::vector<routing::VideoJob> unknown;
            for (auto& job : *jobs) {
              if (job.created > *newest) *newest = job.created;
              if (!table.find(job.id)) unknown.push_back(std::move(job));
            }
            std::size_t const added = unknown.size();
            if (added > 0) table.load(std::move(unknown));
            return added;
          }};
}

}  // namespace llmux::store
