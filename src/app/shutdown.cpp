#include "app/shutdown.h"

#include <signal.h>

#include <thread>

#include "http/server.h"
#include "telemetry/log.h"

namespace llmux::app {
namespace {

std::size_t inFlight(std::vector<http::HttpServer*> const& servers) {
  std::size_t n = 0;
  for (auto* s : servers) n += s->inFlight();
  return n;
}

/// Polls until nothing is in flight or the deadline passes; true when drained.
bool waitDrained(std::vector<http::HttpServer*> const& servers, MonoTime deadline) {
  while (inFlight(servers) > 0) {
    if (MonoClock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace

void serveUntilShutdown(std::vector<http::HttpServer*> const& servers, Millis drain_timeout,
                        std::function<void()> const& on_reload, std::atomic<bool>& draining) {
  // The signals were blocked in every thread before the workers started (see blockSignals), so
  // sigwait here is the only place they are delivered.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  for (;;) {
    int signal_number = 0;
    if (sigwait(&set, &signal_number) != 0) continue;
    if (signal_number == SIGHUP) {
      if (on_reload) {
        on_reload();
      } else {
        telemetry::logInfo("SIGHUP ignored: there is no configuration file to reload");
      }
      continue;
    }
    telemetry::logInfo("{} received: draining ({} request(s) in flight, up to {} ms)",
                       signal_number == SIGTERM ? "SIGTERM" : "SIGINT", inFlight(servers),
                       drain_timeout.count());
    break;
  }

  draining = true;
  for (auto* s : servers) s->beginDrain();
  if (waitDrained(servers, MonoClock::now() + drain_timeout)) return;
  telemetry::logWarn("drain timeout: cancelling {} request(s) still in flight", inFlight(servers));
  for (auto* s : servers) s->cancelInFlight();
  if (!waitDrained(servers, MonoClock::now() + std::chrono::seconds(5))) {
    telemetry::logError("{} request(s) did not stop after cancellation", inFlight(servers));
  }
}

}  // namespace llmux::app
