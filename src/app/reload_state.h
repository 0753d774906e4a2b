#pragma once

// What a reload does to runtime state (docs/configuration.md, "Reloads"): state keyed by an
// object that still exists is kept — key pauses and freezes by key id, router statistics,
// affinity and latency learning by key, bucket levels, gateway-key windows, pooled connections
// by route — and what was learned about a channel's route is dropped when the route changed.
namespace llmux::config {
struct Settings;
}
namespace llmux::routing {
class BreakerBoard;
}

namespace llmux::app {

/// Resets the breakers of every channel of `after` whose route (config::channelRoute: URLs,
/// paths, media endpoints, CA bundle, each key's exit) differs from its route in `before`; logs
/// each one.
void forgetChangedRoutes(config::Settings const& before, config::Settings const& after,
                         routing::BreakerBoard& breakers);

}  // namespace llmux::app
