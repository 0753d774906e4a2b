#pragma once

#include "alerts/evaluator.h"
#include "proxy/services.h"

namespace llmux::proxy {

/// What the alert loop judges, read from the gateway's own counts and state (no I/O, no lock on
/// a request's path held for long: registry snapshots, the breakers' list, the sinks' stats).
/// A model is down when every channel serving it has a breaker that is not closed. Budgets are
/// not read (nullopt): their alert stays unjudged.
alerts::Observation observeGateway(GatewayServices& services);

}  // namespace llmux::proxy
