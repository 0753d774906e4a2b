#pragma once

// The top-level `retention:` section: how long each table of the store keeps its rows
// (docs/configuration.md#retention).

#include <optional>

#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// The longest a retention in days may be: a century is "forever" in all but name, and the bound
/// keeps the cutoff arithmetic in range.
constexpr long long kMaxRetentionDays = 36'500;

/// `retention: {request_log_days, video_jobs_days, payloads_days}` into `settings.retention`.
/// `log_alias` is `log.request_log_retention_days` when the file gave it (already applied): the
/// same setting, so a different `request_log_days` is an error.
void readRetention(YamlReader& reader, Fields const& root, std::optional<int> log_alias,
                   Settings& settings);

}  // namespace llmux::config::detail
