#include "http/server.h"

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>

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
         std::shared_ptr<std::atomic<std::size_t>> connections, BodyBudget& body_budget,
         unsigned listener)
      : io(io),
        acceptor(io),
        handler(handler),
        limits(limits),
        in_flight(std::move(in_flight)),
        connections(std::move(connections)),
        body_budget(body_budget),
        listener(listener),
        reserve_fd(::open("/dev/null", O_RDONLY | O_CLOEXEC)) {}
  ~Worker() {
    if (reserve_fd >= 0) ::close(reserve_fd);
  }

  asio::io_context& io;
  net::Acceptor acceptor;
  RequestHandler& handler;
  ServerLimits const& limits;
  std::shared_ptr<std::atomic<std::size_t>> in_flight;
  std::shared_ptr<std::atomic<std::size_t>> connections;
  BodyBudget& body_budget;
  unsigned listener;  ///< tags every request (ServerRequest::listener)
  /// A descriptor kept in reserve: out of descriptors, it is given up to accept one connection
  /// and tell it to come back (503), instead of leaving connections in the backlog unanswered.
  int reserve_fd;
  std::list<SessionSlot> sessions;  // touched only on this worker's thread
  ClientWatchSweeper watches{io, kClientWatchDelay};
  bool closing = false;   ///< lame duck and drain: every answer carries Connection: close
  bool draining = false;  ///< no more accepting; connections close after their answer
};

namespace {

using Worker = HttpServer::Worker;

/// One client connection: its socket, its read buffer and its watchdog.
struct ClientConnection {
  ClientConnection(asio::io_context& io, net::Socket s)
      : socket(std::move(s)), deadline(io, [this] { expire(); }) {}
  void closeSocket() {
    ErrorCode ignored;
    socket.close(ignored);
  }
  /// The watchdog: closes the socket, except while a body is read, when it only stops the read
  /// so that the client can still be told why (408).
  void expire() {
    if (!answer_timeouts) return closeSocket();
    timed_out = true;
    ErrorCode ignored;
    socket.cancel(ignored);
  }
  net::Socket socket;
  beast::flat_buffer buffer;
  net::Deadline deadline;
  std::string peer;  ///< the client's IP address
  /// The server answered before reading all the client sent (a refusal, a 413): closing at once
  /// would reset the connection and could destroy the answer before the client reads it.
  bool unread_input = false;
  bool answer_timeouts = false;  ///< reading a body: a timeout is answered 408
  bool timed_out = false;        ///< the watchdog stopped a body read
};

// How long, and how many bytes, a connection closed with unread input is drained first.
constexpr Millis kCloseLinger{1'000};
constexpr std::size_t kCloseLingerBytes = 64 * 1024;

/// Closes the connection: after our last answer went out with unread input pending, the write
/// side is shut and what the client still sends is discarded for a moment (bounded), so the
/// answer reaches it instead of a reset.
Task<void> closeConnection(ClientConnection& conn) {
  ErrorCode ignored;
  conn.socket.shutdown(net::Socket::shutdown_send, ignored);
  if (conn.unread_input && conn.socket.is_open()) {
    conn.deadline.expireAfter(kCloseLinger);
    std::array<char, 2048> sink;
    std::size_t drained = 0;
    while (drained < kCloseLingerBytes) {
      auto [ec, n] = co_await conn.socket.async_read_some(asio::buffer(sink), kUseTuple);
      if (ec) break;
      drained += n;
    }
    conn.deadline.clear();
  }
  conn.deadline.stop();
  conn.socket.close(ignored);
}

Task<bool> writeRaw(ClientConnection& conn, std::string_view bytes, Millis timeout) {
  conn.deadline.expireAfter(timeout);
  auto [ec, n] = co_await asio::async_write(conn.socket, asio::buffer(bytes), kUseTuple);
  conn.deadline.clear();
  co_return !ec;
}

/// Seconds a client is told to wait when the server is over one of its limits.
constexpr std::string_view kOverLimitRetryAfter = "1";

/// The bytes of an answer the server sends on its own, closing the connection.
std::string plainResponse(RequestHandler& handler, int status, std::string_view path,
                          std::string_view message) {
  PlainAnswer answer = handler.rejection(status, path, message);
  std::string response = "HTTP/1.1 " + std::to_string(status) + " " +
                         std::string(reasonPhrase(status)) + "\r\nContent-Type: " +
                         answer.content_type + "\r\nContent-Length: " +
                         std::to_string(answer.body.size()) + "\r\n";
  if (status == 503) response += "Retry-After: " + std::string(kOverLimitRetryAfter) + "\r\n";
  response += "Connection: close\r\n\r\n" + answer.body;
  return response;
}

/// Answers a request the server could not read completely, then the connection closes.
Task<void> reject(ClientConnection& conn, Worker& worker, int status, std::string_view path,
                  std::string_view message) {
  conn.unread_input = true;
  co_await writeRaw(conn, plainResponse(worker.handler, status, path, message),
                    worker.limits.write_timeout);
}

/// When the next body bytes must have arrived: within the gap allowed between two reads, and on
/// schedule for the minimum average rate once the grace period is over.
MonoTime nextBodyDeadline(ServerLimits const& limits, MonoTime body_start, std::size_t received) {
  MonoTime gap = MonoClock::now() + limits.body_timeout;
  if (limits.body_min_rate == 0) return gap;
  auto on_schedule = body_start + limits.body_rate_grace +
                     Millis(static_cast<std::int64_t>((received + 1) * 1000 / limits.body_min_rate));
  return std::min(gap, on_schedule);
}

/// Why a body read was given up (the 408's message).
std::string bodyTimeoutMessage(ServerLimits const& limits) {
  std::string message = "the request body did not arrive in time (a pause over " +
                        std::to_string(limits.body_timeout.count()) + " ms";
  if (limits.body_min_rate > 0) {
    message += ", or slower than " + std::to_string(limits.body_min_rate) + " bytes/s";
  }
  return message + ")";
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

/// What an idle connection's pending read holds for the next request: enough for most heads and
/// small bodies in one read (the parser reads the rest), small enough that 10,000 idle keep-alive
/// connections stay within tens of MiB.
constexpr std::size_t kNextRequestRead = 2048;

/// Waits for the first bytes of the next request (keep-alive timeout), so that the head itself
/// can then be held to the header timeout.
Task<bool> awaitNextRequest(ClientConnection& conn, Millis idle) {
  if (conn.buffer.size() > 0) co_return true;
  conn.deadline.expireAfter(idle);
  auto [ec, n] = co_await conn.socket.async_read_some(conn.buffer.prepare(kNextRequestRead), kUseTuple);
  conn.deadline.clear();
  if (ec) co_return false;
  conn.buffer.commit(n);
  co_return true;
}

// Bodies larger than this, with a Content-Length, are read without the HTTP parser.
constexpr std::uint64_t kDirectBodyThreshold = 64 * 1024;
// The least and the most a direct body read asks for at once: the body grows by what arrives,
// never by what the client declared.
constexpr std::size_t kBodyReadFirst = 16 * 1024;
constexpr std::size_t kBodyReadStep = 256 * 1024;

/// How reading a body ended.
enum class BodyRead { Complete, Broken, OverBudget };

/// Reads a body of `length` bytes into `body`: first what is already buffered, then straight from
/// the socket, growing the body (and its charge against the budget) as bytes arrive.
Task<BodyRead> readBodyDirect(ClientConnection& conn, ServerLimits const& limits,
                              std::string& body, std::size_t length, BodyCharge& charge,
                              MonoTime body_start) {
  std::size_t have = std::min(length, conn.buffer.size());
  if (!charge.growTo(have)) co_return BodyRead::OverBudget;
  body.resize(have);
  asio::buffer_copy(asio::buffer(body.data(), have), conn.buffer.data());
  conn.buffer.consume(have);
  while (have < length) {
    // Room for about as much as has arrived (at least kBodyReadFirst): a client that declares
    // 32 MiB and sends a byte holds kilobytes, a fast upload still takes big reads.
    std::size_t step = std::min({length - have, kBodyReadStep, std::max(have, kBodyReadFirst)});
    if (!charge.growTo(have + step)) co_return BodyRead::OverBudget;
    body.resize(have + step);
    conn.deadline.expireAt(nextBodyDeadline(limits, body_start, have));
    auto [ec, n] = co_await conn.socket.async_read_some(asio::buffer(body.data() + have, step),
                                                        kUseTuple);
    conn.deadline.clear();
    if (ec) co_return BodyRead::Broken;
    have += n;
    body.resize(have);
  }
  co_return BodyRead::Complete;
}

/// Reads the rest of a body through the parser (chunked, or small with a Content-Length).
Task<BodyRead> readBodyParsed(ClientConnection& conn, ServerLimits const& limits,
                              RequestParser& parser, ServerRequest& request, BodyCharge& charge,
                              MonoTime body_start, ErrorCode& failure) {
  auto length = parser.content_length();
  while (!parser.is_done() && request.body.size() < length.value_or(SIZE_MAX)) {
    conn.deadline.expireAt(nextBodyDeadline(limits, body_start, request.body.size()));
    auto [ec, n] = co_await bhttp::async_read_some(conn.socket, conn.buffer, parser, kUseTuple);
    conn.deadline.clear();
    if (!charge.growTo(request.body.size())) co_return BodyRead::OverBudget;
    if (ec) {
      failure = ec;
      co_return BodyRead::Broken;
    }
  }
  co_return BodyRead::Complete;
}

/// The books of a request being handled — the in-flight count, the slot's cancellation (for
/// drain) and the client watch — kept on every path out, exceptions included.
class HandlingRequest {
 public:
  HandlingRequest(Worker& worker, SessionSlot& slot, net::Socket& socket, ClientWriter& writer,
                  MonoTime started)
      : worker_(worker),
        slot_(slot),
        watch_(std::make_shared<ClientWatch>(socket, writer.cancellation(), started)) {
    slot.cancellation = &writer.cancellation();
    worker.watches.add(watch_);
    worker.in_flight->fetch_add(1, std::memory_order_relaxed);
  }
  ~HandlingRequest() {
    worker_.in_flight->fetch_sub(1, std::memory_order_relaxed);
    watch_->stop();
    slot_.cancellation = nullptr;
  }
  HandlingRequest(HandlingRequest const&) = delete;
  HandlingRequest& operator=(HandlingRequest const&) = delete;

 private:
  Worker& worker_;
  SessionSlot& slot_;
  std::shared_ptr<ClientWatch> watch_;
};

/// Reads one request and answers it. Returns false when the connection must close.
Task<bool> serveOneRequest(ClientConnection& conn, Worker& worker, SessionSlot& slot) {
  ServerLimits const& limits = worker.limits;
  ServerRequest request;
  request.listener = worker.listener;
  request.peer = conn.peer;
  RequestParser parser(request, limits.max_header_count);
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
      co_await reject(conn, worker, 431, request.path(), "request header fields too large or too many");
    } else if (isParseError(head_ec)) {
      co_await reject(conn, worker, 400, "", "malformed HTTP request: " + head_ec.message());
    }
    co_return false;
  }
  request.head_received = MonoClock::now();
  std::string path(request.path());

  // Authentication (and the route) first: a refused request gets no 100 Continue and no byte of
  // its body is read or buffered; it is answered and the connection closes.
  bool refused = !worker.handler.screenHead(request);
  // The route's own limit when the handler set one (uploads), else the server's.
  std::size_t const body_limit = request.body_limit != 0 ? request.body_limit : limits.max_body_bytes;
  bool keep_alive = parser.keep_alive();
  auto length = parser.content_length();
  if (refused) {
    // Only a request that declared no body leaves the connection in a known state.
    conn.unread_input = parser.chunked() || length.value_or(0) > 0;
    keep_alive = keep_alive && !conn.unread_input;
  } else {
    if (length && *length > body_limit) {
      conn.deadline.clear();
      co_await reject(conn, worker, 413, path,
                      "request body of " + std::to_string(*length) + " bytes exceeds the limit of " +
                          std::to_string(body_limit) + " bytes");
      co_return false;
    }
    parser.body_limit(body_limit);
    if (equalsIgnoreCase(request.headers.get("expect"), "100-continue") && request.version >= 11) {
      if (!co_await writeRaw(conn, "HTTP/1.1 100 Continue\r\n\r\n", limits.write_timeout)) {
        co_return false;
      }
    }
  }

  BodyCharge charge(worker.body_budget);
  if (!refused) {
    MonoTime body_start = MonoClock::now();
    BodyRead read = BodyRead::Complete;
    ErrorCode failure;
    conn.answer_timeouts = true;
    if (length && !parser.chunked() && *length > kDirectBodyThreshold) {
      // A large body of known length skips the parser: what came with the head is taken from
      // the buffer, the rest is read straight into the body (one copy, big reads).
      read = co_await readBodyDirect(conn, limits, request.body, static_cast<std::size_t>(*length),
                                     charge, body_start);
    } else {
      read = co_await readBodyParsed(conn, limits, parser, request, charge, body_start, failure);
    }
    conn.deadline.clear();
    conn.answer_timeouts = false;
    switch (read) {
      case BodyRead::Complete: break;
      case BodyRead::OverBudget:
        co_await reject(conn, worker, 503, path,
                        "the gateway is holding too many request bodies; retry shortly");
        co_return false;
      case BodyRead::Broken:
        if (conn.timed_out) {
          // A pause longer than body_timeout_ms, or an upload slower than body_min_rate.
          co_await reject(conn, worker, 408, path, bodyTimeoutMessage(limits));
        } else if (failure == bhttp::error::body_limit) {
          co_await reject(conn, worker, 413, path,
                          "request body exceeds the limit of " + std::to_string(body_limit) + " bytes");
        } else if (isParseError(failure)) {
          co_await reject(conn, worker, 400, path, "malformed HTTP request body: " + failure.message());
        }
        co_return false;
    }
  }

  request.body_received = MonoClock::now();
  // The request is ours now (head and body copied out): its read buffer goes back, unless the
  // client already sent the next one. A stream held for minutes, or a big request's buffer,
  // then costs no buffer memory (one allocation per request instead: about 100 ns).
  if (conn.buffer.size() == 0) conn.buffer.shrink_to_fit();

  ClientWriter writer(conn.socket, conn.deadline, keep_alive, request.version >= 11,
                      limits.write_timeout, worker.closing);
  {
    HandlingRequest handling(worker, slot, conn.socket, writer, request.body_received);
    // Caught here rather than in a wrapper coroutine, whose frame every open stream would keep.
    bool handler_threw = false;
    try {
      co_await worker.handler.handle(request, writer);
    } catch (std::exception const& e) {
      telemetry::logError("request handler failed on {} {}: {}", request.method, request.path(),
                          e.what());
      handler_threw = true;
    }
    if (handler_threw) {
      // The handler failed with an exception (a bug): the client still gets an answer.
      if (!writer.headSent()) {
        PlainAnswer answer = worker.handler.rejection(500, path, "internal error in the gateway");
        HeaderList headers;
        headers.add("Content-Type", answer.content_type);
        co_await writer.send(500, headers, answer.body);
      }
      writer.breakConnection();
    }
  }
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

/// A connection's place in its worker's books (for drain and the connection cap), given back
/// on every path out of the session, exceptions included.
class SessionRegistration {
 public:
  SessionRegistration(Worker& worker, net::Socket& socket) : worker_(worker) {
    worker.sessions.push_back(SessionSlot{&socket, nullptr, false});
    slot_ = std::prev(worker.sessions.end());
  }
  ~SessionRegistration() {
    worker_.sessions.erase(slot_);
    worker_.connections->fetch_sub(1, std::memory_order_relaxed);
  }
  SessionRegistration(SessionRegistration const&) = delete;
  SessionRegistration& operator=(SessionRegistration const&) = delete;
  SessionSlot& slot() { return *slot_; }

 private:
  Worker& worker_;
  std::list<SessionSlot>::iterator slot_;
};

/// `connections` was counted by the accept loop before the session started.
Task<void> runSession(Worker& worker, net::Socket socket) {
  ErrorCode ignored;
  socket.set_option(tcp::no_delay(true), ignored);
  ClientConnection conn(worker.io, std::move(socket));
  if (auto remote = conn.socket.remote_endpoint(ignored); !ignored) {
    conn.peer = remote.address().to_string();
  }
  SessionRegistration registration(worker, conn.socket);
  SessionSlot& slot = registration.slot();

  bool first = true;
  while (!worker.draining) {
    slot.busy = false;
    if (!co_await awaitNextRequest(conn, first ? worker.limits.header_timeout
                                               : worker.limits.keepalive_timeout)) {
      break;
    }
    first = false;
    slot.busy = true;
    if (!co_await serveOneRequest(conn, worker, slot)) break;
  }
  co_await closeConnection(conn);
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

/// Answers a connection the server cannot take (503, Retry-After) and closes it. Costs no
/// buffer beyond a small drain: no request is parsed.
Task<void> turnAway(Worker& worker, net::Socket socket) {
  ClientConnection conn(worker.io, std::move(socket));
  conn.unread_input = true;  // whatever request it sent is never read
  co_await writeRaw(conn,
                    plainResponse(worker.handler, 503, "",
                                  "the gateway is at its connection limit; retry shortly"),
                    kCloseLinger);
  co_await closeConnection(conn);
  worker.connections->fetch_sub(1, std::memory_order_relaxed);
}

/// Waits `delay` on the worker's context (the accept loop's back-off).
Task<void> pauseAccepting(Worker& worker, Millis delay) {
  net::Timer timer(worker.io);
  timer.expires_after(delay);
  co_await timer.async_wait(kUseTuple);
}

bool outOfDescriptors(ErrorCode ec) {
  return ec == asio::error::no_descriptors || ec.value() == ENFILE;
}

// Back-off after an accept error: the error would otherwise repeat at once, in a busy loop.
constexpr Millis kAcceptBackoff{50};

Task<void> acceptLoop(Worker& worker) {
  for (;;) {
    auto [ec, socket] = co_await worker.acceptor.async_accept(kUseTuple);
    if (ec) {
      if (!worker.acceptor.is_open() || ec == asio::error::operation_aborted) co_return;
      if (outOfDescriptors(ec) && worker.reserve_fd >= 0) {
        // Give up the reserve to take one connection and tell it to come back, so clients are
        // answered rather than left in the backlog; then take the reserve again.
        ::close(worker.reserve_fd);
        ErrorCode accept_ec;
        net::Socket turned(worker.io);
        worker.acceptor.accept(turned, accept_ec);
        if (!accept_ec) {
          worker.connections->fetch_add(1, std::memory_order_relaxed);
          asio::co_spawn(worker.io, turnAway(worker, std::move(turned)), SessionDone{});
        }
        worker.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
      }
      telemetry::logWarn("accept failed: {}; pausing {} ms", ec.message(), kAcceptBackoff.count());
      co_await pauseAccepting(worker, kAcceptBackoff);
      continue;
    }
    std::size_t open = worker.connections->fetch_add(1, std::memory_order_relaxed);
    if (open >= worker.limits.max_connections) {
      asio::co_spawn(worker.io, turnAway(worker, std::move(socket)), SessionDone{});
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
                       ServerLimits limits, unsigned listener)
    : workers_(workers),
      handlers_(std::move(handlers)),
      limits_(limits),
      listener_(listener),
      in_flight_(std::make_shared<std::atomic<std::size_t>>(0)),
      connections_(std::make_shared<std::atomic<std::size_t>>(0)),
      body_budget_(std::make_shared<BodyBudget>(limits.max_buffered_body_bytes)) {}

HttpServer::~HttpServer() = default;

Result<std::uint16_t> HttpServer::listen(net::HostPort const& address) {
  ErrorCode ec;
  auto ip = asio::ip::make_address(address.host == "localhost" ? "127.0.0.1" : address.host, ec);
  if (ec) return makeError(ErrorKind::Internal, "listen address must be an IP address: " + address.host);
  tcp::endpoint endpoint(ip, address.port);
  for (unsigned i = 0; i < workers_.size(); ++i) {
    auto worker = std::make_unique<Worker>(workers_.context(i), *handlers_.at(i), limits_, in_flight_,
                                           connections_, *body_budget_, listener_);
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
void lameDuckWorker(Worker& worker) { worker.closing = true; }
void drainWorker(Worker& worker) {
  worker.closing = true;
  worker.draining = true;
  ErrorCode ignored;
  worker.acceptor.close(ignored);
  // Idle keep-alive connections close now; a request being read (an upload in progress) or
  // handled finishes, and its connection closes after the answer.
  for (auto& slot : worker.sessions) {
    if (!slot.busy) slot.socket->close(ignored);
  }
}
void cancelWorker(Worker& worker) {
  for (auto& slot : worker.sessions) {
    if (slot.cancellation) slot.cancellation->cancel(CancelReason::Shutdown);
  }
}
}  // namespace

void HttpServer::beginLameDuck() {
  for (auto& worker : per_worker_) {
    asio::post(worker->io, [w = worker.get()] { lameDuckWorker(*w); });
  }
}

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
