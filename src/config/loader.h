#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/env.h"
#include "config/issues.h"
#include "config/settings.h"

namespace YAML {
class Node;
}

namespace llmux::config {

/// A loaded configuration, shared by everything that reads it. Never mutated: a reload builds a
/// new one.
using SettingsPtr = std::shared_ptr<const Settings>;

/// The result of a load: `settings` is set only when there is no issue.
struct LoadOutcome {
  SettingsPtr settings;
  std::vector<ConfigIssue> issues;

  bool ok() const { return settings && issues.empty(); }
};

/// Parses and validates a YAML configuration (docs/configuration.md). Strict: unknown keys, wrong
/// types and invalid values are all reported, each with its path, in one pass. `${VAR}` and
/// `key_env` values come from `env`.
LoadOutcome parseSettings(std::string_view yaml_text, EnvLookup const& env);

/// Parses a configuration already read as YAML (the file's tree with the admin API's objects laid
/// over it: config/managed_objects.h), with parseSettings's checks.
LoadOutcome parseSettingsTree(YAML::Node const& root, EnvLookup const& env);

/// Reads `path` as one YAML document, unparsed (the admin API's objects are laid over it). An
/// unreadable file or invalid YAML is one issue with path "".
std::optional<YAML::Node> readConfigTree(std::string const& path, std::vector<ConfigIssue>& issues);

/// Reads `path` and parses it. An unreadable file is one issue with path "".
LoadOutcome loadSettingsFile(std::string const& path, EnvLookup const& env);

}  // namespace llmux::config
