#pragma once

#include "alerts/evaluator.h"
#include "proxy/services.h"

namespace llmux::proxy {

/// What the alert loop judges, read from the gateway's own counts and state (no I/O, no lock on
/// a request's path held for long: registry snapshots, the breakers' list, the sinks' stats).
/// A model is down when every channel serving it has a breaker that is not closed. Gateway-key
/// budgets are read from this process's windows, or left for the loop to read in Redis.
alerts::Observation observeGateway(GatewayServices& services);

}  // namespace llmux::proxy
