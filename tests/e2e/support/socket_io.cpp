#include "e2e/support/socket_io.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace llmux::e2e {
namespace {

Error systemError(ErrorKind kind, std::string_view what, int err) {
  return makeError(kind, std::string(what) + ": " + std::strerror(err));
}

sockaddr_in loopbackAddress(std::uint16_t port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return addr;
}

/// poll() for `events` until `deadline`; Timeout error when it passes first.
Result<void> waitFor(int fd, short events, MonoTime deadline, std::string_view what) {
  for (;;) {
    pollfd p{fd, events, 0};
    int n = ::poll(&p, 1, millisUntil(deadline));
    if (n > 0) return {};
    if (n == 0 && MonoClock::now() < deadline) continue;  // woke a little early
    if (n == 0) return makeError(ErrorKind::Timeout, "timed out waiting to " + std::string(what));
    if (errno != EINTR) return systemError(ErrorKind::Internal, "poll", errno);
  }
}

}  // namespace

UniqueFd& UniqueFd::operator=(UniqueFd&& other) noexcept {
  if (this != &other) reset(other.release());
  return *this;
}

int UniqueFd::release() {
  int fd = fd_;
  fd_ = -1;
  return fd;
}

void UniqueFd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

int millisUntil(MonoTime deadline) {
  auto left = deadline - MonoClock::now();
  if (left <= MonoClock::duration::zero()) return 0;
  auto ms = std::chrono::ceil<Millis>(left).count();
  return ms > 1'000'000'000 ? 1'000'000'000 : static_cast<int>(ms);
}

Millis timeLeft(MonoTime deadline) {
  return Millis(millisUntil(deadline));
}

Result<UniqueFd> connectLoopback(std::uint16_t port, Millis timeout) {
  auto deadline = MonoClock::now() + timeout;
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return systemError(ErrorKind::Internal, "socket", errno);
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  auto addr = loopbackAddress(port);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    if (errno != EINPROGRESS) return systemError(ErrorKind::Connect, "connect", errno);
    auto writable = waitFor(fd.get(), POLLOUT, deadline, "connect");
    if (!writable) return makeError(ErrorKind::Connect, writable.error().message);
    int err = 0;
    socklen_t len = sizeof err;
    ::getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return systemError(ErrorKind::Connect, "connect", err);
  }
  return fd;
}

Result<UniqueFd> listenLoopback(std::uint16_t port) {
  UniqueFd fd(::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return systemError(ErrorKind::Internal, "socket", errno);
  int one = 1;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  auto addr = loopbackAddress(port);
  if (::bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return systemError(ErrorKind::Internal, "bind", errno);
  }
  if (::listen(fd.get(), 64) != 0) return systemError(ErrorKind::Internal, "listen", errno);
  return fd;
}

std::uint16_t localPort(int fd) {
  sockaddr_in addr{};
  socklen_t len = sizeof addr;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return 0;
  return ntohs(addr.sin_port);
}

Result<UniqueFd> acceptOne(int listen_fd, MonoTime deadline) {
  for (;;) {
    UniqueFd fd(::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC));
    if (fd.valid()) {
      int one = 1;
      ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      return fd;
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
      return systemError(ErrorKind::Internal, "accept", errno);
    }
    auto ready = waitFor(listen_fd, POLLIN, deadline, "accept a connection");
    if (!ready) return ready.error();
  }
}

Result<void> sendAll(int fd, std::string_view bytes, MonoTime deadline) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n > 0) {
      bytes.remove_prefix(static_cast<std::size_t>(n));
      continue;
    }
    if (errno == EINTR) continue;
    if (errno == EPIPE || errno == ECONNRESET) {
      return systemError(ErrorKind::Cancelled, "send", errno);
    }
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return systemError(ErrorKind::Internal, "send", errno);
    auto writable = waitFor(fd, POLLOUT, deadline, "send");
    if (!writable) return writable.error();
  }
  return {};
}

Result<std::size_t> receiveSome(int fd, std::string& out, MonoTime deadline) {
  char buf[16 * 1024];
  for (;;) {
    ssize_t n = ::recv(fd, buf, sizeof buf, 0);
    if (n >= 0) {
      out.append(buf, static_cast<std::size_t>(n));
      return static_cast<std::size_t>(n);
    }
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return systemError(ErrorKind::Cancelled, "recv", errno);
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      return systemError(ErrorKind::Internal, "recv", errno);
    auto readable = waitFor(fd, POLLIN, deadline, "receive");
    if (!readable) return readable.error();
  }
}

void closeSocket(UniqueFd& fd, CloseMode mode) {
  if (!fd.valid()) return;
  if (mode == CloseMode::Reset) {
    linger lg{1, 0};
    ::setsockopt(fd.get(), SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
  }
  fd.reset();
}

std::uint16_t freePort() {
  auto fd = listenLoopback(0);
  return fd ? localPort(fd->get()) : 0;
}

}  // namespace llmux::e2e
