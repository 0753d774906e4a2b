#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

#include "core/clock.h"
#include "core/request_record.h"
#include "core/result.h"
#include "store/record_queue.h"
#include "store/request_log.h"

namespace llmux::store {

/// One request's row as a batch writes it, with its attempts so far (numbered from 1 in order).
struct LogRow {
  /// 0: a new row, numbered by the backend as it inserts it (it sets `seq`); otherwise the row
  /// written before under that number, replaced whole with its attempts.
  std::int64_t seq = 0;
  /// The request has not ended: the row says `in_progress` (and its running attempt's outcome
  /// pending). Otherwise `done`.
  bool running = false;
  RequestRecord record;
};

/// The database under a RequestLogWriter: SQLite (SqliteStore) or PostgreSQL
/// (PostgresRequestLog). Every call comes from the writer's one thread, so an implementation
/// needs no locking and may block (it is never called on a request thread).
class RequestLogBackend {
 public:
  virtual ~RequestLogBackend() = default;

  /// Writes the rows of `batch` and their attempts in one transaction: all or nothing. New rows
  /// get their `seq`; every row is marked as written by `replica`.
  virtual Result<void> insertBatch(std::span<LogRow> batch, std::string_view replica) = 0;

  /// Deletes at most `limit` requests that started before `cutoff` (oldest first), with their
  /// attempts, in one transaction. Returns how many requests it deleted: `limit` means more may
  /// be left.
  virtual Result<std::size_t> deleteExpired(WallTime cutoff, std::size_t limit) = 0;

  /// Records that `replica` is alive at `now`, and closes as `interrupted` the running rows (and
  /// running attempts) of every replica whose last heartbeat is older than `now - lapse`: it
  /// crashed, or lost the database for that long. Returns how many requests it closed.
  virtual Result<std::size_t> heartbeat(std::string_view replica, WallTime now,
                                        std::chrono::milliseconds lapse) = 0;
  /// `replica` stops: its rows still running are closed as `interrupted` and its heartbeat goes.
  virtual Result<void> retire(std::string_view replica) = 0;

  /// False while the backend has no usable connection (a server that went away): the writer
  /// then keeps its batch and calls `reconnect` with a backoff instead of spending its retries.
  /// An embedded database is always connected.
  virtual bool connected() const { return true; }

  /// Tries to connect again (and to bring the schema up to date); ok once connected.
  virtual Result<void> reconnect() { return {}; }
};

/// What request threads hand a RequestLogWriter. An event carries only what it is about (a
/// request, or one attempt of it): it is moved through the queue several times per request.
struct RequestLogEvent {
  enum class Kind : unsigned char {
    Opened,    ///< the request as known at admission
    Attempt,   ///< attempt `attempt_number` of request `handle` started or ended
    Finished,  ///< the request complete (handle 0 when it was never opened)
  };
  Kind kind = Kind::Finished;
  int attempt_number = 0;
  std::uint64_t handle = 0;  ///< the request's log_handle
  std::variant<RequestRecord, AttemptRecord> body;  ///< Opened, Finished: the request; Attempt: the attempt
};

/// Tuning of a RequestLogWriter.
struct RequestLogWriterOptions {
  /// Most records queued for the writer; beyond, a record is dropped and counted, never waited
  /// for (see WriteQueue). At ~1 KiB a record this bounds the backlog to tens of MiB while
  /// covering minutes of a stalled disk or an unreachable server.
  std::size_t queue_capacity = 65'536;
  /// Most records written in one transaction.
  std::size_t batch_size = 512;
  /// How long the writer lets a batch fill before committing it: one commit per few
  /// milliseconds instead of one per request. Rows become visible to queries this much later;
  /// `flush()` does not wait for it.
  std::chrono::milliseconds linger{10};
  /// Further tries of a failed batch (after 10 ms, 100 ms, 1 s, ...) before its records are
  /// counted as dropped.
  int write_retries = 3;
  /// While the backend is disconnected: the first wait before trying to reconnect, doubled after
  /// each failure up to `reconnect_max`.
  std::chrono::milliseconds reconnect_min{100};
  std::chrono::milliseconds reconnect_max{std::chrono::seconds(5)};
  /// How often the writer marks this replica alive, and how long a replica's heartbeat may lapse
  /// before its running rows are closed as `interrupted` by whoever notices.
  std::chrono::milliseconds heartbeat_interval{std::chrono::seconds(2)};
  std::chrono::milliseconds heartbeat_lapse{std::chrono::seconds(15)};
  /// This process's name in the `replica` column and the heartbeats; "": made up (host, pid and
  /// random digits).
  std::string replica;
  /// Where the writer's time comes from (retention schedule and cutoff, log pacing); nullptr:
  /// the real clocks. Must outlive the writer.
  TimeSource const* clock = nullptr;
  /// Requests (with their attempts) that started longer ago than this are deleted; 0 keeps
  /// them forever (`retention.request_log_days`).
  std::chrono::days retention{30};
  /// How often the writer looks for expired rows; the first look is this long after starting.
  std::chrono::milliseconds retention_interval{std::chrono::minutes(5)};
  /// Most requests deleted per transaction. While a look finds more, the writer deletes the next
  /// chunk after each batch of inserts, so neither waits long for the other.
  std::size_t retention_chunk = 2000;
  /// While writes keep failing, at most one log line per this.
  std::chrono::seconds failure_log_interval{60};
};

/// The request log's writer, the same above every backend: request threads only push events
/// onto a queue (never waiting: a full queue drops and counts); one background thread takes up
/// to `batch_size` of them at a time (waiting up to `linger` for a batch to fill), folds them into
/// rows and hands those to the backend, which writes them in one transaction.
///
/// Real-time rows: a request is `opened` at admission and its attempts reported as they start and
/// end; the writer keeps each running request's row and rewrites it whole when it changes, so
/// the database shows it `in_progress` within a linger. A request that starts and ends within
/// one batch is written once, as a plain insert: short requests cost what they always did. The
/// writer marks its replica alive every `heartbeat_interval`; any writer that sees another's
/// heartbeat lapse closes that replica's running rows as `interrupted`.
///
/// A batch that still fails after its retries is counted (its events as dropped) and logged once
/// per burst. While the backend is disconnected the writer keeps its batch and reconnects with a
/// backoff; events queue up to the bound meanwhile and beyond it are dropped and counted. The
/// same thread deletes rows older than the retention, in small chunks between batches. All
/// methods are thread-safe; never call `flush` on an I/O thread.
class RequestLogWriter final : public RequestLogSink {
 public:
  /// `what` names the store in log lines ("request log", "PostgreSQL request log").
  RequestLogWriter(std::string what, std::unique_ptr<RequestLogBackend> backend,
                   RequestLogWriterOptions options);
  /// Writes every queued record, then stops the thread (with the backend disconnected: as flush).
  ~RequestLogWriter() override;
  RequestLogWriter(RequestLogWriter const&) = delete;
  RequestLogWriter& operator=(RequestLogWriter const&) = delete;

  void record(RequestRecord record) override;
  std::uint64_t opened(RequestRecord const& head) override;
  void attemptChanged(std::uint64_t handle, int number, AttemptRecord const& attempt) override;
  /// Also waits for the retention chunk that was due when the last of those records was written.
  /// While the backend is disconnected, what is queued is given up on (counted as dropped) after
  /// at most one try to reconnect per backoff step, so a shutdown never waits for an absent server.
  void flush() override;
  RequestLogStats stats() const override;
  /// The last write failure ("" when none): what an operator needs when drops appear.
  std::string lastWriteError() const;
  /// This process's name in the `replica` column.
  std::string const& replica() const { return replica_; }
  /// Replaces the retention (a configuration reload); 0 keeps requests forever. The writer uses
  /// it from its next look for expired rows on.
  void setRetention(std::chrono::days retention);

 private:
  struct ThreadState;

  void run(std::unique_ptr<ThreadState> state);
  /// The rows `events` change, in order: finished requests never opened first, then every
  /// running request they touched (its whole row, from the writer's copy).
  std::vector<LogRow> fold(ThreadState& s, std::vector<RequestLogEvent>& events);
  /// After a batch: finished requests are forgotten, running ones remember their row's number.
  void settle(ThreadState& s, std::span<LogRow const> rows, bool written);
  /// Writes one batch: retries, or while disconnected a reconnect with backoff; false when the
  /// batch was given up on.
  bool writeBatch(ThreadState& s, std::span<LogRow> batch);
  /// The heartbeat, when one is due; returns how long the writer may sleep until the next.
  std::chrono::milliseconds keepHeartbeat(ThreadState& s);
  /// Reconnects with backoff until connected (true) or the queue turns urgent with the backend
  /// still unreachable (false).
  bool awaitConnection(ThreadState& s);
  void noteFailure(std::string const& message);
  /// One retention chunk if one is due; returns how long the writer may sleep until the next.
  std::chrono::milliseconds keepRetention(ThreadState& s);

  std::string what_;
  std::unique_ptr<RequestLogBackend> backend_;
  RequestLogWriterOptions options_;
  RealTimeSource real_clock_;
  TimeSource const& clock_;  ///< options_.clock or real_clock_

  std::string replica_;
  WriteQueue<RequestLogEvent> queue_;
  std::atomic<std::uint64_t> next_handle_{1};
  std::atomic<std::uint64_t> written_{0};
  std::atomic<std::uint64_t> failed_{0};  ///< events of failed batches
  std::atomic<std::uint64_t> interrupted_{0};  ///< running rows this writer closed
  std::atomic<bool> connected_{true};  ///< the backend's state after the writer's last call
  std::atomic<std::uint64_t> failed_batches_{0};
  std::atomic<std::uint64_t> expired_{0};
  std::atomic<std::chrono::days::rep> retention_days_;
  mutable std::mutex error_mutex_;
  std::string last_error_;
  std::thread thread_;
};

}  // namespace llmux::store
