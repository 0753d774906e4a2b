#pragma once

#include <functional>
#include <memory>

#include "core/clock.h"
#include "net/asio_types.h"

namespace llmux::net {

/// A connection's watchdog: when the deadline passes, `on_expire` runs (it closes the socket, so
/// the pending operation fails). Moving the deadline is only a store: the underlying timer is
/// re-armed when it fires early (the deadline moved later meanwhile) or when a deadline earlier
/// than the armed one is set. Per-operation timers (Beast's tcp_stream) re-arm the kernel timer
/// around every read and write; on a busy proxy that is several system calls per request.
///
/// Thread safety: one worker thread. Cancellation: `stop()` disarms it for good.
class Deadline {
 public:
  Deadline(asio::io_context& io, std::function<void()> on_expire);
  ~Deadline();
  Deadline(Deadline const&) = delete;
  Deadline& operator=(Deadline const&) = delete;

  /// Expire at `when` (replacing any earlier setting).
  void expireAt(MonoTime when);
  void expireAfter(Millis delay) { expireAt(MonoClock::now() + delay); }
  /// No deadline until the next expireAt (`expired()` keeps its answer).
  void clear();
  /// Whether it expired (and `on_expire` ran) since the last expireAt.
  bool expired() const;
  /// Disarms it for good (the connection is closing).
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace llmux::net
