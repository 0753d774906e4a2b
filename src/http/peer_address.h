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
  std::string ca_file;  ///< TLS: the CA bundle that verifies the peer ("" = the system store)

  std::string poolKey() const {
    std::string key = (tls ? "https://" : "http://") + host + ":" + std::to_string(port);
    if (!ca_file.empty()) key += "|ca=" + ca_file;
    return key;
  }
};

}  // namespace llmux::http
