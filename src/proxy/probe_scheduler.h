#pragma once

// Scheduled health probes (docs/operations.md#health-probes): every channel with a probe
// `interval` has each (key, model, scenario) probed once per interval plus a random jitter, under
// the global caps (`probes.max_concurrent`: a probe over it waits for its next turn;
// `probes.max_per_hour`: refused, counted and logged). The configuration is read afresh on every
// tick, so a reload applies at once. The loop runs on the first worker's event loop and the
// probes on the workers in turn (each with that worker's connection pool): nothing blocks an I/O
// thread.

#include <memory>
#include <vector>

#include "proxy/probe_book.h"
#include "proxy/services.h"

namespace llmux::http {
class UpstreamPool;
}

namespace llmux::proxy {

class ProbeScheduler {
 public:
  /// `pools`: one per worker, each bound to its worker's event loop.
  ProbeScheduler(GatewayServices& services, ProbeBook& book, std::vector<http::UpstreamPool*> pools);
  ~ProbeScheduler();
  ProbeScheduler(ProbeScheduler const&) = delete;
  ProbeScheduler& operator=(ProbeScheduler const&) = delete;

  /// Starts the loop (the worker loops may start later).
  void start();
  /// From any thread, while the worker loops still run: ends the loop, cancels the probes in
  /// flight and waits (a few seconds at most) until none runs.
  void stop();

 private:
  struct State;
  std::shared_ptr<State> state_;
};

}  // namespace llmux::proxy
