#pragma once

#include <string>

#include "core/clock.h"

namespace llmux::telemetry {

/// Appends `t` as RFC 3339 UTC with milliseconds: "2023-11-14T22:13:20.123Z" (always 24 bytes).
/// Times before 1970 are clamped to the epoch.
void appendRfc3339Millis(std::string& out, WallTime t);

/// `t` as RFC 3339 UTC with milliseconds.
std::string formatRfc3339Millis(WallTime t);

}  // namespace llmux::telemetry
