#pragma once

#include <memory>
#include <vector>

#include "core/clock.h"
#include "http/cancellation.h"
#include "net/asio_types.h"

namespace llmux::http {

/// Notices a client that disconnects while its request is handled: the socket becomes readable
/// and a peek reads 0 bytes. The request's Cancellation then fires (reason ClientGone), which
/// closes its upstream connection at once. State is shared with the pending wait, so a late
/// completion never touches a finished request.
class ClientWatch : public std::enable_shared_from_this<ClientWatch> {
 public:
  ClientWatch(net::Socket& socket, Cancellation& cancellation, MonoTime started)
      : socket_(socket), cancellation_(cancellation), started_(started) {}

  /// Starts watching (a system call: it registers the socket's readability).
  void arm();
  /// The request is over: stop watching.
  void stop();

  bool armed() const { return armed_; }
  bool active() const { return active_; }
  MonoTime started() const { return started_; }

 private:
  void onReadable(net::ErrorCode ec);

  net::Socket& socket_;
  Cancellation& cancellation_;
  MonoTime started_;
  bool armed_ = false;
  bool active_ = true;
};

/// Arms the watches of requests that have been running for `delay`: most requests end long
/// before a client could notice anything, and arming costs a system call per request. A client
/// that leaves is still noticed within about twice `delay`. One per worker thread; its timer only
/// runs while requests are in flight.
class ClientWatchSweeper {
 public:
  ClientWatchSweeper(net::asio::io_context& io, Millis delay);
  ~ClientWatchSweeper();

  void add(std::shared_ptr<ClientWatch> watch);

 private:
  void schedule();
  void sweep();

  net::Timer timer_;
  Millis delay_;
  bool ticking_ = false;
  std::vector<std::shared_ptr<ClientWatch>> watches_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace llmux::http
