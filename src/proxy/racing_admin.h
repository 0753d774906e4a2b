#pragma once

// The racing part of the admin API (docs/racing.md, "Admin, logs and metrics"): what
// GET /admin/racing and GET /admin/latency-penalties show, and how a PUT /admin/racing body is
// read and applied. AdminHandler serves them.

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"
#include "core/result.h"
#include "racing/latency_memory.h"

namespace llmux::racing {
class RacingState;
}

namespace llmux::proxy {

/// `{"enabled","enabled_source","cost_preference","cost_preference_source",
/// "max_shadows_in_flight","hedge_budget","budget":{"requests_last_minute",
/// "shadows_last_minute"},"shadows_in_flight","counters":{...},"thresholds":[{"family","stage",
/// "samples","p90_ms"}]}`: the switches in effect ("admin" when an operator's, else "config"),
/// the limits of `settings`, and every family x stage ("p90_ms" null while the window has too
/// few samples to be used).
std::string racingJson(racing::RacingState& state, config::RacingSettings const& settings,
                       MonoTime now);

/// What a PUT /admin/racing body asks: per member, absent (unchanged), null (an empty inner
/// optional: back to the configuration's) or a value.
struct RacingChange {
  std::optional<std::optional<bool>> enabled;
  std::optional<std::optional<config::CostPreference>> cost_preference;
};

/// Reads `{"enabled": true|false|null, "cost_preference": "<name>"|null}`; an error (400) naming
/// the member at fault for invalid JSON, a wrong type, an unknown preference or member.
Result<RacingChange> parseRacingChange(std::string_view body);

/// Sets the switches the change names, then has the state's sink keep them.
void applyRacingChange(racing::RacingState& state, RacingChange const& change);

/// `{"latency_penalties":[{"id","key","model","task_class","slow_streak","degraded","updated"}]}`:
/// "key" is the key's label in `settings` (its id, which holds no secret, when no configured
/// key has that id any more), "updated" RFC 3339 UTC.
std::string latencyPenaltiesJson(std::vector<racing::LatencyMemory::Entry> const& entries,
                                 config::Settings const& settings);

}  // namespace llmux::proxy
