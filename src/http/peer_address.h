#pragma once

#include <cstdint>
#include <string>

namespace llmux::http {

/// Who a connection talks to. Two requests may share a pooled connection only when every field
/// matches (scheme, host, port; the host is also the TLS server name that is verified).
struct PeerAddress {
  bool tls = false;
  std::string host;
  std::uint16_t port = 0;

  std::string poolKey() const {
    return (tls ? "https://" : "http://") + host + ":" + std::to_string(port);
  }
};

}  // namespace llmux::http
