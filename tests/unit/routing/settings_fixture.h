#pragma once

#include <memory>
#include <string>

#include "config/loader.h"
#include "routing/catalog.h"

namespace llmux::routing::testing {

/// A catalog from YAML text (no environment variables), failing the test on invalid YAML.
inline std::shared_ptr<const Catalog> catalogFrom(std::string const& yaml) {
  auto outcome = config::parseSettings(yaml, [](std::string_view) { return std::nullopt; });
  if (!outcome.ok()) throw std::runtime_error(config::formatIssues(outcome.issues));
  return std::make_shared<const Catalog>(outcome.settings);
}

}  // namespace llmux::routing::testing
