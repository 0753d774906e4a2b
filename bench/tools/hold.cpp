#include "hold.h"

#include <fcntl.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <map>
#include <vector>

#include "http_wire.h"

namespace llmux::bench {
namespace {

using Clock = std::chrono::steady_clock;

enum class ConnState { Idle, Connecting, Writing, Head, Open, Closed };

struct Conn {
  int fd = -1;
  ConnState state = ConnState::Idle;
  std::size_t written = 0;
  ResponseReader reader;
};

constexpr std::uint32_t kStdinTag = 0xffffffffu;

class Holder {
 public:
  explicit Holder(HoldOptions const& options)
      : options_(options), conns_(static_cast<std::size_t>(options.connections)) {}

  int run() {
    epoll_ = ::epoll_create1(EPOLL_CLOEXEC);
    if (epoll_ < 0) {
      std::perror("epoll_create1");
      return 1;
    }
    auto start = Clock::now();
    auto deadline = start + std::chrono::milliseconds(options_.ready_timeout_ms);
    while (open_ + failed_ < options_.connections && Clock::now() < deadline) {
      startMore();
      poll(50);
    }
    double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    std::printf("ready %d %d %.0f\n", open_, failed_, ms);
    std::fflush(stdout);
    reportErrors();

    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u32 = kStdinTag;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, STDIN_FILENO, &ev);
    while (!stdin_done_) poll(1000);
    int still_open = 0;
    for (auto& c : conns_) {
      if (c.state == ConnState::Open) ++still_open;
      if (c.fd >= 0) ::close(c.fd);
    }
    std::printf("closed %d\n", still_open);
    std::fflush(stdout);
    return open_ > 0 ? 0 : 1;
  }

 private:
  void startMore() {
    while (next_ < options_.connections && in_progress_ < options_.connect_window) {
      Conn& c = conns_[static_cast<std::size_t>(next_)];
      std::uint32_t index = static_cast<std::uint32_t>(next_++);
      c.fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
      if (c.fd < 0) {
        fail(c, std::string("socket: ") + std::strerror(errno), false);
        continue;
      }
      int one = 1;
      ::setsockopt(c.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
      int rc = ::connect(c.fd, reinterpret_cast<sockaddr const*>(&options_.address),
                         sizeof options_.address);
      if (rc != 0 && errno != EINPROGRESS) {
        fail(c, std::string("connect: ") + std::strerror(errno), false);
        continue;
      }
      c.state = ConnState::Connecting;
      ++in_progress_;
      epoll_event ev{};
      ev.events = EPOLLOUT | EPOLLIN;
      ev.data.u32 = index;
      ::epoll_ctl(epoll_, EPOLL_CTL_ADD, c.fd, &ev);
    }
  }

  void poll(int timeout_ms) {
    epoll_event events[256];
    int n = ::epoll_wait(epoll_, events, 256, timeout_ms);
    for (int i = 0; i < n; ++i) {
      if (events[i].data.u32 == kStdinTag) {
        char buf[256];
        ssize_t got = ::read(STDIN_FILENO, buf, sizeof buf);
        if (got <= 0 || std::memchr(buf, '\n', static_cast<std::size_t>(got)) != nullptr)
          stdin_done_ = true;
        continue;
      }
      handle(conns_[events[i].data.u32], events[i].events);
    }
  }

  void handle(Conn& c, std::uint32_t events) {
    if (c.state == ConnState::Connecting) {
      int err = 0;
      socklen_t len = sizeof err;
      ::getsockopt(c.fd, SOL_SOCKET, SO_ERROR, &err, &len);
      if (err != 0) {
        fail(c, std::string("connect: ") + std::strerror(err), true);
        return;
      }
      if (!(events & EPOLLOUT)) return;
      c.state = ConnState::Writing;
    }
    if (c.state == ConnState::Writing) {
      writeSome(c);
      return;
    }
    if (c.state == ConnState::Head || c.state == ConnState::Open) readSome(c);
  }

  void writeSome(Conn& c) {
    std::string_view rest = std::string_view(options_.request).substr(c.written);
    ssize_t n = ::send(c.fd, rest.data(), rest.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno != EAGAIN && errno != EINTR)
        fail(c, std::string("write: ") + std::strerror(errno), true);
      return;
    }
    c.written += static_cast<std::size_t>(n);
    if (c.written < options_.request.size()) return;
    c.state = ConnState::Head;
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u32 = static_cast<std::uint32_t>(&c - conns_.data());
    ::epoll_ctl(epoll_, EPOLL_CTL_MOD, c.fd, &ev);
  }

  void readSome(Conn& c) {
    char buf[16384];
    ssize_t n = ::recv(c.fd, buf, sizeof buf, 0);
    if (n < 0) {
      if (errno != EAGAIN && errno != EINTR)
        fail(c, std::string("read: ") + std::strerror(errno), c.state == ConnState::Head);
      return;
    }
    if (n == 0) {
      fail(c, c.state == ConnState::Head ? "closed before the head" : "closed while open",
           c.state == ConnState::Head);
      return;
    }
    c.reader.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    // A stream counts as open once its first body byte has arrived: some proxies hold the response
    // head back until the upstream's first chunk.
    bool const answered = options_.idle ? c.reader.state() == ReadState::Done : c.reader.sawBodyByte();
    if (c.state == ConnState::Head &&
        (answered || c.reader.state() == ReadState::Done ||
         c.reader.state() == ReadState::Malformed)) {
      --in_progress_;
      if (c.reader.state() == ReadState::Malformed || c.reader.status() != 200) {
        ++errors_["status " + std::to_string(c.reader.status())];
        ++failed_;
        closeConn(c);
        return;
      }
      c.state = ConnState::Open;
      ++open_;
    }
    if (c.state == ConnState::Open && c.reader.state() == ReadState::Done && !options_.idle) {
      // The stream ended: it no longer counts as open.
      ++errors_["stream ended early"];
      --open_;
      ++failed_;
      closeConn(c);
    }
  }

  void fail(Conn& c, std::string const& why, bool was_in_progress) {
    if (was_in_progress) --in_progress_;
    if (c.state == ConnState::Open) --open_;
    ++failed_;
    ++errors_[why];
    closeConn(c);
  }

  void closeConn(Conn& c) {
    if (c.fd >= 0) ::close(c.fd);
    c.fd = -1;
    c.state = ConnState::Closed;
  }

  void reportErrors() {
    for (auto const& [why, count] : errors_)
      std::fprintf(stderr, "hold: %d x %s\n", count, why.c_str());
  }

  HoldOptions const& options_;
  std::vector<Conn> conns_;
  int epoll_ = -1;
  int next_ = 0;
  int in_progress_ = 0;
  int open_ = 0;
  int failed_ = 0;
  bool stdin_done_ = false;
  std::map<std::string, int> errors_;
};

}  // namespace

int runHold(HoldOptions const& options) {
  Holder holder(options);
  return holder.run();
}

}  // namespace llmux::bench
