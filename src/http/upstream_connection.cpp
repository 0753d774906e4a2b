#include "http/upstream_connection.h"

#include <sys/socket.h>

#include <boost/asio/connect.hpp>
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
constexpr std::size_t kReadBufferLimit = 16 * 1024;

UpstreamConnection::UpstreamConnection(PlainStream stream, std::string pool_key)
    : plain_(std::move(stream)), buffer_(kReadBufferLimit), pool_key_(std::move(pool_key)) {}

UpstreamConnection::UpstreamConnection(std::unique_ptr<TlsStream> stream, std::string pool_key)
    : secure_(std::move(stream)), buffer_(kReadBufferLimit), pool_key_(std::move(pool_key)) {}

UpstreamConnection::PlainStream& UpstreamConnection::lowest() {
  return secure_ ? beast::get_lowest_layer(*secure_) : *plain_;
}

void UpstreamConnection::close() {
  ErrorCode ignored;
  lowest().socket().shutdown(tcp::socket::shutdown_both, ignored);
  lowest().close();
}

bool UpstreamConnection::isOpen() { return lowest().socket().is_open(); }

bool UpstreamConnection::idleAndHealthy() {
  if (!isOpen() || buffer_.size() != 0) return false;
  char byte;
  ssize_t n = ::recv(lowest().socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  // Nothing to read is the healthy state; 0 is a close, > 0 unsolicited bytes, < 0 an error.
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

Task<Result<std::unique_ptr<UpstreamConnection>>> UpstreamPool::acquire(PeerAddress const& peer,
                                                                        MonoTime deadline) {
  std::string key = peer.poolKey();
  if (auto it = idle_.find(key); it != idle_.end()) {
    auto& list = it->second;
    MonoTime now = MonoClock::now();
    while (!list.empty()) {
      auto connection = std::move(list.back());
      list.pop_back();
      if (now - connection->idle_since < kMaxIdleAge && connection->idleAndHealthy()) {
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

  beast::tcp_stream stream(io_);
  stream.expires_at(deadline);
  auto [ec, endpoint] = co_await stream.async_connect(*endpoints, kUseTuple);
  if (ec) co_return connectError(peer, "cannot connect", ec);
  ErrorCode ignored;
  stream.socket().set_option(tcp::no_delay(true), ignored);

  if (!peer.tls) {
    co_return std::make_unique<UpstreamConnection>(std::move(stream), peer.poolKey());
  }
  auto tls = tlsContextFor(peer);
  if (!tls) co_return tls.error();
  auto secure = std::make_unique<UpstreamConnection::TlsStream>(std::move(stream), **tls);
  if (!SSL_set_tlsext_host_name(secure->native_handle(), peer.host.c_str())) {
    co_return makeError(ErrorKind::Connect, "cannot set TLS server name for " + peer.host);
  }
  secure->set_verify_callback(asio::ssl::host_name_verification(peer.host));
  beast::get_lowest_layer(*secure).expires_at(deadline);
  auto [hs_ec] = co_await secure->async_handshake(asio::ssl::stream_base::client, kUseTuple);
  if (hs_ec) co_return connectError(peer, "TLS handshake failed", hs_ec);
  co_return std::make_unique<UpstreamConnection>(std::move(secure), peer.poolKey());
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
