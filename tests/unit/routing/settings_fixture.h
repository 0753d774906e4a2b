#pragma once

#include <map>
#include <optional>

#include <memory>
#include <string>

#include "config/loader.h"
#include "routing/catalog.h"

namespace llmux::routing::testing {

/// A catalog from YAML text (no environment variables), failing the test on invalid YAML.
/// The catalog of `yaml`, read with an environment of `env` only.
inline std::shared_ptr<const Catalog> catalogFrom(
    std::string const& yaml, std::map<std::string, std::string, std::less<>> env = {}) {
  auto outcome = config::parseSettings(yaml, [env = std::move(env)](std::string_view name) {
    auto it = env.find(name);
    return it == env.end() ? std::nullopt : std::optional<std::string>(it->second);
  });
  if (!outcome.ok()) throw std::runtime_error(config::formatIssues(outcome.issues));
  return std::make_shared<const Catalog>(outcome.settings);
}

}  // namespace llmux::routing::testing
