#pragma once

#include <atomic>
#include <functional>
#include <vector>

#include "core/clock.h"

namespace llmux::http {
class HttpServer;
}

namespace llmux::app {

/// Blocks the calling thread until SIGTERM or SIGINT, calling `on_reload` (if set) for each
/// SIGHUP. Then drains: `draining` is set (readiness fails), the servers stop accepting and close
/// idle connections, requests in flight get up to `drain_timeout` to finish, and whatever is left
/// is cancelled (upstream connections closed, streams ended with an error event, requests logged).
void serveUntilShutdown(std::vector<http::HttpServer*> const& servers, Millis drain_timeout,
                        std::function<void()> const& on_reload, std::atomic<bool>& draining);

}  // namespace llmux::app
