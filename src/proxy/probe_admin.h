#pragma once

// POST /admin/probes/run (docs/security.md, docs/operations.md#health-probes): one health probe
// now, answered with its result. The admin token was checked by AdminHandler.

#include <string>
#include <string_view>

#include "core/result.h"
#include "net/task.h"
#include "proxy/request_context.h"
#include "proxy/services.h"

namespace llmux::http {
class UpstreamPool;
}

namespace llmux::proxy {

/// What POST /admin/probes/run asks: `{"channel": "...", "key": "name#0" | 0, "model": "...",
/// "scenario": "..."}`; only the channel is required.
struct ProbeRunAsk {
  std::string channel;
  std::string key;  ///< a label, or an index written as digits ("" = the first key)
  std::string model;
  std::string scenario;
};

/// Reads the body; InvalidRequest saying what is wrong.
Result<ProbeRunAsk> parseProbeRunAsk(std::string_view body);

/// Resolves the target against the request's configuration, takes a slot under the global caps
/// (429 when none: the caps protect the upstream accounts from the admin API too), runs the probe
/// with this worker's `pool` and answers 200 with its result (probeResultJson), pass or fail.
net::Task<void> serveProbeRun(GatewayServices& services, http::UpstreamPool& pool,
                              RequestContext& ctx);

}  // namespace llmux::proxy
