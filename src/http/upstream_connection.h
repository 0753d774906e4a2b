#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include "core/clock.h"
#include "core/result.h"
#include "http/peer_address.h"
#include "net/asio_types.h"
#include "net/deadline.h"

namespace llmux::net {
class CachingResolver;
}

namespace llmux::http {

class Cancellation;

/// One connection to an upstream, plain or TLS, with its read buffer and its watchdog (which
/// closes the socket when the deadline of the current phase passes). Through an https proxy or
/// node, the upstream's TLS runs inside the proxy's (a tunneled TLS stream).
class UpstreamConnection {
 public:
  using TlsStream = boost::asio::ssl::stream<net::Socket>;
  using TunneledTlsStream = boost::asio::ssl::stream<TlsStream>;

  UpstreamConnection(net::asio::io_context& io, net::Socket socket, std::string pool_key);
  UpstreamConnection(net::asio::io_context& io, std::unique_ptr<TlsStream> stream,
                     std::string pool_key);
  UpstreamConnection(net::asio::io_context& io, std::unique_ptr<TunneledTlsStream> stream,
                     std::string pool_key);
  ~UpstreamConnection();

  /// The TCP socket under every layer.
  net::Socket& socket();
  net::Socket* plain() { return secure_ || tunneled_ ? nullptr : &plain_; }
  TlsStream* secure() { return secure_.get(); }
  TunneledTlsStream* tunneled() { return tunneled_.get(); }
  boost::beast::flat_buffer& buffer() { return buffer_; }
  net::Deadline& deadline() { return deadline_; }
  std::string const& poolKey() const { return pool_key_; }

  /// Closes the socket: every pending operation completes with operation_aborted.
  void close();
  bool isOpen();
  /// Open, nothing left unread in the buffer, and nothing readable on the socket: the peer has
  /// neither closed nor reset it, nor sent anything unasked, while it was idle in the pool.
  bool stillIdle();

  bool reused = false;  ///< served an earlier request
  MonoTime idle_since{};

 private:
  /// Everything but the stream.
  UpstreamConnection(net::asio::io_context& io, std::string pool_key);

  net::Socket plain_;  ///< the socket of a plain connection; unused (closed) under TLS
  std::unique_ptr<TlsStream> secure_;
  std::unique_ptr<TunneledTlsStream> tunneled_;
  boost::beast::flat_buffer buffer_;
  net::Deadline deadline_;
  std::string pool_key_;
};

/// Keep-alive connections to upstreams, owned by one worker thread (no locks). A connection
/// returns to the pool only after a complete, clean final response.
class UpstreamPool {
 public:
  /// `tls` verifies peers against the system store; peers with their own CA bundle get a
  /// context of their own, made on first use. `resolver` is the process's, shared by the workers.
  UpstreamPool(net::asio::io_context& io, boost::asio::ssl::context& tls,
               net::CachingResolver& resolver);
  ~UpstreamPool();

  /// A pooled connection to `peer` that is still idle and open, or a new one connected (and
  /// TLS-handshaken) by `deadline`. Cancelling `cancellation` stops the connect at once.
  net::Task<Result<std::unique_ptr<UpstreamConnection>>> acquire(
      PeerAddress const& peer, MonoTime deadline, Cancellation* cancellation = nullptr);
  /// A new connection, never a pooled one (used to resend a request that could not be written
  /// on a pooled connection). DNS, TCP and TLS all count against `deadline`; past it, or once
  /// `cancellation` fires, the wait stops at once with a Timeout (naming the step) or Cancelled
  /// error, and a socket the watchdog closed is never handed back.
  net::Task<Result<std::unique_ptr<UpstreamConnection>>> connectNew(
      PeerAddress const& peer, MonoTime deadline, Cancellation* cancellation = nullptr);
  void release(std::unique_ptr<UpstreamConnection> connection);

  std::size_t idleCount() const;
  /// Closes every idle connection (shutdown: their armed timers would keep the loop running).
  void closeIdle() { idle_.clear(); }
  net::asio::io_context& io() { return io_; }

 private:
  /// The context that verifies a peer with `ca_file` ("" = the system store's).
  Result<boost::asio::ssl::context*> tlsContextFor(std::string const& ca_file);

  net::asio::io_context& io_;
  boost::asio::ssl::context& tls_;
  std::unordered_map<std::string, std::unique_ptr<boost::asio::ssl::context>> tls_by_ca_file_;
  net::CachingResolver& resolver_;
  std::unordered_map<std::string, std::vector<std::unique_ptr<UpstreamConnection>>> idle_;
  static constexpr std::size_t kMaxIdlePerPeer = 512;
  static constexpr std::chrono::seconds kMaxIdleAge{50};  // below common upstream keep-alive limits
  /// Idle at least this long, a pooled connection is probed (stillIdle) before it is reused.
  static constexpr std::chrono::milliseconds kProbeAfterIdle{100};
};

}  // namespace llmux::http
