#pragma once

// How a connection to an upstream leaves the gateway when it goes through a proxy or an egress
// node (docs/egress.md). Made once when the configuration is loaded; the upstream pool reads it
// to open a connection and to key its pooled connections.
#include <cstdint>
#include <string>

#include "core/error.h"

namespace llmux {

struct Egress {
  enum class Kind {
    HttpProxy,  ///< `network` with an http:// or https:// URL: CONNECT (absolute form for http)
    Socks5,     ///< `network` with a socks5:// or socks5h:// URL
    Node,       ///< `node`: an `llmux node` agent, always a CONNECT tunnel
  };
  Kind kind = Kind::HttpProxy;
  std::string name;  ///< the proxy's name in the configuration: logs, metrics, errors
  bool tls = false;  ///< TLS to the proxy or node itself (an https:// URL)
  std::string host;
  std::uint16_t port = 0;
  std::string ca_file;      ///< verifies the proxy's certificate ("" = the system store)
  bool remote_dns = false;  ///< socks5h: the proxy resolves the upstream's name
  /// Secrets, never logged: SOCKS5's user name and password, and the `Proxy-Authorization`
  /// value of an HTTP proxy (Basic) or a node (Bearer) ("" = none).
  std::string username;
  std::string password;
  std::string authorization;
  /// What tells its connections apart in the pool: the name, the address and a digest of the
  /// credentials (changed credentials mean new connections; no secret is in it).
  std::string identity;

  /// Whether a request to a plain-http upstream goes to the proxy in absolute form instead of
  /// through a tunnel (an HTTP proxy's usual way).
  bool forwardsPlainHttp() const { return kind == Kind::HttpProxy; }
};

/// The status a connect error carries when a proxy or node refused the gateway's credentials
/// (an HTTP proxy's 407, a SOCKS5 or node refusal): the operator's to fix, never a failure of
/// the upstream or its key.
inline constexpr int kProxyAuthRejected = 407;
inline bool isProxyAuthRejection(Error const& error) {
  return error.kind == ErrorKind::Connect && error.http_status == kProxyAuthRejected;
}

}  // namespace llmux
