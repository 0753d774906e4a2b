#include "canned_upstream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "http_wire.h"

namespace llmux::bench {
namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

/// The value of header `name` (lower case) in a request head, or empty.
std::string_view headerValue(std::string_view head, std::string_view name) {
  std::size_t pos = head.find("\r\n");
  while (pos != std::string_view::npos && pos + 2 < head.size()) {
    std::size_t start = pos + 2;
    std::size_t end = head.find("\r\n", start);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(start, end - start);
    std::size_t colon = line.find(':');
    if (colon == name.size()) {
      bool same = true;
      for (std::size_t i = 0; i < colon && same; ++i) same = lower(line[i]) == name[i];
      if (same) {
        std::string_view value = line.substr(colon + 1);
        while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
          value.remove_prefix(1);
        while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
          value.remove_suffix(1);
        return value;
      }
    }
    pos = end;
  }
  return {};
}

constexpr std::size_t kIncomplete = 0;
constexpr std::size_t kMalformed = static_cast<std::size_t>(-1);

/// Length of the first complete request in `buffer`, kIncomplete if it is not all there yet,
/// kMalformed if it cannot be framed. Content-Length bodies, and chunked bodies ended by the
/// last chunk without trailers (a gateway sends none; a JSON body cannot contain the marker).
std::size_t requestLength(std::string_view buffer) {
  std::size_t head_end = buffer.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return buffer.size() > (1u << 20) ? kMalformed : 0;
  std::string_view head = buffer.substr(0, head_end);
  std::size_t body_start = head_end + 4;
  std::string_view encoding = headerValue(head, "transfer-encoding");
  if (encoding.find("chunked") != std::string_view::npos) {
    std::size_t last = buffer.find("0\r\n\r\n", body_start);
    while (last != std::string_view::npos && last != body_start && buffer[last - 1] != '\n')
      last = buffer.find("0\r\n\r\n", last + 1);
    return last == std::string_view::npos ? kIncomplete : last + 5;
  }
  std::string_view length_text = headerValue(head, "content-length");
  std::size_t length = 0;
  if (!length_text.empty()) {
    auto [ptr, ec] =
        std::from_chars(length_text.data(), length_text.data() + length_text.size(), length);
    if (ec != std::errc{} || ptr != length_text.data() + length_text.size()) return kMalformed;
  }
  if (buffer.size() < body_start + length) return kIncomplete;
  return body_start + length;
}

}  // namespace

std::int64_t monotonicNs() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
}

/// One accepted connection and the bytes of the request being read on it.
struct CannedUpstream::Connection {
  int fd = -1;
  std::string buffer;
  std::int64_t first_read_ns = 0;  ///< when the buffered request's first bytes were read
};

CannedUpstream::CannedUpstream(std::string answer) : answer_(std::move(answer)) {}

CannedUpstream::~CannedUpstream() {
  for (auto& c : connections_) ::close(c.fd);
  if (listener_ >= 0) ::close(listener_);
  if (wake_ >= 0) ::close(wake_);
}

bool CannedUpstream::listen(std::uint16_t port, std::string& error) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  wake_ = ::eventfd(0, EFD_CLOEXEC);
  if (listener_ < 0 || wake_ < 0) {
    error = std::string("socket: ") + std::strerror(errno);
    return false;
  }
  int one = 1;
  ::setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(port);
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(listener_, reinterpret_cast<sockaddr const*>(&address), sizeof address) != 0 ||
      ::listen(listener_, 128) != 0) {
    error = "bind 127.0.0.1:" + std::to_string(port) + ": " + std::strerror(errno);
    return false;
  }
  socklen_t size = sizeof address;
  ::getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &size);
  port_ = ntohs(address.sin_port);
  return true;
}

void CannedUpstream::stop() {
  std::uint64_t one = 1;
  [[maybe_unused]] auto n = ::write(wake_, &one, sizeof one);
}

std::size_t CannedUpstream::received() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}

std::optional<ServedRequest> CannedUpstream::waitAnswered(std::size_t index,
                                                          std::chrono::milliseconds timeout) const {
  std::unique_lock lock(mutex_);
  bool done = answered_.wait_for(lock, timeout, [&] {
    return index < requests_.size() &&
           (requests_[index].written_ns != 0 || requests_[index].write_failed);
  });
  if (!done) return std::nullopt;
  return requests_[index];
}

ConnectionTally CannedUpstream::tally() const {
  std::lock_guard lock(mutex_);
  return tally_;
}

void CannedUpstream::serve() {
  std::vector<pollfd> fds;
  while (true) {
    fds.clear();
    fds.push_back({wake_, POLLIN, 0});
    fds.push_back({listener_, POLLIN, 0});
    for (auto const& c : connections_) fds.push_back({c.fd, POLLIN, 0});
    int ready = ::poll(fds.data(), fds.size(), -1);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[0].revents != 0) return;
    // Connections first: the request waiting there is what is timed; a new connection only
    // means a request will come.
    std::vector<Connection> kept;
    kept.reserve(connections_.size());
    for (std::size_t i = 0; i < connections_.size(); ++i) {
      Connection& c = connections_[i];
      if (fds[i + 2].revents != 0 && !readFrom(c)) {
        ::close(c.fd);
        continue;
      }
      kept.push_back(std::move(c));
    }
    connections_ = std::move(kept);
    if (fds[1].revents & POLLIN) acceptOne();
  }
}

void CannedUpstream::acceptOne() {
  int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
  if (fd < 0) return;
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  connections_.push_back(Connection{fd, {}, 0});
  std::lock_guard lock(mutex_);
  ++tally_.accepted;
}

bool CannedUpstream::readFrom(Connection& connection) {
  char chunk[16384];
  ssize_t n = ::recv(connection.fd, chunk, sizeof chunk, 0);
  std::int64_t now = monotonicNs();
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  if (n <= 0) {
    // The gateway drops a connection after a 429 without reading its body: a FIN, or an RST
    // when the body was still unread in its receive buffer. Both are normal here.
    std::lock_guard lock(mutex_);
    ++(n == 0 ? tally_.eofs : tally_.resets);
    if (!connection.buffer.empty()) ++tally_.cut;
    return false;
  }
  if (connection.buffer.empty()) connection.first_read_ns = now;
  connection.buffer.append(chunk, static_cast<std::size_t>(n));
  return answerComplete(connection);
}

bool CannedUpstream::answerComplete(Connection& connection) {
  while (true) {
    std::size_t length = requestLength(connection.buffer);
    if (length == kIncomplete) return true;
    if (length == kMalformed) return false;
    std::size_t index = 0;
    {
      std::lock_guard lock(mutex_);
      index = requests_.size();
      requests_.push_back(ServedRequest{connection.first_read_ns, 0, 0, false});
    }
    std::int64_t write_started = monotonicNs();
    bool ok = writeAll(connection.fd, answer_);
    std::int64_t written = monotonicNs();
    {
      std::lock_guard lock(mutex_);
      if (ok) {
        requests_[index].write_started_ns = write_started;
        requests_[index].written_ns = written;
      } else {
        requests_[index].write_failed = true;
      }
    }
    answered_.notify_all();
    if (!ok) return false;
    connection.buffer.erase(0, length);
    // Bytes of a next request already here (never, without pipelining) arrived with this read.
    if (connection.buffer.empty()) return true;
  }
}

}  // namespace llmux::bench
