#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "http/body_budget.h"
#include "http/request_handler.h"
#include "net/listen_address.h"

namespace llmux::net {
class WorkerPool;
}

namespace llmux::http {

/// Limits that protect the server from slow, oversized and hostile clients (docs/security.md).
struct ServerLimits {
  std::size_t max_body_bytes = 32u << 20;
  std::size_t max_header_bytes = 64u << 10;
  std::size_t max_header_count = 100;       ///< more header fields: 431
  std::size_t max_connections = 10'000;     ///< open client connections; more get a 503
  /// Request body bytes held in memory by the whole process; a body that does not fit: 503.
  std::size_t max_buffered_body_bytes = 1u << 30;
  /// A body must keep at least this average rate (bytes per second) once `body_rate_grace` has
  /// passed since its head (0: no minimum): a client trickling a byte a minute is cut.
  std::size_t body_min_rate = 1024;
  Millis body_rate_grace{10'000};
  Millis header_timeout{30'000};
  Millis body_timeout{60'000};  ///< between two reads of a body
  Millis keepalive_timeout{75'000};
  Millis write_timeout{120'000};  ///< one write to a client that does not read
};

/// HTTP/1.1 server: keep-alive, chunked request bodies, `Expect: 100-continue`, body and head
/// limits, read timeouts. Every worker thread accepts on its own SO_REUSEPORT socket, so the
/// kernel spreads connections over the cores and a connection never leaves its thread.
///
/// Nothing is buffered for a request its handler refuses on the head (RequestHandler::screenHead:
/// no 100 Continue, no body read); bodies grow as their bytes arrive, within a process-wide
/// budget; connections are capped; accept errors (out of descriptors) back off.
class HttpServer {
 public:
  /// `handlers[i]` serves the connections of worker i (one handler per worker, so a handler can
  /// own per-thread state such as its upstream connection pool).
  /// `listener` tags every request this server reads (ServerRequest::listener), so handlers
  /// shared by several servers know which address a request came to.
  HttpServer(net::WorkerPool& workers, std::vector<RequestHandler*> handlers, ServerLimits limits,
             unsigned listener = 0);
  ~HttpServer();

  /// Binds every worker's listening socket to `address` (port 0 picks a free port, the same for
  /// all workers) and starts accepting. Returns the bound port.
  Result<std::uint16_t> listen(net::HostPort const& address);

  /// Keeps accepting and serving, but every answer from now on carries `Connection: close`
  /// (a load balancer still sending traffic meanwhile is served; clients reconnect elsewhere).
  /// Thread-safe.
  void beginLameDuck();
  /// Stops accepting, closes idle keep-alive connections, and lets busy ones (a request being
  /// read or handled) finish and close after their answer. Thread-safe.
  void beginDrain();
  /// Cancels the requests still in flight (reason Shutdown). Thread-safe.
  void cancelInFlight();
  /// Requests currently being handled, over all workers.
  std::size_t inFlight() const { return in_flight_->load(); }
  /// Open client connections, over all workers.
  std::size_t openConnections() const { return connections_->load(); }

  struct Worker;  // per-thread state, defined in server.cpp

 private:
  net::WorkerPool& workers_;
  std::vector<RequestHandler*> handlers_;
  ServerLimits limits_;
  unsigned listener_;
  std::vector<std::unique_ptr<Worker>> per_worker_;
  std::shared_ptr<std::atomic<std::size_t>> in_flight_;
  std::shared_ptr<std::atomic<std::size_t>> connections_;
  std::shared_ptr<BodyBudget> body_budget_;
};

}  // namespace llmux::http
