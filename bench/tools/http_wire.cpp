#include "http_wire.h"

#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace llmux::bench {
namespace {

char lower(char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
}

bool equalsNoCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

bool containsNoCase(std::string_view haystack, std::string_view needle) {
  if (needle.size() > haystack.size()) return false;
  for (std::size_t i = 0; i + needle.size() <= haystack.size(); ++i) {
    if (equalsNoCase(haystack.substr(i, needle.size()), needle)) return true;
  }
  return false;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

}  // namespace

void ResponseReader::reset() {
  std::string marker = std::move(marker_);
  *this = ResponseReader{};
  marker_ = std::move(marker);
}

void ResponseReader::scanPayload(std::string_view payload) {
  if (marker_.empty() || saw_marker_ || payload.empty()) return;
  // Search the kept tail and the start of the new bytes together, then the new bytes alone.
  std::string joined = tail_;
  joined.append(payload.substr(0, std::min(payload.size(), marker_.size() - 1)));
  if (joined.find(marker_) != std::string::npos || payload.find(marker_) != std::string_view::npos) {
    saw_marker_ = true;
    tail_.clear();
    return;
  }
  std::size_t keep = marker_.size() - 1;
  if (payload.size() >= keep) {
    tail_.assign(payload.substr(payload.size() - keep));
  } else {
    tail_.append(payload);
    if (tail_.size() > keep) tail_.erase(0, tail_.size() - keep);
  }
}

bool ResponseReader::parseHead() {
  std::string_view head = head_;
  std::size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12) return false;
  auto code = status_line.substr(9, 3);
  if (std::from_chars(code.data(), code.data() + 3, status_).ec != std::errc{}) return false;
  bool http10 = status_line.starts_with("HTTP/1.0");
  bool has_length = false;
  std::size_t pos = eol + 2;
  while (pos < head.size()) {
    std::size_t end = head.find("\r\n", pos);
    if (end == std::string_view::npos || end == pos) break;
    std::string_view line = head.substr(pos, end - pos);
    pos = end + 2;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return false;
    std::string_view name = trim(line.substr(0, colon));
    std::string_view value = trim(line.substr(colon + 1));
    if (equalsNoCase(name, "content-length")) {
      if (std::from_chars(value.data(), value.data() + value.size(), remaining_).ec != std::errc{})
        return false;
      has_length = true;
    } else if (equalsNoCase(name, "transfer-encoding")) {
      chunked_ = containsNoCase(value, "chunked");
    } else if (equalsNoCase(name, "connection")) {
      if (containsNoCase(value, "close")) close_after_ = true;
    }
  }
  if (http10) close_after_ = true;
  bool no_body = status_ == 204 || status_ == 304 || (status_ >= 100 && status_ < 200);
  if (no_body) {
    state_ = ReadState::Done;
  } else if (chunked_) {
    state_ = ReadState::Body;
  } else if (has_length) {
    state_ = remaining_ == 0 ? ReadState::Done : ReadState::Body;
  } else {
    until_eof_ = true;
    close_after_ = true;
    state_ = ReadState::Body;
  }
  return true;
}

std::size_t ResponseReader::feed(std::string_view data) {
  std::size_t used = 0;
  if (state_ == ReadState::Head) {
    // The terminator may straddle two reads: search from a little before the old end.
    std::size_t old = head_.size();
    head_.append(data);
    std::size_t from = old >= 3 ? old - 3 : 0;
    std::size_t end = head_.find("\r\n\r\n", from);
    if (end == std::string::npos) {
      if (head_.size() > 1 << 20) state_ = ReadState::Malformed;
      return data.size();
    }
    std::size_t head_len = end + 4;
    used = head_len - old;
    head_.resize(head_len);
    if (!parseHead()) {
      state_ = ReadState::Malformed;
      return data.size();
    }
    data.remove_prefix(used);
  }
  if (state_ == ReadState::Body && !data.empty()) used += feedBody(data);
  return used;
}

std::size_t ResponseReader::feedBody(std::string_view data) {
  saw_body_byte_ = true;
  if (until_eof_) {
    scanPayload(data);
    return data.size();
  }
  if (chunked_) return feedChunked(data);
  std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, data.size()));
  scanPayload(data.substr(0, take));
  remaining_ -= take;
  if (remaining_ == 0) state_ = ReadState::Done;
  return take;
}

std::size_t ResponseReader::feedChunked(std::string_view data) {
  std::size_t used = 0;
  while (used < data.size() && state_ == ReadState::Body) {
    std::string_view rest = data.substr(used);
    if (phase_ == ChunkPhase::Data) {
      std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(remaining_, rest.size()));
      scanPayload(rest.substr(0, take));
      remaining_ -= take;
      used += take;
      if (remaining_ == 0) phase_ = ChunkPhase::DataEnd;
      continue;
    }
    std::size_t nl = rest.find('\n');
    if (nl == std::string_view::npos) {
      line_.append(rest);
      used += rest.size();
      if (line_.size() > 4096) state_ = ReadState::Malformed;
      break;
    }
    line_.append(rest.substr(0, nl));
    used += nl + 1;
    std::string_view line = trim(line_);
    if (phase_ == ChunkPhase::DataEnd) {
      if (!line.empty()) state_ = ReadState::Malformed;
      phase_ = ChunkPhase::Size;
    } else if (phase_ == ChunkPhase::Size) {
      std::size_t semi = line.find(';');
      std::string_view hex = trim(line.substr(0, semi));
      std::uint64_t size = 0;
      auto [ptr, ec] = std::from_chars(hex.data(), hex.data() + hex.size(), size, 16);
      if (ec != std::errc{} || ptr != hex.data() + hex.size() || hex.empty()) {
        state_ = ReadState::Malformed;
      } else if (size == 0) {
        phase_ = ChunkPhase::Trailer;
      } else {
        remaining_ = size;
        phase_ = ChunkPhase::Data;
      }
    } else if (line.empty()) {  // Trailer: an empty line ends the message
      state_ = ReadState::Done;
    }
    line_.clear();
  }
  return used;
}

void ResponseReader::onEof() {
  if (state_ == ReadState::Body && until_eof_) {
    state_ = ReadState::Done;
    return;
  }
  if (state_ != ReadState::Done) cut_ = true;
}

bool parseEndpoint(std::string_view text, sockaddr_in& out) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string host(text.substr(0, colon));
  unsigned port = 0;
  auto port_text = text.substr(colon + 1);
  auto [ptr, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || ptr != port_text.data() + port_text.size() || port == 0 || port > 65535)
    return false;
  out = sockaddr_in{};
  out.sin_family = AF_INET;
  out.sin_port = htons(static_cast<std::uint16_t>(port));
  return inet_pton(AF_INET, host.c_str(), &out.sin_addr) == 1;
}

int connectBlocking(sockaddr_in const& address) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (::connect(fd, reinterpret_cast<sockaddr const*>(&address), sizeof address) != 0) {
    int saved = errno;
    ::close(fd);
    errno = saved;
    return -1;
  }
  return fd;
}

bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

std::string readFile(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace llmux::bench
