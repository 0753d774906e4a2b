#include "store/request_log_writer.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "store/writer_support.h"
#include "telemetry/failure_burst_log.h"

namespace llmux::store {

/// What only the writer thread touches: the retention's schedule and the failure logs.
struct RequestLogWriter::ThreadState {
  ThreadState(std::string const& what, MonoTime first_retention, std::chrono::seconds log_interval)
      : next_retention(first_retention),
        write_failures(what + " write", log_interval),
        connection_failures(what + " connection", log_interval),
        drops(what + " queue", "record(s)", log_interval),
        retention_failures(what + " retention", log_interval) {}

  MonoTime next_retention;
  bool retention_behind = false;  ///< the last chunk was full: more expired rows wait
  /// The backoff between tries to reconnect (0 while connected), and when the next try is due.
  std::chrono::milliseconds reconnect_wait{0};
  MonoTime reconnect_not_before{};
  telemetry::FailureBurstLog write_failures;
  telemetry::FailureBurstLog connection_failures;
  QueueDropLog drops;
  telemetry::FailureBurstLog retention_failures;
};

RequestLogWriter::RequestLogWriter(std::string what, std::unique_ptr<RequestLogBackend> backend,
                                   RequestLogWriterOptions options)
    : what_(std::move(what)),
      backend_(std::move(backend)),
      options_(options),
      clock_(options.clock != nullptr ? *options.clock : real_clock_),
      queue_(WriteQueueOptions{.capacity = options.queue_capacity,
                               .batch_size = options.batch_size,
                               .linger = options.linger}),
      retention_days_(options.retention.count()) {
  // Made here, not on the thread: the first retention look is due `retention_interval` after
  // construction, whenever the thread gets to run.
  auto state = std::make_unique<ThreadState>(what_, clock_.now() + options_.retention_interval,
                                             options_.failure_log_interval);
  thread_ = std::thread(&RequestLogWriter::run, this, std::move(state));
}

RequestLogWriter::~RequestLogWriter() {
  queue_.close();
  if (thread_.joinable()) thread_.join();
}

void RequestLogWriter::record(RequestRecord record) {
  (void)queue_.push(std::move(record));
}

void RequestLogWriter::flush() {
  queue_.waitDone();
}

RequestLogStats RequestLogWriter::stats() const {
  RequestLogStats stats;
  stats.queued = queue_.pending();
  stats.written = written_.load(std::memory_order_relaxed);
  stats.dropped = queue_.dropped() + failed_.load(std::memory_order_relaxed);
  stats.failed_batches = failed_batches_.load(std::memory_order_relaxed);
  stats.expired = expired_.load(std::memory_order_relaxed);
  return stats;
}

std::string RequestLogWriter::lastWriteError() const {
  std::lock_guard lock(error_mutex_);
  return last_error_;
}

void RequestLogWriter::setRetention(std::chrono::days retention) {
  retention_days_.store(retention.count(), std::memory_order_relaxed);
}

void RequestLogWriter::noteFailure(std::string const& message) {
  std::lock_guard lock(error_mutex_);
  last_error_ = message;
}

void RequestLogWriter::run(std::unique_ptr<ThreadState> owned) {
  ThreadState& state = *owned;
  std::vector<RequestRecord> batch;
  batch.reserve(options_.batch_size);
  std::chrono::milliseconds idle = keepRetention(state);
  while (queue_.popBatch(batch, idle)) {
    if (!batch.empty()) {
      if (writeBatch(state, batch)) written_.fetch_add(batch.size(), std::memory_order_relaxed);
      state.drops.check(clock_.now(), queue_.dropped());
    }
    // Before markDone, so that flush() also sees the retention that was due.
    idle = keepRetention(state);
    queue_.markDone(batch.size());
    batch.clear();
  }
}

bool RequestLogWriter::writeBatch(ThreadState& s, std::span<RequestRecord const> batch) {
  auto give_up = [&](std::string const& why) {
    failed_.fetch_add(batch.size(), std::memory_order_relaxed);
    failed_batches_.fetch_add(1, std::memory_order_relaxed);
    s.write_failures.failed(clock_.now(), "a batch of " + std::to_string(batch.size()) +
                                              " record(s) was dropped " + why);
    return false;
  };
  auto delay = std::chrono::milliseconds(10);
  int retries_left = options_.write_retries;
  for (;;) {
    if (!backend_->connected() && !awaitConnection(s)) {
      return give_up("because the database is unreachable: " + lastWriteError());
    }
    Result<void> written = backend_->insertBatch(batch);
    if (written.ok()) {
      s.write_failures.succeeded();
      return true;
    }
    noteFailure(written.error().message);
    if (!backend_->connected()) {
      // The server went away mid-batch: the batch waits for the reconnection, not the retries.
      s.connection_failures.failed(clock_.now(), written.error().message);
      continue;
    }
    if (retries_left-- <= 0) {
      return give_up("after " + std::to_string(options_.write_retries) +
                     " retries: " + written.error().message);
    }
    std::this_thread::sleep_for(delay);
    delay *= 10;
  }
}

bool RequestLogWriter::awaitConnection(ThreadState& s) {
  for (;;) {
    // A flush or shutdown with the server gone: one try per backoff step, not one per batch (a
    // connect to a silent host takes seconds, and a full queue is many batches).
    if (queue_.urgent() && clock_.now() < s.reconnect_not_before) return false;
    Result<void> connected = backend_->reconnect();
    if (connected.ok()) {
      s.reconnect_wait = std::chrono::milliseconds(0);
      s.connection_failures.succeeded();
      return true;
    }
    s.reconnect_wait =
        std::min(std::max(s.reconnect_wait * 2, options_.reconnect_min), options_.reconnect_max);
    s.reconnect_not_before = clock_.now() + s.reconnect_wait;
    noteFailure(connected.error().message);
    s.connection_failures.failed(clock_.now(), connected.error().message);
    // What the full queue dropped meanwhile is logged while it happens, not after the outage.
    s.drops.check(clock_.now(), queue_.dropped());
    if (queue_.urgent()) return false;
    queue_.sleepUnlessUrgent(s.reconnect_wait);
  }
}

std::chrono::milliseconds RequestLogWriter::keepRetention(ThreadState& s) {
  using std::chrono::milliseconds;
  MonoTime now = clock_.now();
  if (!s.retention_behind && now < s.next_retention) {
    return std::chrono::ceil<milliseconds>(s.next_retention - now);
  }
  s.retention_behind = false;
  // Read at each look: a reload may change it (0 keeps everything). While the backend is
  // disconnected the look is skipped: the rows wait for the next one.
  std::chrono::days keep_for(retention_days_.load(std::memory_order_relaxed));
  if (keep_for.count() > 0 && backend_->connected()) {
    auto deleted = backend_->deleteExpired(clock_.wallNow() - keep_for, options_.retention_chunk);
    if (deleted.ok()) {
      expired_.fetch_add(*deleted, std::memory_order_relaxed);
      s.retention_failures.succeeded();
      s.retention_behind = *deleted >= options_.retention_chunk;
    } else {
      s.retention_failures.failed(now, deleted.error().message);  // the rows wait for the next look
    }
  }
  if (s.retention_behind) return milliseconds(0);  // the next chunk right after the next batch
  s.next_retention = now + options_.retention_interval;
  return options_.retention_interval;
}

}  // namespace llmux::store
