#include "http/upstream_connection.h"

#include <sys/socket.h>

#include <cerrno>
#include <stop_token>

#include <boost/asio/connect.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>

#include "http/cancellation.h"
#include "http/egress_handshake.h"
#include "http/response_reader.h"
#include "net/resolver.h"
#include "net/tls.h"

namespace llmux::http {

namespace asio = boost::asio;
using net::ErrorCode;
using net::kUseTuple;
using net::Task;
using net::tcp;

// Upstream response heads are small; capping the read buffer keeps memory per open stream low.
// It starts at the size of a typical head plus a small body, so the first read takes it whole.
constexpr std::size_t kReadBufferInitial = 2 * 1024;

UpstreamConnection::UpstreamConnection(asio::io_context& io, std::string pool_key)
    : plain_(io),
      buffer_(ResponseReader::kBufferLimit),
      deadline_(io, [this] { close(); }),
      pool_key_(std::move(pool_key)) {
  buffer_.reserve(kReadBufferInitial);
}

UpstreamConnection::UpstreamConnection(asio::io_context& io, net::Socket socket,
                                       std::string pool_key)
    : UpstreamConnection(io, std::move(pool_key)) {
  plain_ = std::move(socket);
}

UpstreamConnection::UpstreamConnection(asio::io_context& io, std::unique_ptr<TlsStream> stream,
                                       std::string pool_key)
    : UpstreamConnection(io, std::move(pool_key)) {
  secure_ = std::move(stream);
}

UpstreamConnection::UpstreamConnection(asio::io_context& io, std::unique_ptr<TunneledTlsStream> stream,
                                       std::string pool_key)
    : UpstreamConnection(io, std::move(pool_key)) {
  tunneled_ = std::move(stream);
}

UpstreamConnection::~UpstreamConnection() { deadline_.stop(); }

net::Socket& UpstreamConnection::socket() {
  if (secure_) return secure_->next_layer();
  if (tunneled_) return tunneled_->next_layer().next_layer();
  return plain_;
}

void UpstreamConnection::close() {
  ErrorCode ignored;
  socket().shutdown(net::Socket::shutdown_both, ignored);
  socket().close(ignored);
}

bool UpstreamConnection::isOpen() { return socket().is_open(); }

bool UpstreamConnection::stillIdle() {
  if (!isOpen() || buffer_.size() != 0) return false;
  // Nothing may be readable on an idle connection: 0 is the peer's close, data is something it
  // was never asked for (or a TLS alert before its close), an error a reset.
  char byte;
  ssize_t n = ::recv(socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
}

UpstreamPool::UpstreamPool(asio::io_context& io, asio::ssl::context& tls,
                           net::CachingResolver& resolver)
    : io_(io), tls_(tls), resolver_(resolver) {}

UpstreamPool::~UpstreamPool() = default;

std::size_t UpstreamPool::idleCount() const {
  std::size_t n = 0;
  for (auto const& [key, list] : idle_) n += list.size();
  return n;
}

Task<Result<std::unique_ptr<UpstreamConnection>>> UpstreamPool::acquire(
    PeerAddress const& peer, MonoTime deadline, Cancellation* cancellation) {
  std::string key = peer.poolKey();
  if (auto it = idle_.find(key); it != idle_.end()) {
    auto& list = it->second;
    MonoTime now = MonoClock::now();
    while (!list.empty()) {
      auto connection = std::move(list.back());
      list.pop_back();
      // A connection idle for a while gets one non-blocking peek (a system call): a request is
      // never written to a connection the peer has already closed, since once written it is
      // not sent again (the upstream may have acted on it). One reused at once (a busy
      // gateway's case) is not probed: upstreams close idle connections after seconds, and a
      // close that races the reuse makes the attempt fail like any broken connection.
      auto idle_for = now - connection->idle_since;
      bool usable = idle_for < kMaxIdleAge &&
                    (idle_for < kProbeAfterIdle ? connection->isOpen() && connection->buffer().size() == 0
                                                : connection->stillIdle());
      if (usable) {
        connection->reused = true;
        co_return std::move(connection);
      }
      connection->close();
    }
  }
  co_return co_await connectNew(peer, deadline, cancellation);
}

namespace {

/// Gives a connect up at its deadline or when its request is cancelled: it stops the DNS wait or
/// closes the socket of the step in progress, so that the step returns at once. The caller asks
/// `verdict()` after every awaited step, whatever that step's own result: a connect or handshake
/// that completed just as the watchdog closed the socket must not hand back a closed socket.
class ConnectWatch {
 public:
  ConnectWatch(asio::io_context& io, MonoTime deadline, Cancellation* cancellation)
      : watchdog_(io, [this] { giveUp(ErrorKind::Timeout); }), cancellation_(cancellation) {
    if (cancellation_) {
      cancel_id_ = cancellation_->add([this](CancelReason) { giveUp(ErrorKind::Cancelled); });
    }
    watchdog_.expireAt(deadline);
  }
  ~ConnectWatch() {
    watchdog_.stop();
    if (cancellation_) cancellation_->remove(cancel_id_);
  }
  ConnectWatch(ConnectWatch const&) = delete;
  ConnectWatch& operator=(ConnectWatch const&) = delete;

  /// The step now awaited (for the error message) and the socket whose closing interrupts it
  /// (none for the DNS wait, which the stop token interrupts).
  void enter(std::string step, net::Socket* socket) {
    step_ = std::move(step);
    socket_ = socket;
  }
  std::stop_token stopToken() const { return stop_.get_token(); }
  /// Why the connect was given up, if it was.
  std::optional<Error> verdict() const {
    if (!verdict_) return std::nullopt;
    bool timeout = *verdict_ == ErrorKind::Timeout;
    return makeError(*verdict_, step_ + (timeout ? " timed out" : " cancelled"));
  }

 private:
  void giveUp(ErrorKind kind) {
    if (verdict_) return;
    verdict_ = kind;
    stop_.request_stop();
    if (socket_) {
      ErrorCode ignored;
      socket_->close(ignored);
    }
  }

  net::Deadline watchdog_;
  Cancellation* cancellation_;
  std::size_t cancel_id_ = 0;
  std::stop_source stop_;
  net::Socket* socket_ = nullptr;
  std::string step_;
  std::optional<ErrorKind> verdict_;
};


std::string endpointText(std::string const& host, std::uint16_t port) {
  return (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

/// A TLS client handshake on `stream` with server `host` (SNI set, the certificate's name
/// verified), given up when `watch` says so (`lowest` is the socket under every layer); `what`
/// names the peer in errors.
template <class Stream>
Task<std::optional<Error>> clientHandshake(Stream& stream, std::string const& host,
                                           std::string const& what, net::Socket& lowest,
                                           ConnectWatch& watch) {
  if (!SSL_set_tlsext_host_name(stream.native_handle(), host.c_str())) {
    co_return makeError(ErrorKind::Connect, "cannot set TLS server name for " + host);
  }
  stream.set_verify_callback(asio::ssl::host_name_verification(host));
  watch.enter("TLS handshake with " + what, &lowest);
  auto [ec] = co_await stream.async_handshake(asio::ssl::stream_base::client, kUseTuple);
  if (auto stop = watch.verdict()) co_return stop;
  if (ec) co_return makeError(ErrorKind::Connect, "TLS handshake with " + what + " failed: " + ec.message());
  co_return std::nullopt;
}

}  // namespace

Task<Result<std::unique_ptr<UpstreamConnection>>> UpstreamPool::connectNew(
    PeerAddress const& peer, MonoTime deadline, Cancellation* cancellation) {
  // The first hop is the upstream itself, or the proxy or node the route goes through.
  Egress const* via = peer.egress.get();
  std::string const& hop_host = via ? via->host : peer.host;
  std::uint16_t const hop_port = via ? via->port : peer.port;
  std::string const upstream = endpointText(peer.host, peer.port);
  std::string const hop = via ? (via->kind == Egress::Kind::Node ? "node " : "proxy ") + via->name +
                                    " (" + endpointText(hop_host, hop_port) + ")"
                              : upstream;
  ConnectWatch watch(io_, deadline, cancellation);
  watch.enter("DNS lookup of " + hop_host, nullptr);
  auto endpoints = co_await resolver_.resolve(hop_host, hop_port, deadline, watch.stopToken());
  if (auto stop = watch.verdict()) co_return *stop;
  if (!endpoints) co_return endpoints.error();

  net::Socket socket(io_);
  watch.enter("connect to " + hop, &socket);
  auto [ec, endpoint] = co_await asio::async_connect(socket, *endpoints, kUseTuple);
  if (auto stop = watch.verdict()) co_return *stop;
  if (ec) {
    co_return makeError(ErrorKind::Connect, "cannot connect to " + hop + ": " + ec.message());
  }
  ErrorCode ignored;
  socket.set_option(tcp::no_delay(true), ignored);

  // TLS to the proxy or node itself (an https:// one).
  std::unique_ptr<UpstreamConnection::TlsStream> hop_tls;
  if (via && via->tls) {
    auto context = tlsContextFor(via->ca_file);
    if (!context) co_return context.error();
    hop_tls = std::make_unique<UpstreamConnection::TlsStream>(std::move(socket), **context);
    auto failed = co_await clientHandshake(*hop_tls, via->host, hop, hop_tls->next_layer(), watch);
    if (failed) co_return *failed;
  }
  net::Socket& lowest = hop_tls ? hop_tls->next_layer() : socket;

  // The tunnel to the upstream (an HTTP proxy takes a plain-http request in absolute form
  // instead: nothing to open).
  if (via && !(via->forwardsPlainHttp() && !peer.tls)) {
    watch.enter("tunnel to " + upstream + " through " + hop, &lowest);
    Result<void> tunnel;
    if (via->kind == Egress::Kind::Socks5) {
      std::string target = peer.host;
      if (!via->remote_dns) {  // socks5: the gateway resolves the name, the proxy gets an address
        auto resolved = co_await resolver_.resolve(peer.host, peer.port, deadline, watch.stopToken());
        if (auto stop = watch.verdict()) co_return *stop;
        if (!resolved) co_return resolved.error();
        if (resolved->empty()) co_return makeError(ErrorKind::Connect, "no address for " + peer.host);
        target = resolved->front().address().to_string();
      }
      tunnel = co_await openSocks5Tunnel(socket, *via, target, peer.port);
    } else if (hop_tls) {
      tunnel = co_await openHttpTunnel(*hop_tls, *via, peer.host, peer.port);
    } else {
      tunnel = co_await openHttpTunnel(socket, *via, peer.host, peer.port);
    }
    if (auto stop = watch.verdict()) co_return *stop;
    if (!tunnel) co_return tunnel.error();
  }

  if (!peer.tls) {
    if (hop_tls) co_return std::make_unique<UpstreamConnection>(io_, std::move(hop_tls), peer.poolKey());
    co_return std::make_unique<UpstreamConnection>(io_, std::move(socket), peer.poolKey());
  }
  auto tls = tlsContextFor(peer.ca_file);
  if (!tls) co_return tls.error();
  std::string const what = upstream + (via ? " through " + hop : "");
  if (hop_tls) {
    // The upstream's TLS inside the proxy's.
    auto secure = std::make_unique<UpstreamConnection::TunneledTlsStream>(std::move(*hop_tls), **tls);
    auto failed = co_await clientHandshake(*secure, peer.host, what, secure->next_layer().next_layer(), watch);
    if (failed) co_return *failed;
    co_return std::make_unique<UpstreamConnection>(io_, std::move(secure), peer.poolKey());
  }
  auto secure = std::make_unique<UpstreamConnection::TlsStream>(std::move(socket), **tls);
  auto failed = co_await clientHandshake(*secure, peer.host, what, secure->next_layer(), watch);
  if (failed) co_return *failed;
  co_return std::make_unique<UpstreamConnection>(io_, std::move(secure), peer.poolKey());
}

Result<asio::ssl::context*> UpstreamPool::tlsContextFor(std::string const& ca_file) {
  if (ca_file.empty()) return &tls_;
  auto& slot = tls_by_ca_file_[ca_file];
  if (!slot) {
    auto made = net::makeClientTlsContext(ca_file);
    if (!made) return made.error();
    slot = std::move(*made);
  }
  return slot.get();
}

void UpstreamPool::release(std::unique_ptr<UpstreamConnection> connection) {
  if (!connection || !connection->isOpen()) return;
  auto& list = idle_[connection->poolKey()];
  if (list.size() >= kMaxIdlePerPeer) {
    connection->close();
    return;
  }
  connection->idle_since = MonoClock::now();
  list.push_back(std::move(connection));
}

}  // namespace llmux::http
