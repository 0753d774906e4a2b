#include "http/upstream_connection.h"

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>

#include "net/resolver.h"
#include "net/tls.h"

namespace llmux::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
using net::ErrorCode;
using net::kUseTuple;
using net::Task;
using net::tcp;

// Upstream response heads are small; capping the read buffer keeps memory per open stream low.
// It starts at the size of a typical head plus a small body, so the first read takes it whole.
constexpr std::size_t kReadBufferLimit = 16 * 1024;
constexpr std::size_t kReadBufferInitial = 2 * 1024;

UpstreamConnection::UpstreamConnection(asio::io_context& io, net::Socket socket,
                                       std::string pool_key)
    : plain_(std::move(socket)),
      buffer_(kReadBufferLimit),
      deadline_(io, [this] { close(); }),
      pool_key_(std::move(pool_key)) {
  buffer_.reserve(kReadBufferInitial);
}

UpstreamConnection::UpstreamConnection(asio::io_context& io, std::unique_ptr<TlsStream> stream,
                                       std::string pool_key)
    : plain_(io),
      secure_(std::move(stream)),
      buffer_(kReadBufferLimit),
      deadline_(io, [this] { close(); }),
      pool_key_(std::move(pool_key)) {
  buffer_.reserve(kReadBufferInitial);
}

UpstreamConnection::~UpstreamConnection() { deadline_.stop(); }

net::Socket& UpstreamConnection::socket() { return secure_ ? secure_->next_layer() : plain_; }

void UpstreamConnection::close() {
  ErrorCode ignored;
  socket().shutdown(net::Socket::shutdown_both, ignored);
  socket().close(ignored);
}

bool UpstreamConnection::isOpen() { return socket().is_open(); }

UpstreamPool::UpstreamPool(asio::io_context& io, asio::ssl::context& tls,
                           net::CachingResolver& resolver)
    : io_(io), tls_(tls), resolver_(resolver) {}

UpstreamPool::~UpstreamPool() = default;

std::size_t UpstreamPool::idleCount() const {
  std::size_t n = 0;
  for (auto const& [key, list] : idle_) n += list.size();
  return n;
}

Task<Result<std::unique_ptr<UpstreamConnection>>> UpstreamPool::acquire(PeerAddress const& peer,
                                                                        MonoTime deadline) {
  std::string key = peer.poolKey();
  if (auto it = idle_.find(key); it != idle_.end()) {
    auto& list = it->second;
    MonoTime now = MonoClock::now();
    while (!list.empty()) {
      auto connection = std::move(list.back());
      list.pop_back();
      // No liveness probe (a syscall per request): a connection the peer closed while idle
      // fails before any answer byte and the request is resent on a fresh one.
      if (now - connection->idle_since < kMaxIdleAge && connection->isOpen() &&
          connection->buffer().size() == 0) {
        connection->reused = true;
        co_return std::move(connection);
      }
      connection->close();
    }
  }
  co_return co_await connectNew(peer, deadline);
}

namespace {

Error connectError(PeerAddress const& peer, std::string_view what, ErrorCode ec) {
  bool timed_out = ec == beast::error::timeout;
  return makeError(timed_out ? ErrorKind::Timeout : ErrorKind::Connect,
                   std::string(timed_out ? "connect timeout" : what) + " to " + peer.host + ":" +
                       std::to_string(peer.port) + (timed_out ? "" : ": " + ec.message()));
}

}  // namespace

Task<Result<std::unique_ptr<UpstreamConnection>>> UpstreamPool::connectNew(PeerAddress const& peer,
                                                                           MonoTime deadline) {
  auto endpoints = co_await resolver_.resolve(peer.host, peer.port);
  if (!endpoints) co_return endpoints.error();

  net::Socket socket(io_);
  bool timed_out = false;
  net::Deadline watchdog(io_, [&socket, &timed_out] {
    timed_out = true;
    ErrorCode ignored;
    socket.close(ignored);
  });
  watchdog.expireAt(deadline);
  auto [ec, endpoint] = co_await asio::async_connect(socket, *endpoints, kUseTuple);
  if (ec) co_return connectError(peer, "cannot connect", timed_out ? beast::error::timeout : ec);
  ErrorCode ignored;
  socket.set_option(tcp::no_delay(true), ignored);

  if (!peer.tls) {
    watchdog.stop();
    co_return std::make_unique<UpstreamConnection>(io_, std::move(socket), peer.poolKey());
  }
  auto tls = tlsContextFor(peer);
  if (!tls) co_return tls.error();
  auto secure = std::make_unique<UpstreamConnection::TlsStream>(std::move(socket), **tls);
  if (!SSL_set_tlsext_host_name(secure->native_handle(), peer.host.c_str())) {
    co_return makeError(ErrorKind::Connect, "cannot set TLS server name for " + peer.host);
  }
  secure->set_verify_callback(asio::ssl::host_name_verification(peer.host));
  // The watchdog now guards the handshake: it closes the TLS stream's own socket.
  watchdog.stop();
  net::Deadline handshake_watchdog(io_, [&secure, &timed_out] {
    timed_out = true;
    ErrorCode ignored;
    secure->next_layer().close(ignored);
  });
  handshake_watchdog.expireAt(deadline);
  auto [hs_ec] = co_await secure->async_handshake(asio::ssl::stream_base::client, kUseTuple);
  handshake_watchdog.stop();
  if (hs_ec) {
    co_return connectError(peer, "TLS handshake failed", timed_out ? beast::error::timeout : hs_ec);
  }
  co_return std::make_unique<UpstreamConnection>(io_, std::move(secure), peer.poolKey());
}

Result<asio::ssl::context*> UpstreamPool::tlsContextFor(PeerAddress const& peer) {
  if (peer.ca_file.empty()) return &tls_;
  auto& slot = tls_by_ca_file_[peer.ca_file];
  if (!slot) {
    auto made = net::makeClientTlsContext(peer.ca_file);
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
