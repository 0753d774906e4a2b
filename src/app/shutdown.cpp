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

/// Connections still open: after beginDrain only those reading or handling a request.
std::size_t openConnections(std::vector<http::HttpServer*> const& servers) {
  std::size_t n = 0;
  for (auto* s : servers) n += s->openConnections();
  return n;
}

/// Polls until no request is handled any more or the deadline passes; true when none is.
bool waitInFlight(std::vector<http::HttpServer*> const& servers, MonoTime deadline) {
  while (inFlight(servers) > 0) {
    if (MonoClock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

/// Polls until no connection is left (uploads in progress included) or the deadline passes;
/// true when drained.
bool waitDrained(std::vector<http::HttpServer*> const& servers, MonoTime deadline) {
  while (openConnections(servers) > 0) {
    if (MonoClock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

}  // namespace

int waitForStopSignal(std::function<void()> const& on_reload) {
  // The signals were blocked in every thread before the workers started (see blockSignals), so
  // sigwait here is the only place they are delivered.
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  int signal_number = 0;
  for (;;) {
    if (sigwait(&set, &signal_number) != 0) continue;
    if (signal_number == SIGHUP) {
      if (on_reload) {
        on_reload();
      } else {
        telemetry::logInfo("SIGHUP ignored: there is no configuration file to reload");
      }
      continue;
    }
    return signal_number;
  }
}

void serveUntilShutdown(std::vector<http::HttpServer*> const& servers, ShutdownTimes const& times,
                        std::function<void()> const& on_reload, std::atomic<bool>& draining) {
  int const signal_number = waitForStopSignal(on_reload);

  // An orchestrator's SIGTERM: readiness fails first and, for the lame-duck period, new
  // connections are still served (with Connection: close) while load balancers take this
  // replica out. SIGINT (a terminal) skips it.
  bool lame_duck = signal_number == SIGTERM && times.lame_duck.count() > 0;
  telemetry::logInfo("{} received: {}draining ({} request(s) in flight, up to {} ms)",
                     signal_number == SIGTERM ? "SIGTERM" : "SIGINT",
                     lame_duck ? "lame duck for " + std::to_string(times.lame_duck.count()) + " ms, then " : "",
                     inFlight(servers), times.drain_timeout.count());
  draining = true;
  if (lame_duck) {
    for (auto* s : servers) s->beginLameDuck();
    std::this_thread::sleep_for(times.lame_duck);
  }
  for (auto* s : servers) s->beginDrain();
  if (waitDrained(servers, MonoClock::now() + times.drain_timeout)) return;
  telemetry::logWarn("drain timeout: cancelling {} request(s) still in flight", inFlight(servers));
  for (auto* s : servers) s->cancelInFlight();
  if (!waitInFlight(servers, MonoClock::now() + std::chrono::seconds(5))) {
    telemetry::logError("{} request(s) did not stop after cancellation", inFlight(servers));
  }
}

}  // namespace llmux::app
