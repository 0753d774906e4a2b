#include "store/freeze_sync.h"

#include "telemetry/failure_burst_log.h"
#include "telemetry/log.h"

namespace llmux::store {

FreezeSync::FreezeSync(FreezeRows& rows, routing::FreezeTable& table,
                       std::chrono::milliseconds interval)
    : rows_(rows), table_(table), interval_(interval), thread_(&FreezeSync::run, this) {}

FreezeSync::~FreezeSync() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

std::uint64_t FreezeSync::failedReads() const {
  std::lock_guard lock(mutex_);
  return failed_reads_;
}

void FreezeSync::run() {
  telemetry::FailureBurstLog failures("shared freezes read", std::chrono::seconds(60));
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    auto stored = rows_.load();
    if (stored.ok()) {
      failures.succeeded();
      if (std::size_t changed = table_.adopt(*stored); changed > 0) {
        telemetry::logInfo("freezes: {} change(s) taken from the shared store", changed);
      }
    } else {
      failures.failed(MonoClock::now(), stored.error().message);
    }
    lock.lock();
    if (!stored.ok()) ++failed_reads_;
    wake_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

}  // namespace llmux::store
