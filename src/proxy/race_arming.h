#pragma once

// Whether a request races (docs/racing.md, "When a request is raced") and with which policy.
// Internal to the proxy module.
#include <optional>

#include "config/settings.h"
#include "proxy/request_context.h"
#include "racing/policy.h"

namespace llmux::racing {
class RacingState;
}

namespace llmux::proxy {

/// An armed request's race: its preference's policy, and whether the quality gate applies.
struct RaceArming {
  config::CostPreference preference = config::CostPreference::Balanced;
  racing::RacePolicy policy;
  bool tools = false;  ///< the request offers tools: pseudo tool-call markup never wins
  /// What learning keys by besides the route: "tools", "reasoning" or "chat".
  std::string_view task_class;
};

/// The request's race, or nullopt for the sequential path: the global switch is off, the route is
/// not one of the four chat protocols' generate routes (token counts are not raced), a channel is
/// pinned (`X-Channel`, `channel/model`), or the request carries images. Counts an armed request
/// in the hedge budget's denominator and the counters.
std::optional<RaceArming> armRace(racing::RacingState& racing, RequestContext const& ctx);

/// Whether `channel` may race (as a primary or a shadow) once racing is on.
inline bool channelRaces(config::Channel const& channel) {
  return channel.racing_enabled.value_or(true);
}

}  // namespace llmux::proxy
