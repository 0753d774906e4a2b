#pragma once

// `llmux node`: an egress agent on another machine (docs/egress.md, "node"). The gateway asks it
// for a tunnel with `CONNECT host:port` and the node's bearer token in Proxy-Authorization; the
// node opens the connection from its own address (or `--source-address`) and relays bytes both
// ways. The upstream's TLS runs end to end inside the tunnel: the node never sees the request.
#include <cstdint>
#include <memory>
#include <string>

#include "core/result.h"
#include "net/listen_address.h"

namespace llmux::net {
class WorkerPool;
}

namespace llmux::node {

struct NodeOptions {
  std::string token;           ///< secret: what Proxy-Authorization must carry after "Bearer "
  std::string source_address;  ///< the local address upstream connections leave from ("" = any)
  std::string tls_cert_file;   ///< PEM certificate chain: serve TLS (with tls_key_file)
  std::string tls_key_file;
};

class NodeAgent {
 public:
  /// Checks the options (the token, the source address, the certificate) before anything runs.
  static Result<std::unique_ptr<NodeAgent>> create(net::WorkerPool& workers, NodeOptions options);
  ~NodeAgent();
  NodeAgent(NodeAgent const&) = delete;
  NodeAgent& operator=(NodeAgent const&) = delete;

  /// Binds `address` and starts accepting (on the pool's loops once they run); the bound port.
  Result<std::uint16_t> listen(net::HostPort const& address);
  /// Stops accepting and closes every tunnel (from any thread).
  void stop();

 private:
  struct State;
  explicit NodeAgent(std::shared_ptr<State> state);
  std::shared_ptr<State> state_;
};

}  // namespace llmux::node
