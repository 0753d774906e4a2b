#pragma once

// The resilience and limit settings (internal to this module; loader.cpp and channel_parser.cpp
// call it): a channel's `breaker:` and `model_limits:`, a gateway key's `limits:`, and the top
// level `buckets:`, `redis:` and `prices:` sections (docs/configuration.md, docs/resilience.md).

#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// A channel's `breaker:` (`off`, or a mapping of thresholds) and `model_limits:`.
void readChannelResilience(YamlReader& reader, Fields const& fields, Channel& channel);

/// A gateway key's `limits:` mapping.
void readClientLimits(YamlReader& reader, Fields const& fields, GatewayKey& key);

/// The top-level `buckets:`, `redis:` and `prices:` sections.
void readResilienceSettings(YamlReader& reader, Fields const& root, EnvLookup const& env,
                            Settings& settings);

/// `redis://[:password@]host[:port][/db]` into `out` (host, port, password, db).
bool parseRedisUrl(std::string_view url, RedisSettings& out, std::string& why);

}  // namespace llmux::config::detail
