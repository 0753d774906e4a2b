#include "http/server.h"

#include <sys/socket.h>

#include <list>

#include <boost/asio/buffer.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>

#include "core/strings.h"
#include "http/client_watch.h"
#include "http/client_writer.h"
#include "http/message_parsers.h"
#include "net/asio_types.h"
#include "net/deadline.h"
#include "net/worker_pool.h"
#include "telemetry/log.h"

namespace llmux::http {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace bhttp = boost::beast::http;
using net::ErrorCode;
using net::kUseTuple;
using net::Task;
using net::tcp;

namespace {

/// What the worker knows about one open client connection (for drain and cancellation).
struct SessionSlot {
  net::Socket* socket = nullptr;
  Cancellation* cancellation = nullptr;  ///< set while a request is being handled
  bool busy = false;                     ///< a request is being read or handled
};

}  // namespace

// Requests shorter than this never arm a client watch (see ClientWatchSweeper); a client that
// leaves a longer one is noticed within about twice this.
constexpr Millis kClientWatchDelay{20};

struct HttpServer::Worker {
  Worker(asio::io_context& io, RequestHandler& handler, ServerLimits const& limits,
         std::shared_ptr<std::atomic<std::size_t>> in_flight,
         std::shared_ptr<std::atomic<std::size_t>> connections)
      : io(io),
        acceptor(io),
        handler(handler),
        limits(limits),
        in_flight(std::move(in_flight)),
        connections(std::move(connections)) {}

  asio::io_context& io;
  net::Acceptor acceptor;
  RequestHandler& handler;
  ServerLimits const& limits;
  std::shared_ptr<std::atomic<std::size_t>> in_flight;
  std::shared_ptr<std::atomic<std::size_t>> connections;
  std::list<SessionSlot> sessions;  // touched only on this worker's thread
  ClientWatchSweeper watches{io, kClientWatchDelay};
  bool draining = false;
};

namespace {

using Worker = HttpServer::Worker;

/// One client connection: its socket, its read buffer and its watchdog.
struct ClientConnection {
  ClientConnection(asio::io_context& io, net::Socket s)
      : socket(std::move(s)), deadline(io, [this] { closeSocket(); }) {}
  void closeSocket() {
    ErrorCode ignored;
    socket.close(ignored);
  }
  net::Socket socket;
  beast::flat_buffer buffer;
  net::Deadline deadline;
};

Task<bool> writeRaw(ClientConnection& conn, std::string_view bytes, Millis timeout) {
  conn.deadline.expireAfter(timeout);
  auto [ec, n] = co_await asio::async_write(conn.socket, asio::buffer(bytes), kUseTuple);
  conn.deadline.clear();
  co_return !ec;
}

/// Answers a request the server could not read completely, then the connection closes.
Task<void> reject(ClientConnection& conn, Worker& worker, int status, std::string_view path,
                  std::string_view message) {
  PlainAnswer answer = worker.handler.rejection(status, path, message);
  std::string response = "HTTP/1.1 " + std::to_string(status) + " " +
                         std::string(reasonPhrase(status)) + "\r\nContent-Type: " +
                         answer.content_type + "\r\nContent-Length: " +
                         std::to_string(answer.body.size()) + "\r\nConnection: close\r\n\r\n" +
                         answer.body;
  co_await writeRaw(conn, response, worker.limits.write_timeout);
}

/// A malformed request (worth a 400), as opposed to a connection that closed or timed out.
bool isParseError(ErrorCode ec) {
  static auto const& http_category = ErrorCode(bhttp::error::bad_method).category();
  return ec.category() == http_category && ec != bhttp::error::end_of_stream &&
         ec != bhttp::error::partial_message && ec != bhttp::error::need_more;
}

/// Whether the buffer already holds a complete request head (no read, no deadline needed).
bool holdsCompleteHead(beast::flat_buffer const& buffer) {
  auto data = buffer.data();
  std::string_view bytes(static_cast<char const*>(data.data()), data.size());
  return bytes.find("\r\n\r\n") != std::string_view::npos;
}

/// Waits for the first bytes of the next request (keep-alive timeout), so that the head itself
/// can then be held to the header timeout.
Task<bool> awaitNextRequest(ClientConnection& conn, Millis idle) {
  if (conn.buffer.size() > 0) co_return true;
  conn.deadline.expireAfter(idle);
  auto [ec, n] = co_await conn.socket.async_read_some(conn.buffer.prepare(4096), kUseTuple);
  conn.deadline.clear();
  if (ec) co_return false;
  conn.buffer.commit(n);
  co_return true;
}

// Bodies larger than this, with a Content-Length, are read without the HTTP parser.
constexpr std::uint64_t kDirectBodyThreshold = 64 * 1024;

/// Reads a body of `length` bytes into `body`: first what is already buffered, then straight from
/// the socket. False when the client stalls past `timeout` between reads or disconnects.
Task<bool> readBodyDirect(ClientConnection& conn, std::string& body, std::size_t length,
                          Millis timeout) {
  body.resize(length);
  std::size_t have = std::min(length, conn.buffer.size());
  asio::buffer_copy(asio::buffer(body.data(), have), conn.buffer.data());
  conn.buffer.consume(have);
  while (have < length) {
    conn.deadline.expireAfter(timeout);
    auto [ec, n] = co_await conn.socket.async_read_some(
        asio::buffer(body.data() + have, length - have), kUseTuple);
    conn.deadline.clear();
    if (ec) co_return false;
    have += n;
  }
  co_return true;
}

/// Reads one request and answers it. Returns false when the connection must close.
Task<bool> serveOneRequest(ClientConnection& conn, Worker& worker, SessionSlot& slot) {
  ServerLimits const& limits = worker.limits;
  ServerRequest request;
  RequestParser parser(request);
  parser.header_limit(static_cast<std::uint32_t>(limits.max_header_bytes));
  // The body limit is applied once the head is in: a declared size over it gets a 413 in the
  // shape of the route's protocol (Beast would otherwise fail the head read itself).
  parser.body_limit(boost::none);

  if (!holdsCompleteHead(conn.buffer)) conn.deadline.expireAfter(limits.header_timeout);
  auto [head_ec, head_n] = co_await bhttp::async_read_header(conn.socket, conn.buffer, parser, kUseTuple);
  if (head_ec) {
    conn.deadline.clear();
    if (head_ec == bhttp::error::header_limit) {
      // The request line is usually complete by then: its path picks the error shape.
      co_await reject(conn, worker, 431, request.path(), "request header fields too large");
    } else if (isParseError(head_ec)) {
      co_await reject(conn, worker, 400, "", "malformed HTTP request: " + head_ec.message());
    }
    co_return false;
  }
  request.head_received = MonoClock::now();
  std::string path(request.path());

  if (auto length = parser.content_length(); length && *length > limits.max_body_bytes) {
    conn.deadline.clear();
    co_await reject(conn, worker, 413, path,
                    "request body of " + std::to_string(*length) + " bytes exceeds the limit of " +
                        std::to_string(limits.max_body_bytes) + " bytes");
    co_return false;
  }
  parser.body_limit(limits.max_body_bytes);
  if (equalsIgnoreCase(request.headers.get("expect"), "100-continue") && request.version >= 11) {
    if (!co_await writeRaw(conn, "HTTP/1.1 100 Continue\r\n\r\n", limits.write_timeout)) {
      co_return false;
    }
  }
  auto length = parser.content_length();
  if (length && !parser.chunked() && *length > kDirectBodyThreshold) {
    // A large body of known length skips the parser: what came with the head is taken from the
    // buffer, the rest is read straight into the body (one copy, big reads).
    if (!co_await readBodyDirect(conn, request.body, static_cast<std::size_t>(*length),
                                 limits.body_timeout)) {
      co_return false;
    }
  }
  while (!parser.is_done() && request.body.size() < length.value_or(SIZE_MAX)) {
    conn.deadline.expireAfter(limits.body_timeout);
    auto [ec, n] = co_await bhttp::async_read_some(conn.socket, conn.buffer, parser, kUseTuple);
    if (ec == bhttp::error::body_limit) {
      conn.deadline.clear();
      co_await reject(conn, worker, 413, path,
                      "request body exceeds the limit of " + std::to_string(limits.max_body_bytes) +
                          " bytes");
      co_return false;
    }
    if (ec) {
      conn.deadline.clear();
      if (isParseError(ec)) {
        co_await reject(conn, worker, 400, path, "malformed HTTP request body: " + ec.message());
      }
      co_return false;
    }
  }
  conn.deadline.clear();

  request.body_received = MonoClock::now();
  bool keep_alive = parser.keep_alive();
  // A big request left a big buffer behind: give the memory back rather than keep it per
  // idle connection.
  if (conn.buffer.capacity() > 64 * 1024 && conn.buffer.size() == 0) conn.buffer.shrink_to_fit();

  ClientWriter writer(conn.socket, conn.deadline, keep_alive, request.version >= 11,
                      limits.write_timeout, worker.draining);
  slot.cancellation = &writer.cancellation();
  auto watch = std::make_shared<ClientWatch>(conn.socket, writer.cancellation(), request.body_received);
  worker.watches.add(watch);

  worker.in_flight->fetch_add(1, std::memory_order_relaxed);
  co_await worker.handler.handle(request, writer);
  worker.in_flight->fetch_sub(1, std::memory_order_relaxed);

  watch->stop();
  slot.cancellation = nullptr;
  if (!writer.answered()) {
    // A client that left before the first byte is routine: the handler recorded it (499). Any
    // other silence is a bug; the target is logged without its query (it may hold a key).
    if (writer.cancellation().reason() != CancelReason::ClientGone) {
      telemetry::logError("handler returned without answering {} {}", request.method, request.path());
    }
    co_return false;
  }
  co_return writer.reusable() && !writer.cancellation().cancelled();
}

Task<void> runSession(Worker& worker, net::Socket socket) {
  ErrorCode ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  ClientConnection conn(worker.io, std::move(socket));
  worker.sessions.push_back(SessionSlot{&conn.socket, nullptr, false});
  auto slot = std::prev(worker.sessions.end());
  worker.connections->fetch_add(1, std::memory_order_relaxed);

  bool first = true;
  while (!worker.draining) {
    slot->busy = false;
    if (!co_await awaitNextRequest(conn, first ? worker.limits.header_timeout
                                               : worker.limits.keepalive_timeout)) {
      break;
    }
    first = false;
    slot->busy = true;
    if (!co_await serveOneRequest(conn, worker, *slot)) break;
  }

  conn.deadline.stop();
  conn.socket.shutdown(net::Socket::shutdown_send, ignored);
  conn.socket.close(ignored);
  worker.sessions.erase(slot);
  worker.connections->fetch_sub(1, std::memory_order_relaxed);
}

/// Completion of a session coroutine: an escaped exception is a bug; log it, keep serving.
struct SessionDone {
  void operator()(std::exception_ptr error) const {
    if (!error) return;
    try {
      std::rethrow_exception(error);
    } catch (std::exception const& e) {
      telemetry::logError("client session ended by an exception: {}", e.what());
    }
  }
};

Task<void> acceptLoop(Worker& worker) {
  for (;;) {
    auto [ec, socket] = co_await worker.acceptor.async_accept(kUseTuple);
    if (ec) {
      if (!worker.acceptor.is_open() || ec == asio::error::operation_aborted) co_return;
      // Out of file descriptors or a transient error: keep accepting.
      telemetry::logWarn("accept failed: {}", ec.message());
      continue;
    }
    asio::co_spawn(worker.io, runSession(worker, std::move(socket)), SessionDone{});
  }
}

Result<void> openAcceptor(net::Acceptor& acceptor, tcp::endpoint const& endpoint) {
  ErrorCode ec;
  acceptor.open(endpoint.protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) {
    int one = 1;
    if (::setsockopt(acceptor.native_handle(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0) {
      ec = ErrorCode(errno, boost::system::system_category());
    }
  }
  if (!ec) acceptor.bind(endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    return makeError(ErrorKind::Internal, "cannot listen on " + endpoint.address().to_string() +
                                              ":" + std::to_string(endpoint.port()) + ": " +
                                              ec.message());
  }
  return {};
}

}  // namespace

HttpServer::HttpServer(net::WorkerPool& workers, std::vector<RequestHandler*> handlers,
                       ServerLimits limits)
    : workers_(workers),
      handlers_(std::move(handlers)),
      limits_(limits),
      in_flight_(std::make_shared<std::atomic<std::size_t>>(0)),
      connections_(std::make_shared<std::atomic<std::size_t>>(0)) {}

HttpServer::~HttpServer() = default;

Result<std::uint16_t> HttpServer::listen(net::HostPort const& address) {
  ErrorCode ec;
  auto ip = asio::ip::make_address(address.host == "localhost" ? "127.0.0.1" : address.host, ec);
  if (ec) return makeError(ErrorKind::Internal, "listen address must be an IP address: " + address.host);
  tcp::endpoint endpoint(ip, address.port);
  for (unsigned i = 0; i < workers_.size(); ++i) {
    auto worker = std::make_unique<Worker>(workers_.context(i), *handlers_.at(i), limits_, in_flight_,
                                           connections_);
    if (auto r = openAcceptor(worker->acceptor, endpoint); !r) return r.error();
    // Port 0: the first socket picks the port, the others join it.
    if (i == 0) endpoint.port(worker->acceptor.local_endpoint().port());
    per_worker_.push_back(std::move(worker));
  }
  for (auto& worker : per_worker_) {
    asio::co_spawn(worker->io, acceptLoop(*worker), SessionDone{});
  }
  return endpoint.port();
}

namespace {
void drainWorker(Worker& worker) {
  worker.draining = true;
  ErrorCode ignored;
  worker.acceptor.close(ignored);
  // Connections with no request being handled (idle keep-alive, or a request still arriving)
  // close now; the others close after their response.
  for (auto& slot : worker.sessions) {
    if (!slot.cancellation) slot.socket->close(ignored);
  }
}
void cancelWorker(Worker& worker) {
  for (auto& slot : worker.sessions) {
    if (slot.cancellation) slot.cancellation->cancel(CancelReason::Shutdown);
  }
}
}  // namespace

void HttpServer::beginDrain() {
  for (auto& worker : per_worker_) {
    asio::post(worker->io, [w = worker.get()] { drainWorker(*w); });
  }
}

void HttpServer::cancelInFlight() {
  for (auto& worker : per_worker_) {
    asio::post(worker->io, [w = worker.get()] { cancelWorker(*w); });
  }
}

}  // namespace llmux::http
