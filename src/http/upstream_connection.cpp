#include "http/upstream_connection.h"

#include <sys/socket.h>

#include <cerrno>
#include <stop_token>

#include <boost/asio/connect.hpp>
#include <boost/asio/ssl/host_name_verification.hpp>

#include "http/cancellation.h"
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

UpstreamConnection::UpstreamConnection(asio::io_context& io, net::Socket socket,
                                       std::string pool_key)
    : plain_(std::move(socket)),
      buffer_(ResponseReader::kBufferLimit),
      deadline_(io, [this] { close(); }),
      pool_key_(std::move(pool_key)) {
  buffer_.reserve(kReadBufferInitial);
}

UpstreamConnection::UpstreamConnection(asio::io_context& io, std::unique_ptr<TlsStream> stream,
                                       std::string pool_key)
    : plain_(io),
      secure_(std::move(stream)),
      buffer_(ResponseReader::kBufferLimit),
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

}  // namespace

Task<Result<std::unique_ptr<UpstreamConnection>>> UpstreamPool::connectNew(
    PeerAddress const& peer, MonoTime deadline, Cancellation* cancellation) {
  std::string const where = peer.host + ":" + std::to_string(peer.port);
  ConnectWatch watch(io_, deadline, cancellation);
  watch.enter("DNS lookup of " + peer.host, nullptr);
  auto endpoints = co_await resolver_.resolve(peer.host, peer.port, deadline, watch.stopToken());
  if (auto stop = watch.verdict()) co_return *stop;
  if (!endpoints) co_return endpoints.error();

  net::Socket socket(io_);
  watch.enter("connect to " + where, &socket);
  auto [ec, endpoint] = co_await asio::async_connect(socket, *endpoints, kUseTuple);
  if (auto stop = watch.verdict()) co_return *stop;
  if (ec) {
    co_return makeError(ErrorKind::Connect, "cannot connect to " + where + ": " + ec.message());
  }
  ErrorCode ignored;
  socket.set_option(tcp::no_delay(true), ignored);

  if (!peer.tls) {
    co_return std::make_unique<UpstreamConnection>(io_, std::move(socket), peer.poolKey());
  }
  auto tls = tlsContextFor(peer);
  if (!tls) co_return tls.error();
  auto secure = std::make_unique<UpstreamConnection::TlsStream>(std::move(socket), **tls);
  if (!SSL_set_tlsext_host_name(secure->native_handle(), peer.host.c_str())) {
    co_return makeError(ErrorKind::Connect, "cannot set TLS server name for " + peer.host);
  }
  secure->set_verify_callback(asio::ssl::host_name_verification(peer.host));
  watch.enter("TLS handshake with " + where, &secure->next_layer());
  auto [hs_ec] = co_await secure->async_handshake(asio::ssl::stream_base::client, kUseTuple);
  if (auto stop = watch.verdict()) co_return *stop;
  if (hs_ec) {
    co_return makeError(ErrorKind::Connect,
                        "TLS handshake with " + where + " failed: " + hs_ec.message());
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
