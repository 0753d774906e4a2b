#include "payloads/clickhouse_http.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include "core/digest.h"
#include "core/strings.h"
#include "protocol/percent_encoding.h"

namespace llmux::payloads {
namespace {

// An answer larger than this is not one the writer or the admin API reads.
constexpr std::size_t kMaxAnswerBytes = 64u << 20;

class Socket {
 public:
  explicit Socket(int fd) : fd_(fd) {}
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  Socket(Socket const&) = delete;
  Socket& operator=(Socket const&) = delete;
  int fd() const { return fd_; }

 private:
  int fd_;
};

int millisLeft(MonoTime deadline) {
  auto left = std::chrono::duration_cast<Millis>(deadline - MonoClock::now()).count();
  return left > 0 ? static_cast<int>(left) : 0;
}

/// Waits for `events` on `fd` until `deadline`; false on timeout.
bool await(int fd, short events, MonoTime deadline) {
  for (;;) {
    pollfd p{fd, events, 0};
    int ready = ::poll(&p, 1, millisLeft(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return false;
  }
}

Error failure(std::string what) { return makeError(ErrorKind::Unavailable, "ClickHouse: " + what); }

Result<int> connectTo(ClickHouseEndpoint const& endpoint, MonoTime deadline) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  std::string const port = std::to_string(endpoint.port);
  if (int rc = ::getaddrinfo(endpoint.host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return failure("cannot resolve " + endpoint.host + ": " + ::gai_strerror(rc));
  }
  std::string why = "no address";
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
        (errno == EINPROGRESS && await(fd, POLLOUT, deadline))) {
      int error = 0;
      socklen_t length = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      if (error == 0) {
        ::freeaddrinfo(found);
        return fd;
      }
      why = std::strerror(error);
    } else {
      why = errno == EINPROGRESS ? "connect timed out" : std::strerror(errno);
    }
    ::close(fd);
  }
  ::freeaddrinfo(found);
  return failure("cannot connect to " + endpoint.host + ":" + port + ": " + why);
}

Result<std::string> decodeChunked(std::string_view body) {
  std::string out;
  std::size_t i = 0;
  for (;;) {
    std::size_t line_end = body.find("\r\n", i);
    if (line_end == std::string_view::npos) return failure("a chunked answer cut short");
    std::size_t size = 0;
    auto [ptr, ec] = std::from_chars(body.data() + i, body.data() + line_end, size, 16);
    if (ec != std::errc()) return failure("a malformed chunk size");
    if (size == 0) return out;
    i = line_end + 2;
    if (i + size + 2 > body.size()) return failure("a chunked answer cut short");
    out.append(body.substr(i, size));
    i += size + 2;
  }
}

}  // namespace

Result<HttpAnswer> parseHttpAnswer(std::string_view raw) {
  std::size_t head_end = raw.find("\r\n\r\n");
  if (head_end == std::string_view::npos) return failure("the answer ended inside its head");
  std::string_view head = raw.substr(0, head_end);
  if (!head.starts_with("HTTP/1.") || head.size() < 12) return failure("not an HTTP answer");
  HttpAnswer answer;
  auto [ptr, ec] = std::from_chars(head.data() + 9, head.data() + 12, answer.status);
  if (ec != std::errc()) return failure("not an HTTP status line");
  std::string_view body = raw.substr(head_end + 4);
  std::string const lower_head = toLower(head);
  if (lower_head.find("\r\ntransfer-encoding: chunked") != std::string::npos) {
    auto decoded = decodeChunked(body);
    if (!decoded) return decoded.error();
    answer.body = std::move(*decoded);
  } else {
    answer.body = std::string(body);
  }
  return answer;
}

Result<std::string> ClickHouseHttp::run(std::string_view query, std::string_view body, Millis timeout) {
  MonoTime const deadline = MonoClock::now() + timeout;
  auto fd = connectTo(endpoint_, deadline);
  if (!fd) return fd.error();
  Socket socket(*fd);
  std::string request = "POST /?query=" + protocol::percentEncodeSegment(query) + " HTTP/1.1\r\nHost: " + endpoint_.host +
                        ":" + std::to_string(endpoint_.port) + "\r\nAuthorization: Basic " +
                        base64(endpoint_.user + ":" + endpoint_.password) +
                        "\r\nContent-Length: " + std::to_string(body.size()) +
                        "\r\nConnection: close\r\n\r\n";
  std::string_view parts[2] = {request, body};
  for (std::string_view part : parts) {
    while (!part.empty()) {
      ssize_t n = ::send(socket.fd(), part.data(), part.size(), MSG_NOSIGNAL);
      if (n > 0) {
        part.remove_prefix(static_cast<std::size_t>(n));
      } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
        if (!await(socket.fd(), POLLOUT, deadline)) return failure("sending timed out");
      } else {
        return failure(std::string("sending failed: ") + std::strerror(errno));
      }
    }
  }
  std::string raw;
  char buffer[16384];
  for (;;) {
    ssize_t n = ::recv(socket.fd(), buffer, sizeof buffer, 0);
    if (n > 0) {
      raw.append(buffer, static_cast<std::size_t>(n));
      if (raw.size() > kMaxAnswerBytes) return failure("the answer is too large");
    } else if (n == 0) {
      break;
    } else if (errno == EAGAIN || errno == EINTR) {
      if (!await(socket.fd(), POLLIN, deadline)) return failure("no answer in time");
    } else {
      return failure(std::string("reading failed: ") + std::strerror(errno));
    }
  }
  auto answer = parseHttpAnswer(raw);
  if (!answer) return answer.error();
  if (answer->status != 200) {
    // ClickHouse explains in the body ("Code: 60, e.displayText() = DB::Exception: ..."); one line.
    std::string_view why = answer->body;
    why = why.substr(0, std::min(why.find('\n'), std::size_t{300}));
    return failure("HTTP " + std::to_string(answer->status) + ": " + std::string(why));
  }
  return std::move(answer->body);
}

}  // namespace llmux::payloads
