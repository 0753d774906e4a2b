#include "e2e/support/recording_upstream.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <memory>
#include <optional>
#include <stdexcept>

#include "core/strings.h"

namespace llmux::e2e {
namespace {

constexpr Millis kStopCheck{20};  ///< how often a blocked read looks at the stop flag

/// How a parse attempt over the buffered bytes ended.
enum class Parsed { NeedMore, Request, Garbage };

std::optional<std::size_t> hexValue(std::string_view text) {
  if (text.empty() || text.size() > 8) return std::nullopt;
  std::size_t value = 0;
  for (char c : text) {
    int digit = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                                         : -1;
    if (digit < 0) return std::nullopt;
    value = value * 16 + static_cast<std::size_t>(digit);
  }
  return value;
}

/// Parses one request at the front of `buffer` strictly: every line ends in CRLF, no bare CR or
/// LF anywhere in the head, header names are tokens. `used` is what it consumed.
Parsed parseRequest(std::string_view buffer, RecordedRequest& out, std::size_t& used) {
  auto head_end = buffer.find("\r\n\r\n");
  if (head_end == std::string_view::npos) {
    return buffer.size() > (1u << 20) ? Parsed::Garbage : Parsed::NeedMore;
  }
  std::string_view head = buffer.substr(0, head_end + 2);
  std::vector<std::string_view> lines;
  while (!head.empty()) {
    auto crlf = head.find("\r\n");
    std::string_view line = head.substr(0, crlf);
    if (line.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
      return Parsed::Garbage;
    }
    lines.push_back(line);
    head.remove_prefix(crlf + 2);
  }
  if (lines.empty() || !lines[0].ends_with(" HTTP/1.1")) return Parsed::Garbage;
  out.request_line = std::string(lines[0]);
  std::optional<std::size_t> length;
  bool chunked = false;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    auto colon = lines[i].find(':');
    if (colon == std::string_view::npos || colon == 0) return Parsed::Garbage;
    std::string_view name = lines[i].substr(0, colon);
    if (name.find_first_of(" \t") != std::string_view::npos) return Parsed::Garbage;
    std::string_view value = trimSpaces(lines[i].substr(colon + 1));
    if (equalsIgnoreCase(name, "content-length")) {
      auto n = parseNonNegative(value);
      if (!n) return Parsed::Garbage;
      length = static_cast<std::size_t>(*n);
    }
    if (equalsIgnoreCase(name, "transfer-encoding") && equalsIgnoreCase(value, "chunked")) {
      chunked = true;
    }
    out.header_lines.emplace_back(lines[i]);
  }
  std::size_t at = head_end + 4;
  if (chunked) {
    for (;;) {
      auto line_end = buffer.find("\r\n", at);
      if (line_end == std::string_view::npos) return Parsed::NeedMore;
      auto size = hexValue(buffer.substr(at, line_end - at));
      if (!size) return Parsed::Garbage;
      at = line_end + 2;
      if (buffer.size() < at + *size + 2) return Parsed::NeedMore;
      out.body.append(buffer.substr(at, *size));
      at += *size + 2;
      if (*size == 0) break;
    }
  } else if (length) {
    if (buffer.size() < at + *length) return Parsed::NeedMore;
    out.body = std::string(buffer.substr(at, *length));
    at += *length;
  }
  used = at;
  return Parsed::Request;
}

}  // namespace

/// The IP address at the other end of connected socket `fd` ("" when it cannot be told).
static std::string peerAddressOf(int fd) {
  sockaddr_storage address{};
  socklen_t size = sizeof(address);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &size) != 0) return "";
  char text[INET6_ADDRSTRLEN] = {};
  void const* raw = address.ss_family == AF_INET6
                        ? static_cast<void const*>(&reinterpret_cast<sockaddr_in6*>(&address)->sin6_addr)
                        : static_cast<void const*>(&reinterpret_cast<sockaddr_in*>(&address)->sin_addr);
  return ::inet_ntop(address.ss_family, raw, text, sizeof(text)) ? text : "";
}

std::string RecordedRequest::header(std::string_view name) const {
  for (auto const& line : header_lines) {
    auto colon = line.find(':');
    if (equalsIgnoreCase(std::string_view(line).substr(0, colon), name)) {
      return std::string(trimSpaces(std::string_view(line).substr(colon + 1)));
    }
  }
  return {};
}

RecordingUpstream::RecordingUpstream(Responder respond) : respond_(std::move(respond)) {
  auto listener = listenLoopback(0);
  if (!listener) throw std::runtime_error("recording upstream: " + listener.error().message);
  listener_ = std::move(*listener);
  port_ = localPort(listener_.get());
  acceptor_ = std::thread([this] { acceptLoop(); });
}

RecordingUpstream::~RecordingUpstream() {
  stop_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> threads;
  {
    std::lock_guard lock(mutex_);
    threads.swap(connection_threads_);
  }
  for (auto& t : threads) t.join();
}

std::string RecordingUpstream::baseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }

void RecordingUpstream::acceptLoop() {
  while (!stop_) {
    auto accepted = acceptOne(listener_.get(), MonoClock::now() + kStopCheck);
    if (!accepted) continue;
    std::lock_guard lock(mutex_);
    std::size_t index = received_.size();
    received_.emplace_back();
    connection_threads_.emplace_back(
        [this, fd = std::make_shared<UniqueFd>(std::move(*accepted)), index]() mutable {
          serve(std::move(*fd), index);
        });
  }
}

void RecordingUpstream::serve(UniqueFd fd, std::size_t index) {
  std::string const peer = peerAddressOf(fd.get());
  std::string buffer;
  while (!stop_) {
    std::string chunk;
    auto n = receiveSome(fd.get(), chunk, MonoClock::now() + kStopCheck);
    if (!n) {
      if (n.error().kind == ErrorKind::Timeout) continue;
      return;  // reset
    }
    if (*n == 0) return;  // closed
    {
      std::lock_guard lock(mutex_);
      received_[index] += chunk;
    }
    buffer += chunk;
    for (;;) {
      RecordedRequest request;
      request.connection = index;
      request.peer_address = peer;
      std::size_t used = 0;
      Parsed parsed = parseRequest(buffer, request, used);
      if (parsed == Parsed::NeedMore) break;
      if (parsed == Parsed::Garbage) {
        std::lock_guard lock(mutex_);
        garbage_ += buffer;
        return;
      }
      buffer.erase(0, used);
      std::string answer = respond_(request);
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(std::move(request));
      }
      if (!sendAll(fd.get(), answer, MonoClock::now() + Millis(5'000))) return;
    }
  }
}

std::vector<RecordedRequest> RecordingUpstream::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::string RecordingUpstream::receivedBytes() const {
  std::lock_guard lock(mutex_);
  std::string all;
  for (auto const& bytes : received_) all += bytes;
  return all;
}

std::string RecordingUpstream::garbage() const {
  std::lock_guard lock(mutex_);
  return garbage_;
}

std::size_t RecordingUpstream::connections() const {
  std::lock_guard lock(mutex_);
  return received_.size();
}

std::string RecordingUpstream::jsonResponse(std::string_view body, int status,
                                            std::string_view extra_headers) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n" +
         std::string(extra_headers) + "Content-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + std::string(body);
}

}  // namespace llmux::e2e
