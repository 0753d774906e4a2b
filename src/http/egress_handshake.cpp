#include "http/egress_handshake.h"

#include <array>
#include <string>
#include <vector>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

namespace llmux::http {

namespace asio = boost::asio;
using net::kUseTuple;
using net::Task;

namespace {

constexpr std::size_t kMaxConnectAnswer = 16 * 1024;

std::string authorityOf(std::string_view host, std::uint16_t port) {
  std::string out = host.find(':') != std::string_view::npos ? "[" + std::string(host) + "]"
                                                             : std::string(host);
  return out + ":" + std::to_string(port);
}

Error proxyError(Egress const& via, std::string what) {
  return makeError(ErrorKind::Connect, (via.kind == Egress::Kind::Node ? "node " : "proxy ") +
                                           via.name + " " + std::move(what));
}

/// The status code of an HTTP/1.x status line, or -1.
int statusOf(std::string_view head) {
  if (!head.starts_with("HTTP/1.") || head.size() < 12 || head[8] != ' ') return -1;
  int status = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (head[i] < '0' || head[i] > '9') return -1;
    status = status * 10 + (head[i] - '0');
  }
  return status;
}

template <class Stream>
Task<Result<void>> httpTunnel(Stream& stream, Egress const& via, std::string_view host,
                              std::uint16_t port) {
  std::string const authority = authorityOf(host, port);
  std::string request = "CONNECT " + authority + " HTTP/1.1\r\nHost: " + authority + "\r\n";
  if (!via.authorization.empty()) request += "Proxy-Authorization: " + via.authorization + "\r\n";
  request += "\r\n";
  auto [write_error, written] = co_await asio::async_write(stream, asio::buffer(request), kUseTuple);
  if (write_error) co_return proxyError(via, "failed while sending CONNECT: " + write_error.message());

  // The answer's head. Nothing may follow it: the upstream speaks only after the gateway has
  // (a TLS hello, an HTTP request), so extra bytes mean a proxy that is not a tunnel.
  std::string head;
  std::array<char, 1024> chunk;
  std::size_t end = std::string::npos;
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    if (head.size() > kMaxConnectAnswer) co_return proxyError(via, "sent an oversized CONNECT answer");
    auto [read_error, got] = co_await stream.async_read_some(asio::buffer(chunk), kUseTuple);
    if (read_error) {
      co_return proxyError(via, "closed the connection before answering CONNECT: " +
                                    read_error.message());
    }
    head.append(chunk.data(), got);
  }
  int const status = statusOf(head);
  if (status < 0) co_return proxyError(via, "answered CONNECT with something that is not HTTP");
  // An answer to CONNECT comes from the proxy itself: a 401 (what some proxies, tinyproxy among
  // them, answer to wrong credentials) refuses them as a 407 does.
  if (status == kProxyAuthRejected || status == 401) {
    Error error = proxyError(via, "refused the gateway's credentials (" + std::to_string(status) +
                                      "): check its username and password or token");
    error.http_status = kProxyAuthRejected;
    co_return error;
  }
  if (status < 200 || status > 299) {
    co_return proxyError(via, "refused the tunnel to " + authority + " (status " +
                                  std::to_string(status) + ")");
  }
  if (end + 4 != head.size()) co_return proxyError(via, "sent bytes after its CONNECT answer");
  co_return Result<void>{};
}

std::string_view socksReplyText(unsigned char code) {
  switch (code) {
    case 1: return "general failure";
    case 2: return "not allowed by its rules";
    case 3: return "network unreachable";
    case 4: return "host unreachable";
    case 5: return "connection refused";
    case 6: return "TTL expired";
    case 7: return "command not supported";
    case 8: return "address type not supported";
    default: return "unknown reply";
  }
}

}  // namespace

Task<Result<void>> openHttpTunnel(net::Socket& stream, Egress const& via, std::string_view host,
                                  std::uint16_t port) {
  return httpTunnel(stream, via, host, port);
}

Task<Result<void>> openHttpTunnel(UpstreamConnection::TlsStream& stream, Egress const& via,
                                  std::string_view host, std::uint16_t port) {
  return httpTunnel(stream, via, host, port);
}

Task<Result<void>> openSocks5Tunnel(net::Socket& socket, Egress const& via, std::string_view host,
                                    std::uint16_t port) {
  auto send = [&](std::vector<unsigned char> const& bytes) {
    return asio::async_write(socket, asio::buffer(bytes), kUseTuple);
  };
  auto receive = [&](unsigned char* into, std::size_t n) {
    return asio::async_read(socket, asio::buffer(into, n), kUseTuple);
  };
  auto broken = [&](std::string_view step, net::ErrorCode const& ec) {
    return proxyError(via, "(SOCKS5) failed during " + std::string(step) + ": " + ec.message());
  };
  auto refusedCredentials = [&](std::string what) {
    Error error = proxyError(via, "(SOCKS5) " + std::move(what));
    error.http_status = kProxyAuthRejected;
    return error;
  };

  // Greeting: the methods offered (no authentication; user name and password when configured).
  bool const credentials = !via.username.empty() || !via.password.empty();
  std::vector<unsigned char> greeting{0x05, 1, 0x00};
  if (credentials) greeting = {0x05, 1, 0x02};
  auto [ec1, n1] = co_await send(greeting);
  if (ec1) co_return broken("its greeting", ec1);
  std::array<unsigned char, 2> choice{};
  auto [ec2, n2] = co_await receive(choice.data(), 2);
  if (ec2) co_return broken("its greeting", ec2);
  if (choice[0] != 0x05) co_return proxyError(via, "is not a SOCKS5 proxy");
  if (choice[1] == 0xff) {
    co_return refusedCredentials(credentials ? "refused user name and password authentication"
                                             : "requires authentication");
  }
  if (choice[1] == 0x02) {
    if (!credentials) co_return refusedCredentials("requires authentication");
    std::vector<unsigned char> login{0x01, static_cast<unsigned char>(via.username.size())};
    login.insert(login.end(), via.username.begin(), via.username.end());
    login.push_back(static_cast<unsigned char>(via.password.size()));
    login.insert(login.end(), via.password.begin(), via.password.end());
    auto [ec3, n3] = co_await send(login);
    if (ec3) co_return broken("authentication", ec3);
    std::array<unsigned char, 2> verdict{};
    auto [ec4, n4] = co_await receive(verdict.data(), 2);
    if (ec4) co_return broken("authentication", ec4);
    if (verdict[1] != 0x00) co_return refusedCredentials("refused the user name and password");
  } else if (choice[1] != 0x00) {
    co_return proxyError(via, "(SOCKS5) chose an authentication method the gateway did not offer");
  }

  // The connect request: a name, or the address the caller resolved.
  std::vector<unsigned char> request{0x05, 0x01, 0x00};
  net::ErrorCode parse_error;
  auto const address = asio::ip::make_address(std::string(host), parse_error);
  if (!parse_error && address.is_v4()) {
    request.push_back(0x01);
    auto bytes = address.to_v4().to_bytes();
    request.insert(request.end(), bytes.begin(), bytes.end());
  } else if (!parse_error && address.is_v6()) {
    request.push_back(0x04);
    auto bytes = address.to_v6().to_bytes();
    request.insert(request.end(), bytes.begin(), bytes.end());
  } else {
    if (host.size() > 255) co_return proxyError(via, "(SOCKS5) cannot carry a host name that long");
    request.push_back(0x03);
    request.push_back(static_cast<unsigned char>(host.size()));
    request.insert(request.end(), host.begin(), host.end());
  }
  request.push_back(static_cast<unsigned char>(port >> 8));
  request.push_back(static_cast<unsigned char>(port & 0xff));
  auto [ec5, n5] = co_await send(request);
  if (ec5) co_return broken("the connect request", ec5);

  // The reply: version, code, reserved, then the bound address (skipped) and port.
  std::array<unsigned char, 4> reply{};
  auto [ec6, n6] = co_await receive(reply.data(), 4);
  if (ec6) co_return broken("the connect reply", ec6);
  if (reply[0] != 0x05) co_return proxyError(via, "(SOCKS5) sent a malformed connect reply");
  if (reply[1] != 0x00) {
    co_return proxyError(via, "(SOCKS5) could not connect to " + authorityOf(host, port) + ": " +
                                  std::string(socksReplyText(reply[1])));
  }
  std::size_t rest = 0;
  switch (reply[3]) {
    case 0x01: rest = 4 + 2; break;
    case 0x04: rest = 16 + 2; break;
    case 0x03: {
      unsigned char length = 0;
      auto [ec7, n7] = co_await receive(&length, 1);
      if (ec7) co_return broken("the connect reply", ec7);
      rest = length + 2u;
      break;
    }
    default: co_return proxyError(via, "(SOCKS5) sent a malformed connect reply");
  }
  std::array<unsigned char, 257> bound{};
  auto [ec8, n8] = co_await receive(bound.data(), rest);
  if (ec8) co_return broken("the connect reply", ec8);
  co_return Result<void>{};
}

}  // namespace llmux::http
