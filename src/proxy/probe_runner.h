#pragma once

// Runs one health probe (docs/operations.md#health-probes): one (channel, key, model) and a
// scenario, not routed, sent through the same upstream request path as real traffic (request
// building with the channel's headers, preset, auth, row paths and exit; the worker's connection
// pool; the attempt's clocks), then judged; a pass lifts the key's pauses, its freezes that are
// not `forever`, and closes the (channel, model) breakers.

#include <memory>
#include <string>
#include <string_view>

#include "core/result.h"
#include "net/task.h"
#include "proxy/probe_book.h"
#include "proxy/probe_scenario.h"
#include "proxy/services.h"

namespace llmux::http {
class UpstreamPool;
class Cancellation;
}  // namespace llmux::http

namespace llmux::proxy {

/// What a probe aims at, resolved against one configuration.
struct ProbeTarget {
  std::size_t channel = 0;  ///< index into Settings::channels
  std::size_t key = 0;      ///< index into the channel's keys
  std::string model;        ///< a model the channel serves, as clients name it
  ProbeScenario scenario;
};

/// Resolves a probe's names: `key` is a label ("name#0", or a named key's label) or an index;
/// `model` "" takes the channel's probe models' first (else its first model); `scenario` ""
/// takes the channel's first probe scenario (else chat). Errors (InvalidRequest) say which name
/// is unknown.
Result<ProbeTarget> resolveProbeTarget(config::Settings const& settings, std::string_view channel,
                                       std::string_view key, std::string_view model,
                                       std::string_view scenario);

/// Runs `target` on the calling worker with its `pool`, against the pinned `catalog`; applies a
/// pass's effects and records the result in `book` (the caller holds an admitted slot).
/// `cancellation` stops it at once (shutdown).
net::Task<ProbeResult> runProbe(GatewayServices& services, http::UpstreamPool& pool,
                                ProbeBook& book, std::shared_ptr<const routing::Catalog> catalog,
                                ProbeTarget target, bool scheduled,
                                http::Cancellation& cancellation);

}  // namespace llmux::proxy
