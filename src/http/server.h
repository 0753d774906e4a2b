#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "http/request_handler.h"
#include "net/listen_address.h"

namespace llmux::net {
class WorkerPool;
}

namespace llmux::http {

/// Limits that protect the server from slow and oversized clients.
struct ServerLimits {
  std::size_t max_body_bytes = 32u << 20;
  std::size_t max_header_bytes = 64u << 10;
  Millis header_timeout{30'000};
  Millis body_timeout{60'000};
  Millis keepalive_timeout{75'000};
  Millis write_timeout{120'000};  ///< one write to a client that does not read
};

/// HTTP/1.1 server: keep-alive, chunked request bodies, `Expect: 100-continue`, body and head
/// limits, read timeouts. Every worker thread accepts on its own SO_REUSEPORT socket, so the
/// kernel spreads connections over the cores and a connection never leaves its thread.
class HttpServer {
 public:
  /// `handlers[i]` serves the connections of worker i (one handler per worker, so a handler can
  /// own per-thread state such as its upstream connection pool).
  HttpServer(net::WorkerPool& workers, std::vector<RequestHandler*> handlers, ServerLimits limits);
  ~HttpServer();

  /// Binds every worker's listening socket to `address` (port 0 picks a free port, the same for
  /// all workers) and starts accepting. Returns the bound port.
  Result<std::uint16_t> listen(net::HostPort const& address);

  /// Stops accepting, closes idle keep-alive connections, and asks busy ones to close after their
  /// current response. Thread-safe.
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
  std::vector<std::unique_ptr<Worker>> per_worker_;
  std::shared_ptr<std::atomic<std::size_t>> in_flight_;
  std::shared_ptr<std::atomic<std::size_t>> connections_;
};

}  // namespace llmux::http
