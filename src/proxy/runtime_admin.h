#pragma once

// The admin API's views of runtime state that has no route of its own elsewhere: key pauses
// (GET /admin/pauses), gateway keys' limits and what they use of them (GET /admin/limits), and
// an operator's freeze (POST /admin/freezes).

#include <string>
#include <string_view>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"
#include "core/result.h"
#include "routing/freezes.h"
#include "routing/key_health.h"

namespace llmux::shared_state {
class SharedLimits;
}

namespace llmux::proxy {

/// The configured key's channel and label; a key that left the configuration shows its id as
/// the label and an empty channel (never a secret).
struct KeyName {
  std::string channel;
  std::string label;
};
KeyName keyNameOf(config::Settings const& settings, std::string_view key_id);

/// `{"pauses":[{"channel","key","model"|null,"reason","remaining_s"}]}`.
std::string pausesJson(std::vector<routing::PauseView> const& pauses, config::Settings const& settings);

/// `{"shared":bool,"gateway_keys":[{"name","limits":{...},"in_flight","spending":{...}|null}],
/// "buckets":[{"channel","key"|null,"model"|null,"rpm","tpm","rpm_level","tpm_level"}]}`: every
/// gateway key with its `limits:` (0 = none) and, from this process's windows, what it spends of
/// its budgets today and this month (UTC); every upstream bucket pair (a key's `limits:`, a
/// channel's `model_limits:`) with its levels now (a pair never used is full; an unlimited
/// dimension's level is null). With Redis (`shared`) the windows and buckets live there:
/// `in_flight`, `spending` and the levels are null, and the request log's usage is the figure
/// to read.
std::string limitsJson(config::Settings const& settings, shared_state::SharedLimits const& limits,
                       bool shared, WallTime now, MonoTime mono);

/// An operator's freeze: what POST /admin/freezes asks for.
struct ManualFreeze {
  config::FreezeRule rule;  ///< named "manual", with the asked object and period
  routing::FreezeTarget target;
  std::string reason;
};

/// Parses `{"channel", "key"?: label, "model"?: upstream model, "minutes"? | "period"?,
/// "reason"?}` against the configuration: the channel and key must exist. Without `key` the
/// channel is frozen; with `model` only that model. `minutes` (1 to 525600) freezes for that
/// long; `period` is "today", "week", "month" or "forever"; neither: forever (until lifted).
Result<ManualFreeze> parseManualFreeze(std::string_view body, config::Settings const& settings);

}  // namespace llmux::proxy
