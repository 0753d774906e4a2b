#pragma once

// `server.body_limits:` (internal to this module; loader.cpp calls it). See
// docs/configuration.md#server.

#include <string>

#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// Reads `body_limits:` — request path of a POST route -> bytes — into `server.body_limits`,
/// keyed by the route's label (protocol::routeLabel), so `/audio/transcriptions` and
/// `/v1/audio/transcriptions` are one route. Paths that are not a POST route llmux serves to
/// clients (unknown, GET only, admin) are reported under their key, and so is a route given twice.
void readBodyLimits(YamlReader& reader, YAML::Node const& node, std::string const& path,
                    ServerSettings& server);

}  // namespace llmux::config::detail
