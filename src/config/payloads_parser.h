#pragma once

// The top-level `payloads:` section: request and response bodies captured to ClickHouse
// (docs/configuration.md#payloads).

#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// `payloads: {clickhouse_url: http://…, sample, max_bytes, redact, …}` into `settings.payloads`.
void readPayloads(YamlReader& reader, Fields const& root, EnvLookup const& env, Settings& settings);

}  // namespace llmux::config::detail
