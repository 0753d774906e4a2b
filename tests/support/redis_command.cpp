#include "support/redis_command.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <optional>

namespace llmux::test_support {
namespace {

/// A connected socket, closed on destruction.
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

std::string encode(std::vector<std::string> const& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (auto const& arg : args) out += "$" + std::to_string(arg.size()) + "\r\n" + arg + "\r\n";
  return out;
}

/// Reads what the socket has into `buffer` once it is readable; an error at the deadline or EOF.
Result<void> readMore(int fd, std::string& buffer, MonoTime deadline) {
  auto left = std::chrono::duration_cast<Millis>(deadline - MonoClock::now());
  if (left.count() <= 0) return makeError(ErrorKind::Timeout, "redis did not answer in time");
  pollfd p{fd, POLLIN, 0};
  int ready = ::poll(&p, 1, static_cast<int>(left.count()));
  if (ready == 0) return makeError(ErrorKind::Timeout, "redis did not answer in time");
  if (ready < 0) return makeError(ErrorKind::Connect, std::string("poll: ") + std::strerror(errno));
  char chunk[4096];
  ssize_t n = ::read(fd, chunk, sizeof chunk);
  if (n <= 0) return makeError(ErrorKind::Connect, "redis closed the connection");
  buffer.append(chunk, static_cast<std::size_t>(n));
  return {};
}

/// Parses one reply starting at `at`; nullopt when the buffer does not hold all of it yet, an
/// error when it is not RESP2. Advances `at` past it.
Result<std::optional<RedisValue>> parse(std::string const& buffer, std::size_t& at) {
  using Parsed = std::optional<RedisValue>;
  auto line_end = buffer.find("\r\n", at);
  if (line_end == std::string::npos) return Parsed();
  char type = buffer[at];
  std::string line = buffer.substr(at + 1, line_end - at - 1);
  std::size_t next = line_end + 2;
  RedisValue value;
  auto number = [&](long long& out) {
    auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), out);
    return ec == std::errc() && end == line.data() + line.size();
  };
  switch (type) {
    case '+':
    case '-':
      value.kind = type == '+' ? RedisValue::Kind::Simple : RedisValue::Kind::Error;
      value.text = line;
      break;
    case ':':
      value.kind = RedisValue::Kind::Integer;
      if (!number(value.integer))
        return makeError(ErrorKind::UpstreamProtocol, "bad integer " + line);
      break;
    case '$': {
      long long size = 0;
      if (!number(size)) return makeError(ErrorKind::UpstreamProtocol, "bad bulk length " + line);
      if (size >= 0) {
        auto length = static_cast<std::size_t>(size);
        if (buffer.size() < next + length + 2) return Parsed();
        value.kind = RedisValue::Kind::Bulk;
        value.text = buffer.substr(next, length);
        next += length + 2;
      }
      break;
    }
    case '*': {
      long long count = 0;
      if (!number(count)) return makeError(ErrorKind::UpstreamProtocol, "bad array length " + line);
      if (count >= 0) {
        value.kind = RedisValue::Kind::Array;
        for (long long i = 0; i < count; ++i) {
          auto element = parse(buffer, next);
          if (!element) return element.takeError();
          if (!element->has_value()) return Parsed();
          value.elements.push_back(std::move(**element));
        }
      }
      break;
    }
    default:
      return makeError(ErrorKind::UpstreamProtocol, "not a RESP2 reply: " + line);
  }
  at = next;
  return Parsed(std::move(value));
}

}  // namespace

Result<RedisValue> redisCommand(std::uint16_t port, std::vector<std::string> const& args,
                                Millis timeout) {
  MonoTime deadline = MonoClock::now() + timeout;
  Socket socket(::socket(AF_INET, SOCK_STREAM, 0));
  if (socket.fd() < 0)
    return makeError(ErrorKind::Connect, std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  // A loopback connect completes or is refused at once; the reply is what may take long.
  if (::connect(socket.fd(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    return makeError(ErrorKind::Connect, "cannot connect to redis on port " + std::to_string(port) +
                                             ": " + std::strerror(errno));
  }
  std::string request = encode(args);
  for (std::size_t sent = 0; sent < request.size();) {
    ssize_t n = ::send(socket.fd(), request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return makeError(ErrorKind::Connect, std::string("send: ") + std::strerror(errno));
    sent += static_cast<std::size_t>(n);
  }
  std::string buffer;
  for (;;) {
    std::size_t at = 0;
    if (!buffer.empty()) {
      auto reply = parse(buffer, at);
      if (!reply) return reply.takeError();
      if (reply->has_value()) return std::move(**reply);
    }
    auto more = readMore(socket.fd(), buffer, deadline);
    if (!more) return more.error();
  }
}

}  // namespace llmux::test_support
