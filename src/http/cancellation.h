#pragma once

#include <functional>
#include <string_view>
#include <vector>

namespace llmux::http {

/// Why a request in flight is being cancelled.
enum class CancelReason {
  None,
  ClientGone,  ///< the client closed its connection
  Shutdown,    ///< the gateway is draining and the drain timeout passed
  LostRace,    ///< another branch of a raced request answered the client
};

std::string_view cancelReasonName(CancelReason reason);

/// The cancellation point of one request. The server fires it (client gone, shutdown); whoever
/// holds a resource that must be released at once (an upstream connection) registers a callback.
/// Not thread-safe: a request lives on one worker thread.
class Cancellation {
 public:
  using Callback = std::function<void(CancelReason)>;

  /// Registers `callback`; returns an id for `remove`. Fires at once if already cancelled.
  std::size_t add(Callback callback);
  void remove(std::size_t id);

  /// Fires every registered callback once. Later calls do nothing.
  void cancel(CancelReason reason);

  bool cancelled() const { return reason_ != CancelReason::None; }
  CancelReason reason() const { return reason_; }
  void reset();

 private:
  std::vector<std::pair<std::size_t, Callback>> callbacks_;
  std::size_t next_id_ = 1;
  CancelReason reason_ = CancelReason::None;
};

}  // namespace llmux::http
