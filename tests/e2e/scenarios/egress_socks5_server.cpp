#include "egress_socks5_server.h"

#include <arpa/inet.h>
#include <poll.h>
#include <sys/socket.h>

#include <memory>
#include <stdexcept>

namespace llmux::e2e {
namespace {

constexpr Millis kStopCheck{20};
constexpr Millis kStepTimeout{5'000};

/// The client's bytes, taken a field at a time (a client may send several fields at once).
class FieldReader {
 public:
  explicit FieldReader(int fd) : fd_(fd) {}
  /// Exactly `n` more bytes into `out` (false on EOF, error or timeout).
  bool take(std::size_t n, std::string& out) {
    MonoTime const deadline = MonoClock::now() + kStepTimeout;
    while (buffer_.size() < n) {
      auto read = receiveSome(fd_, buffer_, deadline);
      if (!read || *read == 0) return false;
    }
    out = buffer_.substr(0, n);
    buffer_.erase(0, n);
    return true;
  }
  /// What arrived beyond the fields taken (the start of the tunnelled bytes).
  std::string const& rest() const { return buffer_; }

 private:
  int fd_;
  std::string buffer_;
};

/// Copies bytes both ways until either side closes or the server stops.
void relay(int a, int b, std::atomic<bool> const& stop) {
  pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  char buffer[16 * 1024];
  while (!stop) {
    if (::poll(fds, 2, static_cast<int>(kStopCheck.count())) < 0) return;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].revents == 0) continue;
      ssize_t n = ::recv(fds[i].fd, buffer, sizeof(buffer), 0);
      if (n <= 0) return;
      if (!sendAll(fds[1 - i].fd, std::string_view(buffer, static_cast<std::size_t>(n)),
                   MonoClock::now() + kStepTimeout)) {
        return;
      }
    }
  }
}

}  // namespace

Socks5Server::Socks5Server(std::string username, std::string password)
    : username_(std::move(username)), password_(std::move(password)) {
  auto listener = listenLoopback(0);
  if (!listener) throw std::runtime_error("socks5 server: " + listener.error().message);
  listener_ = std::move(*listener);
  port_ = localPort(listener_.get());
  acceptor_ = std::thread([this] { acceptLoop(); });
}

Socks5Server::~Socks5Server() {
  stop_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(threads_);
  }
  for (auto& thread : threads) thread.join();
}

std::vector<std::string> Socks5Server::targets() const {
  std::lock_guard lock(mutex_);
  return targets_;
}

void Socks5Server::acceptLoop() {
  while (!stop_) {
    auto accepted = acceptOne(listener_.get(), MonoClock::now() + kStopCheck);
    if (!accepted) continue;
    std::lock_guard lock(mutex_);
    threads_.emplace_back([this, fd = std::make_shared<UniqueFd>(std::move(*accepted))] {
      serve(std::move(*fd));
    });
  }
}

void Socks5Server::serve(UniqueFd client) {
  int const fd = client.get();
  FieldReader in(fd);
  std::string bytes;
  // Greeting: version 5 and the methods offered; this server takes user name and password only.
  if (!in.take(2, bytes) || bytes[0] != 5) return;
  std::string methods;
  if (!in.take(static_cast<unsigned char>(bytes[1]), methods)) return;
  if (methods.find('\x02') == std::string::npos) {
    (void)sendAll(fd, std::string("\x05\xff", 2), MonoClock::now() + kStepTimeout);
    return;
  }
  if (!sendAll(fd, std::string("\x05\x02", 2), MonoClock::now() + kStepTimeout)) return;
  std::string user, password;
  if (!in.take(2, bytes) || bytes[0] != 1) return;
  if (!in.take(static_cast<unsigned char>(bytes[1]), user)) return;
  if (!in.take(1, bytes) || !in.take(static_cast<unsigned char>(bytes[0]), password)) {
    return;
  }
  if (user != username_ || password != password_) {
    ++refused_logins_;
    (void)sendAll(fd, std::string("\x01\x01", 2), MonoClock::now() + kStepTimeout);
    return;
  }
  if (!sendAll(fd, std::string("\x01\x00", 2), MonoClock::now() + kStepTimeout)) return;

  // The connect request.
  if (!in.take(4, bytes) || bytes[0] != 5 || bytes[1] != 1) return;
  std::string host;
  std::string kind;
  if (bytes[3] == 1) {
    std::string raw;
    if (!in.take(4, raw)) return;
    char text[INET_ADDRSTRLEN] = {};
    ::inet_ntop(AF_INET, raw.data(), text, sizeof(text));
    host = text;
    kind = "ip";
  } else if (bytes[3] == 3) {
    std::string length;
    if (!in.take(1, length) || !in.take(static_cast<unsigned char>(length[0]), host)) {
      return;
    }
    kind = "name";
  } else {
    (void)sendAll(fd, std::string("\x05\x08\x00\x01\0\0\0\0\0\0", 10), MonoClock::now() + kStepTimeout);
    return;
  }
  std::string port_bytes;
  if (!in.take(2, port_bytes)) return;
  auto const port = static_cast<std::uint16_t>((static_cast<unsigned char>(port_bytes[0]) << 8) |
                                               static_cast<unsigned char>(port_bytes[1]));
  {
    std::lock_guard lock(mutex_);
    targets_.push_back(kind + ":" + host + ":" + std::to_string(port));
  }
  // This test server reaches loopback targets only ("localhost" or 127.0.0.1).
  auto upstream = connectLoopback(port, kStepTimeout);
  if (!upstream) {
    (void)sendAll(fd, std::string("\x05\x05\x00\x01\0\0\0\0\0\0", 10), MonoClock::now() + kStepTimeout);
    return;
  }
  if (!sendAll(fd, std::string("\x05\x00\x00\x01\x7f\0\0\x01\0\0", 10), MonoClock::now() + kStepTimeout)) {
    return;
  }
  if (!in.rest().empty() && !sendAll(upstream->get(), in.rest(), MonoClock::now() + kStepTimeout)) return;
  relay(fd, upstream->get(), stop_);
}

}  // namespace llmux::e2e
