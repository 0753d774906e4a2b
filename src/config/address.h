#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/settings.h"
#include "core/result.h"

namespace llmux::config {

/// Parses a channel `base_url`: http or https, a host (name, IPv4 or [IPv6]), an optional port
/// (default 80 / 443) and an optional path prefix. Rejects user info, a query, a fragment, port 0
/// and anything that is not an absolute http(s) URL. Trailing slashes of the path are removed, so
/// "https://h/v1/" gives path_prefix "/v1" and "https://h/" gives "". Errors are
/// ErrorKind::InvalidRequest with a message that does not repeat the URL.
Result<UpstreamUrl> parseBaseUrl(std::string_view text);

/// The Host header value for `url`: the host (IPv6 in brackets), plus ":port" unless the port is
/// the scheme's default.
std::string hostHeaderValue(UpstreamUrl const& url);

/// "scheme://host[:port]": where `url` lives, without its path (no secret: a base_url carries
/// none).
std::string originOf(UpstreamUrl const& url);

/// "scheme://host[:port]prefix", the normalised form of a parsed base_url (for logs and the
/// admin API; it contains no secret because base_url may carry none).
std::string toString(UpstreamUrl const& url);

/// A server listen address. `host` is an IPv4 literal, an IPv6 literal without brackets or a
/// host name; port 0 asks the system for a free port.
struct ListenAddress {
  std::string host;
  std::uint16_t port = 0;
  bool is_ipv6 = false;

  bool operator==(ListenAddress const&) const = default;
};

/// Parses "host:port": "127.0.0.1:8080", "[::1]:8080", "localhost:0", "0.0.0.0:80".
Result<ListenAddress> parseListenAddress(std::string_view text);

/// Whether `host` is a usable host name: dot-separated labels of 1..63 letters, digits, '-' or '_'
/// (container and compose service names use '_'), not starting or ending with '-', at most 253
/// characters, and not made only of digits and dots (that would be a malformed IPv4 address).
bool isHostName(std::string_view host);

}  // namespace llmux::config
