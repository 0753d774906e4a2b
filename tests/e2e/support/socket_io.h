#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/result.h"

// Blocking-with-deadline socket primitives over plain POSIX calls. The end-to-end harness does not
// use Asio so that it stays independent from the networking code it tests.
namespace llmux::e2e {

/// A file descriptor closed on destruction.
class UniqueFd {
 public:
  UniqueFd() = default;
  explicit UniqueFd(int fd) : fd_(fd) {}
  UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
  UniqueFd& operator=(UniqueFd&& other) noexcept;
  UniqueFd(UniqueFd const&) = delete;
  UniqueFd& operator=(UniqueFd const&) = delete;
  ~UniqueFd() { reset(); }

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release();
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

/// How to end a connection on purpose.
enum class CloseMode {
  Graceful,  ///< close(): the peer reads EOF after any data still in flight
  Reset,     ///< SO_LINGER 0 then close(): the peer sees a TCP reset (ECONNRESET)
};

/// A non-blocking TCP connection to 127.0.0.1:`port` with TCP_NODELAY set.
Result<UniqueFd> connectLoopback(std::uint16_t port, Millis timeout);

/// A non-blocking socket listening on 127.0.0.1 (port 0 picks a free one).
Result<UniqueFd> listenLoopback(std::uint16_t port = 0);

/// The local port a socket is bound to.
std::uint16_t localPort(int fd);

/// Waits for one connection on a listening socket; Timeout error when none comes by `deadline`.
Result<UniqueFd> acceptOne(int listen_fd, MonoTime deadline);

/// Writes all of `bytes`, waiting for the socket to drain as needed.
Result<void> sendAll(int fd, std::string_view bytes, MonoTime deadline);

/// Waits until readable, then appends what one recv() returns to `out`. Returns the number of
/// bytes read: 0 means the peer closed (EOF). A reset comes back as a Cancelled error.
Result<std::size_t> receiveSome(int fd, std::string& out, MonoTime deadline);

/// Closes `fd` the way `mode` says.
void closeSocket(UniqueFd& fd, CloseMode mode);

/// A port on 127.0.0.1 that was free a moment ago (nothing listens on it). For "nothing answers
/// there" tests; servers under test bind port 0 instead, which is race-free.
std::uint16_t freePort();

/// Milliseconds left until `deadline` (0 when passed), rounded up, for poll().
int millisUntil(MonoTime deadline);

/// Time left until `deadline` (0 when passed), rounded up to whole milliseconds, to pass a shared
/// deadline on to calls that take a timeout.
Millis timeLeft(MonoTime deadline);

}  // namespace llmux::e2e
