#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "core/egress.h"

namespace llmux::http {

/// Who a connection talks to. Two requests may share a pooled connection only when every field
/// matches (scheme, host, port; the host is also the TLS server name that is verified).
struct PeerAddress {
  bool tls = false;
  std::string host;
  std::uint16_t port = 0;
  std::string ca_file;  ///< TLS: the CA bundle that verifies the peer ("" = the system store)
  /// The proxy or node the connection goes through (null: direct).
  std::shared_ptr<Egress const> egress;
  /// Set (to a key's id) when the connection belongs to that key alone.
  std::string exclusive_to;

  /// Pooled connections are shared only along the same whole route: upstream, exit, owner.
  std::string poolKey() const {
    std::string key = (tls ? "https://" : "http://") + host + ":" + std::to_string(port);
    if (!ca_file.empty()) key += "|ca=" + ca_file;
    if (egress) key += "|via=" + egress->identity;
    if (!exclusive_to.empty()) key += "|for=" + exclusive_to;
    return key;
  }
};

}  // namespace llmux::http
