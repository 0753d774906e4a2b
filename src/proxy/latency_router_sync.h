#pragma once

// Latency learning's verdicts reach the router's score (factor 9, routing/scoring.h) from one
// place, whoever changed them: a race, an expiry, an operator's DELETE, or the entries kept in
// the state store at start. Each change then goes on to the next sink (the store's writer).
#include "racing/latency_memory.h"
#include "routing/router_state.h"

namespace llmux::proxy {

class LatencyRouterSync final : public racing::LatencySink {
 public:
  /// Becomes `memory`'s sink, passing every change on to `next` (nullable), and marks in the
  /// router what `memory` holds already (entries loaded at start).
  LatencyRouterSync(racing::LatencyMemory& memory, routing::RouterState& router,
                    racing::LatencySink* next, WallTime now)
      : memory_(memory), router_(router), next_(next) {
    for (auto const& entry : memory.list(now)) mark(entry.combination, entry.degraded);
    memory_.setSink(this);
  }
  ~LatencyRouterSync() override { memory_.setSink(next_); }
  LatencyRouterSync(LatencyRouterSync const&) = delete;
  LatencyRouterSync& operator=(LatencyRouterSync const&) = delete;

  // Called under the memory's lock; the router's own lock is taken inside (never the reverse).
  void latencySaved(racing::LatencyMemory::Entry const& entry) override {
    mark(entry.combination, entry.degraded);
    if (next_) next_->latencySaved(entry);
  }
  void latencyRemoved(std::string const& id, racing::Combination const& combination) override {
    mark(combination, false);
    if (next_) next_->latencyRemoved(id, combination);
  }
  void latencyAdopted(racing::Combination const& combination, bool degraded) override {
    mark(combination, degraded);
  }

 private:
  /// The router's penalty is per (key, model): a task class's verdict sets it for all of them.
  void mark(racing::Combination const& combination, bool degraded) {
    router_.setLatencyDegraded(combination.key_id, combination.upstream_model, degraded);
  }

  racing::LatencyMemory& memory_;
  routing::RouterState& router_;
  racing::LatencySink* next_;
};

}  // namespace llmux::proxy
