#pragma once

// The routing sections of the top level (internal to this module; loader.cpp calls it):
// admin_token / admin_token_env, model_groups, fallbacks, freeze_rules, default_freeze_rules,
// retry. Also the built-in freeze rules.

#include <string>
#include <vector>

#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config {

/// The freeze rules appended after the configured ones unless `default_freeze_rules: false`:
/// exhausted OpenAI quota and Gemini daily quota (until the upstream's reset), exhausted
/// Anthropic credit and 403 Forbidden (until the end of the UTC day), all freezing the key.
std::vector<FreezeRule> defaultFreezeRules();

namespace detail {

/// Reads the routing sections of `root` into `settings`. Needs `settings.channels` and
/// `settings.gateway_keys` already read: groups and fallbacks must name served models, and the
/// admin token must not be a gateway key.
void readRoutingSettings(YamlReader& reader, Fields const& root, EnvLookup const& env,
                         Settings& settings);

/// "sequential, random, ..." — every strategy name, for error messages.
std::string strategyChoices();

/// A `cost_preference:` value; an unknown name is an issue at `path` (and none is returned).
std::optional<CostPreference> readCostPreference(YamlReader& reader, YAML::Node const& node,
                                                 std::string const& path);

/// A freeze duration "<n>s", "<n>m", "<n>h" or "<n>d" (n > 0); nullopt when malformed.
std::optional<Millis> parseFreezeDuration(std::string_view text);

}  // namespace detail
}  // namespace llmux::config
