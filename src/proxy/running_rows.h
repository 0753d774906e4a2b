#pragma once

#include <chrono>
#include <memory>

#include "core/clock.h"

namespace boost::asio {
class io_context;
}
namespace llmux::store {
class RequestLogSink;
}

namespace llmux::proxy {

struct RequestContext;
class RunningRows;

/// A request's place among its worker's requests whose request-log row is not open yet. Unlinks
/// itself when destroyed (a coroutine frame destroyed at shutdown leaves no dangling entry).
class RunningRowLink {
 public:
  RunningRowLink() = default;
  RunningRowLink(RunningRowLink const&) = delete;
  RunningRowLink& operator=(RunningRowLink const&) = delete;
  ~RunningRowLink() { unlink(); }

  /// Leaves the list, if in it.
  void unlink();
  bool linked() const { return next_ != nullptr; }

 private:
  friend class RunningRows;
  RunningRowLink* prev_ = nullptr;
  RunningRowLink* next_ = nullptr;
  RequestContext* ctx_ = nullptr;
  MonoTime admitted_{};
};

/// One worker's running rows of the request log (docs/operations.md, "Request log"). A request's
/// row opens (is written `in_progress`, then kept up to date attempt by attempt) once the request
/// has run for `open_after`; one that ends sooner, as most do on a fast upstream, costs the
/// request log a single event, its finished row, instead of one per change: no copy of its record
/// and its attempts at each step and no row rewritten on the writer's thread within one batch.
/// A row opens at most `open_after` plus one timer tick late, which is within the writer's own
/// batching delay. Used only on its worker's thread.
class RunningRows {
 public:
  /// Opens rows on `sink`; the timer runs on `io` (this worker's loop). `open_after` 0 opens
  /// every row at admission.
  RunningRows(boost::asio::io_context& io, store::RequestLogSink& sink,
              std::chrono::milliseconds open_after);
  ~RunningRows();
  RunningRows(RunningRows const&) = delete;
  RunningRows& operator=(RunningRows const&) = delete;

  /// `ctx` was admitted at `now`: its row opens if it still runs `open_after` later.
  void admitted(RequestContext& ctx, MonoTime now);
  /// Opens the rows of the requests admitted at least `open_after` before `now`, oldest first;
  /// the timer calls it.
  void openDue(MonoTime now);
  /// Requests whose row is not open yet.
  std::size_t waiting() const;

 private:
  struct Timer;  ///< the worker's timer (Asio stays out of this header)

  void open(RequestContext& ctx);
  void arm(MonoTime at);

  store::RequestLogSink& sink_;
  std::chrono::milliseconds const open_after_;
  RunningRowLink head_;  ///< sentinel of a circular list, oldest admission first
  std::unique_ptr<Timer> timer_;
  bool armed_ = false;
};

}  // namespace llmux::proxy
