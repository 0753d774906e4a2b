#pragma once

// The `channels:` section (internal to this module; loader.cpp calls it).

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/http_syntax.h"
#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"
#include "core/result.h"

namespace llmux::config::detail {

/// Reads the `channels` list (`proxies` are the ones their `proxy:` fields may name). Problems
/// are reported through `reader`; the returned channels are meaningful only when none was
/// reported.
std::vector<Channel> parseChannels(YAML::Node const& node, std::string const& path,
                                   YamlReader& reader, EnvLookup const& env,
                                   std::vector<Proxy> const& proxies);

/// A string value with ${VAR} expanded; problems are reported under `path`.
std::optional<std::string> expandedString(YamlReader& reader, YAML::Node const& node,
                                          std::string const& path, EnvLookup const& env);

/// The secret of a `<literal_key>:` / `<env_key>:` pair in `fields` (exactly one must be given):
/// the literal with ${VAR} expanded, or the value of the variable the other one names. Problems
/// (both, neither, unset variable, empty secret) are reported; nullopt then. `secret_path` is set
/// to the path of the field that was read, for later messages about the secret (duplicates).
std::optional<std::string> readSecretFields(YamlReader& reader, Fields const& fields,
                                            std::string_view literal_key, std::string_view env_key,
                                            EnvLookup const& env, std::string& secret_path);
/// The same for callers that check "both / neither" themselves: `literal` or else `from_env`.
std::optional<std::string> readSecret(YamlReader& reader, YAML::Node const* literal,
                                      std::string const& literal_path, YAML::Node const* from_env,
                                      std::string const& env_path, EnvLookup const& env,
                                      std::string& secret_path);

/// Reads an `auth` value: default, bearer, x-api-key, header:NAME or query:NAME.
Result<AuthSpec> parseAuthSpec(std::string_view text);

/// Whether `name` is a usable channel or gateway key name: 1..64 of [A-Za-z0-9._-]. Names appear
/// in key ids ("name/hash") and labels ("name#0"), so '/' and '#' are excluded.
bool isValidName(std::string_view name);

/// A protocol's configuration spelling (an unknown one reported with the known names).
std::optional<Protocol> readProtocol(YamlReader& reader, YAML::Node const& node, std::string const& path);

/// A `client_preset:`-style value: a preset's configuration spelling (an unknown one reported
/// with the known names).
std::optional<ClientPreset> presetNamed(YamlReader& reader, YAML::Node const& node,
                                        std::string const& path);

}  // namespace llmux::config::detail
