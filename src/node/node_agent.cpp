#include "node/node_agent.h"

#include <openssl/crypto.h>

#include <atomic>
#include <array>
#include <map>
#include <mutex>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/context.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include "core/http_syntax.h"
#include "core/strings.h"
#include "net/asio_types.h"
#include "net/deadline.h"
#include "net/resolver.h"
#include "net/worker_pool.h"
#include "telemetry/log.h"

namespace llmux::node {

namespace asio = boost::asio;
namespace ssl = boost::asio::ssl;
using net::ErrorCode;
using net::kUseTuple;
using net::Task;
using TlsStream = ssl::stream<net::Socket>;

namespace {

constexpr std::size_t kMaxRequestHead = 8 * 1024;
/// The whole setup — TLS, the CONNECT head, the upstream's connect — must end by then.
constexpr std::chrono::seconds kSetupTimeout{10};
constexpr std::size_t kRelayBuffer = 16 * 1024;

net::Socket& lowestLayer(net::Socket& socket) { return socket; }
net::Socket& lowestLayer(TlsStream& stream) { return stream.next_layer(); }

void closeSocket(net::Socket& socket) {
  ErrorCode ignored;
  socket.shutdown(net::Socket::shutdown_both, ignored);
  socket.close(ignored);
}

/// The CONNECT request, as far as the node reads it.
struct ConnectRequest {
  std::string method;
  std::string host;
  std::uint16_t port = 0;
  std::string authorization;  ///< the Proxy-Authorization value
};

/// "host:port" or "[v6]:port" of a CONNECT target.
bool splitAuthority(std::string_view authority, ConnectRequest& out) {
  std::string_view host;
  std::string_view port;
  if (authority.starts_with('[')) {
    auto close = authority.find(']');
    if (close == std::string_view::npos || close + 1 >= authority.size() || authority[close + 1] != ':') {
      return false;
    }
    host = authority.substr(1, close - 1);
    port = authority.substr(close + 2);
  } else {
    auto colon = authority.rfind(':');
    if (colon == std::string_view::npos) return false;
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty() || port.empty() || port.size() > 5) return false;
  unsigned value = 0;
  for (char c : port) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + static_cast<unsigned>(c - '0');
  }
  if (value == 0 || value > 65535) return false;
  out.host = std::string(host);
  out.port = static_cast<std::uint16_t>(value);
  return true;
}

std::optional<ConnectRequest> parseHead(std::string_view head) {
  ConnectRequest request;
  auto line_end = head.find("\r\n");
  std::string_view line = head.substr(0, line_end);
  auto first_space = line.find(' ');
  auto second_space = line.rfind(' ');
  if (first_space == std::string_view::npos || second_space == first_space) return std::nullopt;
  request.method = std::string(line.substr(0, first_space));
  std::string_view target = line.substr(first_space + 1, second_space - first_space - 1);
  if (!line.substr(second_space + 1).starts_with("HTTP/1.")) return std::nullopt;
  if (request.method == "CONNECT" && !splitAuthority(target, request)) return std::nullopt;
  std::string_view rest = head.substr(line_end + 2);
  while (!rest.empty()) {
    auto end = rest.find("\r\n");
    std::string_view field = rest.substr(0, end);
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 2);
    auto colon = field.find(':');
    if (colon == std::string_view::npos) continue;
    if (equalsIgnoreCase(field.substr(0, colon), "proxy-authorization")) {
      request.authorization = std::string(trimSpaces(field.substr(colon + 1)));
    }
  }
  return request;
}

}  // namespace

struct NodeAgent::State : std::enable_shared_from_this<State> {
  State(net::WorkerPool& workers, NodeOptions options)
      : workers(workers), options(std::move(options)) {}

  net::WorkerPool& workers;
  NodeOptions options;
  std::optional<asio::ip::address> source;
  std::unique_ptr<ssl::context> tls;
  net::CachingResolver resolver;
  std::unique_ptr<net::Acceptor> acceptor;
  std::atomic<bool> stopping{false};
  std::atomic<unsigned> next_worker{0};

  /// Every open tunnel's sockets, for stop(): it posts their closing to the tunnel's own loop,
  /// where the tunnel also unregisters itself (so a posted close finds it still open or gone).
  struct OpenTunnel {
    net::Executor executor;
    net::Socket* client;
    net::Socket* upstream;
  };
  std::mutex mutex;
  std::map<std::uint64_t, OpenTunnel> open_tunnels;
  std::uint64_t next_id = 0;

  bool tokenMatches(std::string_view authorization) const {
    std::string const expected = "Bearer " + options.token;
    // Constant time over the expected length: the comparison does not tell how much matched.
    return authorization.size() == expected.size() &&
           CRYPTO_memcmp(authorization.data(), expected.data(), expected.size()) == 0;
  }

  Task<void> acceptLoop();
  Task<void> serve(net::Socket socket);
  template <class Stream>
  Task<void> tunnel(Stream& client, std::string peer);
};

namespace {

template <class Stream>
Task<bool> writeAll(Stream& stream, std::string_view bytes) {
  auto [ec, n] = co_await asio::async_write(stream, asio::buffer(bytes), kUseTuple);
  co_return !ec;
}

/// Copies `from` to `to` until either side ends; the bytes copied.
template <class From, class To>
Task<std::uint64_t> pump(From& from, To& to) {
  std::uint64_t total = 0;
  std::vector<char> buffer(kRelayBuffer);
  for (;;) {
    auto [read_error, n] = co_await from.async_read_some(asio::buffer(buffer), kUseTuple);
    if (n > 0) {
      auto [write_error, written] =
          co_await asio::async_write(to, asio::buffer(buffer.data(), n), kUseTuple);
      total += written;
      if (write_error) break;
    }
    if (read_error) break;
  }
  co_return total;
}

std::string answer(int status, std::string_view reason, std::string_view extra = {}) {
  return "HTTP/1.1 " + std::to_string(status) + " " + std::string(reason) + "\r\n" +
         std::string(extra) + "Content-Length: 0\r\nConnection: close\r\n\r\n";
}

/// Sends a refusal, then lets the client finish sending before the connection closes: closing
/// with its bytes unread would reset the connection and could destroy the answer in flight.
/// Bounded by the setup watchdog and by what it reads (64 KiB).
template <class Stream>
Task<void> refuse(Stream& client, std::string const& refusal) {
  if (!co_await writeAll(client, refusal)) co_return;
  ErrorCode ignored;
  lowestLayer(client).shutdown(net::Socket::shutdown_send, ignored);
  std::array<char, 4096> sink;
  for (std::size_t drained = 0; drained < 64 * 1024;) {
    auto [ec, n] = co_await client.async_read_some(asio::buffer(sink), kUseTuple);
    if (ec) break;
    drained += n;
  }
}

}  // namespace

Task<void> NodeAgent::State::acceptLoop() {
  auto self = shared_from_this();
  for (;;) {
    unsigned const worker = next_worker.fetch_add(1) % workers.size();
    auto [ec, socket] = co_await acceptor->async_accept(workers.context(worker).get_executor(), kUseTuple);
    if (stopping.load()) co_return;
    if (ec) {
      if (ec == asio::error::operation_aborted) co_return;
      continue;  // a connection that failed while being accepted
    }
    auto executor = socket.get_executor();
    asio::co_spawn(executor, serve(std::move(socket)), asio::detached);
  }
}

Task<void> NodeAgent::State::serve(net::Socket socket) {
  auto self = shared_from_this();
  ErrorCode ignored;
  auto remote = socket.remote_endpoint(ignored);
  std::string const peer = remote.address().to_string() + ":" + std::to_string(remote.port());
  socket.set_option(net::tcp::no_delay(true), ignored);
  if (!tls) {
    co_await tunnel(socket, peer);
    co_return;
  }
  TlsStream stream(std::move(socket), *tls);
  auto& io = static_cast<asio::io_context&>(stream.get_executor().context());
  net::Deadline watchdog(io, [&stream] { closeSocket(stream.next_layer()); });
  watchdog.expireAfter(kSetupTimeout);
  auto [ec] = co_await stream.async_handshake(ssl::stream_base::server, kUseTuple);
  watchdog.stop();
  if (ec) {
    telemetry::logInfo("node: TLS handshake with {} failed: {}", peer, ec.message());
    closeSocket(stream.next_layer());
    co_return;
  }
  co_await tunnel(stream, peer);
}

template <class Stream>
Task<void> NodeAgent::State::tunnel(Stream& client, std::string peer) {
  auto& io = static_cast<asio::io_context&>(client.get_executor().context());
  net::Socket upstream(client.get_executor());
  std::uint64_t id = 0;
  {
    std::lock_guard lock(mutex);
    id = next_id++;
    open_tunnels.emplace(id, OpenTunnel{client.get_executor(), &lowestLayer(client), &upstream});
  }
  struct Unregister {
    State& state;
    std::uint64_t id;
    ~Unregister() {
      std::lock_guard lock(state.mutex);
      state.open_tunnels.erase(id);
    }
  } unregister{*this, id};

  net::Deadline watchdog(io, [&client, &upstream] {
    closeSocket(lowestLayer(client));
    closeSocket(upstream);
  });
  watchdog.expireAfter(kSetupTimeout);

  // The CONNECT head.
  std::string head;
  std::size_t end = std::string::npos;
  std::array<char, 2048> chunk;
  while ((end = head.find("\r\n\r\n")) == std::string::npos) {
    if (head.size() > kMaxRequestHead) {
      co_await refuse(client, answer(431, "Request Header Fields Too Large"));
      co_return;
    }
    auto [ec, n] = co_await client.async_read_some(asio::buffer(chunk), kUseTuple);
    if (ec) co_return;
    head.append(chunk.data(), n);
  }
  if (end + 4 > kMaxRequestHead) {  // it arrived whole, but too long
    co_await refuse(client, answer(431, "Request Header Fields Too Large"));
    co_return;
  }
  std::string const early = head.substr(end + 4);  // bytes the client sent after the head
  head.resize(end + 2);
  auto request = parseHead(head);
  if (!request) {
    co_await refuse(client, answer(400, "Bad Request"));
    co_return;
  }
  if (request->method != "CONNECT") {
    co_await refuse(client, answer(405, "Method Not Allowed", "Allow: CONNECT\r\n"));
    co_return;
  }
  if (!tokenMatches(request->authorization)) {
    telemetry::logWarn("node: {} was refused: wrong or missing token", peer);
    co_await refuse(client, answer(407, "Proxy Authentication Required",
                                   "Proxy-Authenticate: Bearer realm=\"llmux node\"\r\n"));
    co_return;
  }

  // The upstream, from the node's own address.
  std::string const target = request->host + ":" + std::to_string(request->port);
  auto endpoints = co_await resolver.resolve(request->host, request->port,
                                             MonoClock::now() + kSetupTimeout);
  std::string failure;
  if (!endpoints) {
    failure = endpoints.error().message;
  } else {
    failure = "no address";
    for (auto const& endpoint : *endpoints) {
      ErrorCode ec;
      upstream.close(ec);
      upstream.open(endpoint.protocol(), ec);
      if (!ec && source) upstream.bind(net::tcp::endpoint(*source, 0), ec);
      if (ec) {
        failure = ec.message();
        continue;
      }
      auto [connect_error] = co_await upstream.async_connect(endpoint, kUseTuple);
      if (!connect_error) {
        failure.clear();
        break;
      }
      failure = connect_error.message();
    }
  }
  if (!failure.empty()) {
    telemetry::logInfo("node: {} -> {}: cannot connect: {}", peer, target, failure);
    co_await refuse(client, answer(502, "Bad Gateway"));
    co_return;
  }
  ErrorCode ignored;
  upstream.set_option(net::tcp::no_delay(true), ignored);
  if (!co_await writeAll(client, "HTTP/1.1 200 Connection Established\r\n\r\n")) co_return;
  if (!early.empty() && !co_await writeAll(upstream, early)) co_return;
  watchdog.stop();

  // Both directions until either ends; then both sockets close, which ends the other.
  MonoTime const started = MonoClock::now();
  net::Timer down_done(client.get_executor(), MonoTime::max());
  bool down_finished = false;
  std::uint64_t down_bytes = 0;
  asio::co_spawn(client.get_executor(), pump(upstream, client),
                 [&](std::exception_ptr, std::uint64_t bytes) {
                   down_bytes = bytes;
                   down_finished = true;
                   closeSocket(lowestLayer(client));
                   closeSocket(upstream);
                   down_done.cancel();
                 });
  std::uint64_t const up_bytes = co_await pump(client, upstream);
  closeSocket(lowestLayer(client));
  closeSocket(upstream);
  while (!down_finished) {
    down_done.expires_at(MonoTime::max());
    co_await down_done.async_wait(kUseTuple);
  }
  telemetry::logInfo("node: {} -> {}: {} bytes up, {} down, {} ms", peer, target, up_bytes,
                     down_bytes, std::chrono::duration_cast<Millis>(MonoClock::now() - started).count());
}

NodeAgent::NodeAgent(std::shared_ptr<State> state) : state_(std::move(state)) {}

NodeAgent::~NodeAgent() { stop(); }

Result<std::unique_ptr<NodeAgent>> NodeAgent::create(net::WorkerPool& workers, NodeOptions options) {
  if (options.token.size() < 16) {
    return makeError(ErrorKind::InvalidRequest, "the node's token must be at least 16 characters");
  }
  if (!secretProblem(options.token).empty()) {
    return makeError(ErrorKind::InvalidRequest, "the node's token contains a control character");
  }
  auto state = std::make_shared<State>(workers, std::move(options));
  if (!state->options.source_address.empty()) {
    ErrorCode ec;
    state->source = asio::ip::make_address(state->options.source_address, ec);
    if (ec) {
      return makeError(ErrorKind::InvalidRequest,
                       "--source-address: not an IP address: " + state->options.source_address);
    }
  }
  bool const cert = !state->options.tls_cert_file.empty();
  bool const key = !state->options.tls_key_file.empty();
  if (cert != key) {
    return makeError(ErrorKind::InvalidRequest, "--tls-cert and --tls-key go together");
  }
  if (cert) {
    auto context = std::make_unique<ssl::context>(ssl::context::tls_server);
    context->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                         ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1);
    ErrorCode ec;
    context->use_certificate_chain_file(state->options.tls_cert_file, ec);
    if (!ec) context->use_private_key_file(state->options.tls_key_file, ssl::context::pem, ec);
    if (ec) {
      return makeError(ErrorKind::InvalidRequest, "cannot load the TLS certificate or key: " + ec.message());
    }
    state->tls = std::move(context);
  }
  return std::unique_ptr<NodeAgent>(new NodeAgent(std::move(state)));
}

Result<std::uint16_t> NodeAgent::listen(net::HostPort const& address) {
  auto& io = state_->workers.context(0);
  ErrorCode ec;
  auto ip = asio::ip::make_address(address.host == "localhost" ? "127.0.0.1" : address.host, ec);
  if (ec) return makeError(ErrorKind::InvalidRequest, "--listen: not an IP address: " + address.host);
  net::tcp::endpoint endpoint(ip, address.port);
  auto acceptor = std::make_unique<net::Acceptor>(io.get_executor());
  acceptor->open(endpoint.protocol(), ec);
  if (!ec) acceptor->set_option(net::tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor->bind(endpoint, ec);
  if (!ec) acceptor->listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return makeError(ErrorKind::Internal, "cannot listen on " + address.host + ":" +
                                              std::to_string(address.port) + ": " + ec.message());
  }
  std::uint16_t const port = acceptor->local_endpoint().port();
  state_->acceptor = std::move(acceptor);
  asio::co_spawn(io, state_->acceptLoop(), asio::detached);
  return port;
}

void NodeAgent::stop() {
  if (state_->stopping.exchange(true)) return;
  if (state_->acceptor) {
    asio::post(state_->acceptor->get_executor(), [state = state_] {
      ErrorCode ignored;
      state->acceptor->close(ignored);
    });
  }
  std::lock_guard lock(state_->mutex);
  for (auto const& [id, tunnel] : state_->open_tunnels) {
    asio::post(tunnel.executor, [state = state_, id = id] {
      std::lock_guard lock(state->mutex);
      auto it = state->open_tunnels.find(id);
      if (it == state->open_tunnels.end()) return;  // it ended meanwhile
      closeSocket(*it->second.client);
      closeSocket(*it->second.upstream);
    });
  }
}

}  // namespace llmux::node
