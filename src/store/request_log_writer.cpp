#include "store/request_log_writer.h"

#include <unistd.h>

#include <algorithm>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/ids.h"

#include "store/writer_support.h"
#include "telemetry/failure_burst_log.h"

namespace llmux::store {

namespace {

/// This process's default name among the replicas: its host, its pid and random digits (a pid
/// is reused across restarts and containers).
std::string madeUpReplicaName() {
  char host[256] = {};
  if (::gethostname(host, sizeof host - 1) != 0 || host[0] == '\0') std::snprintf(host, sizeof host, "llmux");
  return std::string(host) + ":" + std::to_string(::getpid()) + ":" + randomHex(4);
}

/// A running request's row as the writer last knew it. Rows opened longer ago than this without
/// an end are forgotten (their end was dropped by a full queue): the heartbeat sweep or an
/// operator closes them in the database.
constexpr std::chrono::hours kForgetOpenAfter{24};

}  // namespace

/// What only the writer thread touches: the running requests' rows, the schedules and the
/// failure logs.
struct RequestLogWriter::ThreadState {
  ThreadState(std::string const& what, MonoTime first_retention, std::chrono::seconds log_interval)
      : next_retention(first_retention),
        write_failures(what + " write", log_interval),
        connection_failures(what + " connection", log_interval),
        drops(what + " queue", "event(s)", log_interval),
        retention_failures(what + " retention", log_interval),
        heartbeat_failures(what + " heartbeat", log_interval) {}

  struct OpenRequest {
    std::int64_t seq = 0;  ///< 0 until its row was written
    RequestRecord row;
    MonoTime opened{};
    bool finished = false;  ///< its end is in the batch being written
    bool touched = false;   ///< the batch being written changes it
  };
  std::unordered_map<std::uint64_t, OpenRequest> open;
  std::vector<std::uint64_t> touched;  ///< the batch's running requests, in order

  MonoTime next_heartbeat{};  ///< the first is due at once
  MonoTime next_retention;
  bool retention_behind = false;  ///< the last chunk was full: more expired rows wait
  /// The backoff between tries to reconnect (0 while connected), and when the next try is due.
  std::chrono::milliseconds reconnect_wait{0};
  MonoTime reconnect_not_before{};
  telemetry::FailureBurstLog write_failures;
  telemetry::FailureBurstLog connection_failures;
  QueueDropLog drops;
  telemetry::FailureBurstLog retention_failures;
  telemetry::FailureBurstLog heartbeat_failures;
};

RequestLogWriter::RequestLogWriter(std::string what, std::unique_ptr<RequestLogBackend> backend,
                                   RequestLogWriterOptions options)
    : what_(std::move(what)),
      backend_(std::move(backend)),
      options_(options),
      clock_(options.clock != nullptr ? *options.clock : real_clock_),
      replica_(options.replica.empty() ? madeUpReplicaName() : options.replica),
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
  RequestLogEvent event;
  event.handle = record.log_handle;
  event.body = std::move(record);
  (void)queue_.push(std::move(event));
}

std::uint64_t RequestLogWriter::opened(RequestRecord const& head) {
  RequestLogEvent event;
  event.kind = RequestLogEvent::Kind::Opened;
  event.handle = next_handle_.fetch_add(1, std::memory_order_relaxed);
  std::uint64_t const handle = event.handle;
  RequestRecord& row = event.body.emplace<RequestRecord>(head);
  row.log_handle = handle;
  // A dropped opening only costs the running row: the end still writes the request whole.
  (void)queue_.push(std::move(event));
  return handle;
}

void RequestLogWriter::attemptChanged(std::uint64_t handle, int number, AttemptRecord const& attempt) {
  if (handle == 0 || number <= 0) return;
  RequestLogEvent event;
  event.kind = RequestLogEvent::Kind::Attempt;
  event.handle = handle;
  event.attempt_number = number;
  event.body.emplace<AttemptRecord>(attempt);
  (void)queue_.push(std::move(event));
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
  stats.interrupted = interrupted_.load(std::memory_order_relaxed);
  stats.connected = connected_.load(std::memory_order_relaxed);
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
  std::vector<RequestLogEvent> events;
  events.reserve(options_.batch_size);
  std::chrono::milliseconds idle = std::min(keepHeartbeat(state), keepRetention(state));
  while (queue_.popBatch(events, idle)) {
    if (!events.empty()) {
      std::vector<LogRow> rows = fold(state, events);
      bool const written = rows.empty() || writeBatch(state, rows);
      if (written) {
        auto finished = std::count_if(rows.begin(), rows.end(), [](LogRow const& r) { return !r.running; });
        written_.fetch_add(static_cast<std::uint64_t>(finished), std::memory_order_relaxed);
      } else {
        failed_.fetch_add(events.size(), std::memory_order_relaxed);
      }
      settle(state, rows, written);
      state.drops.check(clock_.now(), queue_.dropped());
    }
    // Before markDone, so that flush() also sees the retention that was due.
    idle = std::min(keepHeartbeat(state), keepRetention(state));
    connected_.store(backend_->connected(), std::memory_order_relaxed);
    queue_.markDone(events.size());
    events.clear();
  }
  // A clean stop: what still runs (nothing, after a drain) is closed, and the heartbeat goes so
  // no other replica waits for it to lapse.
  if (backend_->connected()) {
    if (auto retired = backend_->retire(replica_); !retired.ok()) noteFailure(retired.error().message);
  }
}

std::vector<LogRow> RequestLogWriter::fold(ThreadState& s, std::vector<RequestLogEvent>& events) {
  using Kind = RequestLogEvent::Kind;
  std::vector<LogRow> rows;
  auto touch = [&](std::uint64_t handle, ThreadState::OpenRequest& open) {
    if (!open.touched) s.touched.push_back(handle);
    open.touched = true;
  };
  for (RequestLogEvent& event : events) {
    std::uint64_t const handle = event.handle;
    switch (event.kind) {
      case Kind::Opened: {
        auto& open = s.open[handle];
        open.row = std::move(std::get<RequestRecord>(event.body));
        open.opened = clock_.now();
        touch(handle, open);
        break;
      }
      case Kind::Attempt: {
        auto found = s.open.find(handle);
        if (found == s.open.end() || found->second.finished) break;  // its opening was dropped
        auto& attempts = found->second.row.attempts;
        auto const index = static_cast<std::size_t>(event.attempt_number - 1);
        if (attempts.size() <= index) attempts.resize(index + 1);
        attempts[index] = std::move(std::get<AttemptRecord>(event.body));
        touch(handle, found->second);
        break;
      }
      case Kind::Finished: {
        auto found = handle == 0 ? s.open.end() : s.open.find(handle);
        if (found == s.open.end()) {
          rows.push_back(LogRow{0, false, std::move(std::get<RequestRecord>(event.body))});
          break;
        }
        found->second.row = std::move(std::get<RequestRecord>(event.body));
        found->second.finished = true;
        touch(handle, found->second);
        break;
      }
    }
  }
  // Requests that ended before their row opened are numbered in the order they were admitted,
  // not the order their workers accounted them: a worker accounts a request just after answering
  // it, so the client's next request, on another worker, may be accounted first (the writer's
  // linger puts both in one batch).
  std::stable_sort(rows.begin(), rows.end(), [](LogRow const& a, LogRow const& b) {
    return a.record.started_at < b.record.started_at;
  });
  for (std::uint64_t handle : s.touched) {
    auto& open = s.open[handle];
    if (open.finished) {
      rows.push_back(LogRow{open.seq, false, std::move(open.row)});
    } else {
      rows.push_back(LogRow{open.seq, true, open.row});
    }
  }
  return rows;
}

void RequestLogWriter::settle(ThreadState& s, std::span<LogRow const> rows, bool written) {
  // The touched requests' rows are the last ones, in the order of `touched`.
  std::size_t row = rows.size() - s.touched.size();
  for (std::uint64_t handle : s.touched) {
    auto found = s.open.find(handle);
    if (found->second.finished) {
      s.open.erase(found);
    } else {
      if (written) found->second.seq = rows[row].seq;
      found->second.touched = false;
    }
    ++row;
  }
  s.touched.clear();
}

bool RequestLogWriter::writeBatch(ThreadState& s, std::span<LogRow> batch) {
  auto give_up = [&](std::string const& why) {
    failed_batches_.fetch_add(1, std::memory_order_relaxed);
    s.write_failures.failed(clock_.now(), "a batch of " + std::to_string(batch.size()) +
                                              " row(s) was dropped " + why);
    return false;
  };
  auto delay = std::chrono::milliseconds(10);
  int retries_left = options_.write_retries;
  for (;;) {
    if (!backend_->connected() && !awaitConnection(s)) {
      return give_up("because the database is unreachable: " + lastWriteError());
    }
    Result<void> written = backend_->insertBatch(batch, replica_);
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
    connected_.store(false, std::memory_order_relaxed);
    s.connection_failures.failed(clock_.now(), connected.error().message);
    // What the full queue dropped meanwhile is logged while it happens, not after the outage.
    s.drops.check(clock_.now(), queue_.dropped());
    if (queue_.urgent()) return false;
    queue_.sleepUnlessUrgent(s.reconnect_wait);
  }
}

std::chrono::milliseconds RequestLogWriter::keepHeartbeat(ThreadState& s) {
  using std::chrono::milliseconds;
  MonoTime now = clock_.now();
  if (now < s.next_heartbeat) return std::chrono::ceil<milliseconds>(s.next_heartbeat - now);
  s.next_heartbeat = now + options_.heartbeat_interval;
  // Running rows whose end was lost (a full queue dropped it) are not kept forever.
  std::erase_if(s.open, [&](auto const& entry) {
    return !entry.second.touched && now - entry.second.opened > kForgetOpenAfter;
  });
  // While disconnected there is no heartbeat: after the lapse, other replicas close this one's
  // running rows, and its own writes put right what still ends.
  if (backend_->connected()) {
    auto closed = backend_->heartbeat(replica_, clock_.wallNow(), options_.heartbeat_lapse);
    if (closed.ok()) {
      interrupted_.fetch_add(*closed, std::memory_order_relaxed);
      s.heartbeat_failures.succeeded();
    } else {
      s.heartbeat_failures.failed(now, closed.error().message);
    }
  }
  return options_.heartbeat_interval;
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
