#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "core/clock.h"

namespace llmux::http {
class HttpServer;
}

namespace llmux::app {

/// How a shutdown unfolds (`server.lame_duck_ms`, `server.drain_timeout_ms`).
struct ShutdownTimes {
  Millis lame_duck{0};      ///< SIGTERM: still accepting, answers carry Connection: close
  Millis drain_timeout{0};  ///< then: requests and uploads in progress may finish
};

/// Blocks the calling thread until SIGTERM or SIGINT (returned), calling `on_reload` (if set) for
/// each SIGHUP, else logging that it is ignored.
int waitForStopSignal(std::function<void()> const& on_reload = {});

/// Blocks the calling thread until SIGTERM or SIGINT, calling `on_reload` (if set) for each
/// SIGHUP. Then drains: `draining` is set (readiness fails); on SIGTERM the servers keep
/// accepting for the lame-duck period with every answer closing its connection; then they stop
/// accepting and close idle connections, requests and uploads in progress get up to
/// `drain_timeout` to finish, and whatever is left is cancelled (upstream connections closed,
/// streams ended with an error event, requests logged).
void serveUntilShutdown(std::vector<http::HttpServer*> const& servers, ShutdownTimes const& times,
                        std::function<void()> const& on_reload, std::atomic<bool>& draining);

}  // namespace llmux::app
