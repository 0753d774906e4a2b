#pragma once

// What the gateway does when an attempt cannot get through its proxy or node (docs/egress.md):
// counted per proxy, and a refusal of the gateway's credentials logged once per proxy (it is the
// operator's to fix, and every request through it would repeat it). Internal to the proxy module.
#include "core/egress.h"
#include "core/error.h"

namespace llmux::telemetry {
class MetricsRegistry;
}

namespace llmux::proxy {

/// Counts `error` (a failed connect through `via`) and logs a credentials refusal the first
/// time `via` gives one.
void noteExitFailure(telemetry::MetricsRegistry& metrics, Egress const& via, Error const& error);

/// The error of an HTTP proxy answering a request it was to forward with a 407.
Error proxyAuthRejectedAnswer(Egress const& via);

}  // namespace llmux::proxy
