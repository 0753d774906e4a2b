#include "http/client_watch.h"

#include <sys/socket.h>

#include <algorithm>
#include <cerrno>

namespace llmux::http {

void ClientWatch::arm() {
  if (!active_) return;
  armed_ = true;
  socket_.async_wait(net::Socket::wait_read,
                     [self = shared_from_this()](net::ErrorCode ec) { self->onReadable(ec); });
}

void ClientWatch::onReadable(net::ErrorCode ec) {
  if (!active_ || ec == net::asio::error::operation_aborted) return;
  if (!ec) {
    char byte;
    ssize_t n = ::recv(socket_.native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return;  // a pipelined request: the next read will take it
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) {
      arm();
      return;
    }
  }
  active_ = false;
  cancellation_.cancel(CancelReason::ClientGone);
}

void ClientWatch::stop() {
  if (!active_) return;
  active_ = false;
  if (armed_) {
    net::ErrorCode ignored;
    socket_.cancel(ignored);
  }
}

ClientWatchSweeper::ClientWatchSweeper(net::asio::io_context& io, Millis delay)
    : timer_(io), delay_(delay) {}

ClientWatchSweeper::~ClientWatchSweeper() { *alive_ = false; }

void ClientWatchSweeper::add(std::shared_ptr<ClientWatch> watch) {
  watches_.push_back(std::move(watch));
  if (!ticking_) schedule();
}

void ClientWatchSweeper::schedule() {
  ticking_ = true;
  timer_.expires_after(delay_ / 2);
  timer_.async_wait([this, alive = alive_](net::ErrorCode ec) {
    if (!*alive || ec) return;
    sweep();
  });
}

void ClientWatchSweeper::sweep() {
  MonoTime due = MonoClock::now() - delay_;
  std::erase_if(watches_, [](auto const& w) { return !w->active(); });
  for (auto& watch : watches_) {
    if (!watch->armed() && watch->started() <= due) watch->arm();
  }
  ticking_ = false;
  if (!watches_.empty()) schedule();
}

}  // namespace llmux::http
