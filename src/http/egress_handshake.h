#pragma once

// The first words on a new connection through a proxy or node: an HTTP CONNECT or a SOCKS5
// handshake asking for a tunnel to the upstream (docs/egress.md). Internal to the http module
// (the upstream pool calls them); the connect's watchdog bounds them in time.
#include <cstdint>
#include <string_view>

#include "core/egress.h"
#include "core/result.h"
#include "http/upstream_connection.h"

namespace llmux::http {

/// Sends `CONNECT host:port` (with the exit's Proxy-Authorization, if any) and reads the answer's
/// head (at most 16 KiB). A 2xx opens the tunnel; a 407 (or a 401) is an error carrying
/// kProxyAuthRejected;
/// any other answer, or bytes after the head, is a connect error naming the proxy.
net::Task<Result<void>> openHttpTunnel(net::Socket& stream, Egress const& via,
                                       std::string_view host, std::uint16_t port);
net::Task<Result<void>> openHttpTunnel(UpstreamConnection::TlsStream& stream, Egress const& via,
                                       std::string_view host, std::uint16_t port);

/// SOCKS5 (RFC 1928) with no authentication or user name and password (RFC 1929) when the exit
/// has credentials. `host` goes as a name (socks5h: the proxy resolves it) or as the IPv4 or
/// IPv6 literal the caller resolved. A refused authentication carries kProxyAuthRejected.
net::Task<Result<void>> openSocks5Tunnel(net::Socket& socket, Egress const& via,
                                         std::string_view host, std::uint16_t port);

}  // namespace llmux::http
