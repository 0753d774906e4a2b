#pragma once

// Health probes (docs/configuration.md#health-probes): the top-level `probes:` section, a
// channel's `probes:` and the custom scenarios file.

#include <optional>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// A channel's `probes:` (after its rows, models, presets and media were read: they are checked
/// against them). Scenario names that are not built-in are checked by readProbeSettings, which
/// knows the custom ones.
std::optional<ChannelProbes> parseChannelProbes(YamlReader& reader, YAML::Node const& node,
                                                std::string const& path, Channel const& channel);

/// The custom scenarios of a scenarios file (YAML or JSON): a list, or `{scenarios: [...]}`.
std::vector<CustomProbeScenario> parseProbeScenarios(YamlReader& reader, YAML::Node const& node,
                                                     std::string const& path);

/// The top-level `probes:` (its scenarios file read and parsed), then every channel's scenario
/// names checked against the built-in and custom ones. After the channels.
void readProbeSettings(YamlReader& reader, Fields const& root, Settings& settings);

/// A YAML value as JSON text (scalars: quoted ones stay strings; null, booleans and numbers
/// written plainly keep their type).
std::string yamlToJson(YAML::Node const& node);

}  // namespace llmux::config::detail
