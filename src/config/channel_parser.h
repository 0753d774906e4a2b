#pragma once

// The `channels:` section (internal to this module; loader.cpp calls it).

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"
#include "core/result.h"

namespace llmux::config::detail {

/// Reads the `channels` list. Problems are reported through `reader`; the returned channels are
/// meaningful only when none was reported.
std::vector<Channel> parseChannels(YAML::Node const& node, std::string const& path,
                                   YamlReader& reader, EnvLookup const& env);

/// Reads an `auth` value: default, bearer, x-api-key, header:NAME or query:NAME.
Result<AuthSpec> parseAuthSpec(std::string_view text);

/// Whether `name` is a usable channel or gateway key name: 1..64 of [A-Za-z0-9._-]. Names appear
/// in key ids ("name/hash") and labels ("name#0"), so '/' and '#' are excluded.
bool isValidName(std::string_view name);

/// Whether `name` is an HTTP header field name (RFC 9110 token).
bool isHeaderName(std::string_view name);

}  // namespace llmux::config::detail
