#pragma once

// What a request's cost preference makes of a race (docs/racing.md): how many shadows, and how
// long the primary may take to its first content before they go. Pure.

#include <optional>
#include <string_view>

#include "config/settings.h"
#include "core/clock.h"
#include "protocol/reasoning_ask.h"

namespace llmux::racing {

using config::CostPreference;

/// The preference a request races with: its `X-Cost-Preference` header, else its gateway key's,
/// else the global one. A header value that names no preference counts as `balanced` (a typo must
/// not fall through to a costlier setting); the key's and the global one are checked at load.
CostPreference effectivePreference(std::optional<std::string_view> header,
                                   std::optional<CostPreference> gateway_key,
                                   CostPreference global);

/// The race a preference allows.
struct RacePolicy {
  int max_shadows = 1;
  Millis stream_floor{8'000};       ///< the least a stream's primary waits for its first content
  Millis non_stream_floor{10'000};  ///< the least a whole answer's primary is waited for
  /// Shadows only among candidates priced at most half the primary's; none such: no race.
  bool cheaper_shadows_only = false;
};

RacePolicy policyFor(CostPreference preference);

/// A stream's floor raised for a request that asks the model to think (a model thinking quietly
/// is not slow): low 16 s, medium 24 s, high 30 s; never lowered below `floor`.
Millis streamFloorForReasoning(Millis floor, protocol::ReasoningTier tier);

/// The bounds a threshold is clamped to: the floor, cut to the ceiling (the channel's own
/// first-token or first-byte timeout: a primary waited for past it has failed anyway).
struct ThresholdBounds {
  Millis floor{0};
  Millis ceiling{0};
};
ThresholdBounds boundsFor(Millis floor, Millis ceiling);

}  // namespace llmux::racing
