#pragma once

// The `proxies:` section, the `proxy:` bindings of channels and keys, and the proxies the
// environment names (internal to this module; loader.cpp calls it). docs/egress.md.

#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// Reads `proxies:` into `settings.proxies` (before the channels, which name them).
void readProxies(YamlReader& reader, Fields const& root, EnvLookup const& env, Settings& settings);

/// A `proxy:` value of a channel or a key: the index of the proxy it names.
std::optional<std::size_t> readProxyBinding(YamlReader& reader, YAML::Node const& node,
                                            std::string const& path,
                                            std::vector<Proxy> const& proxies);

/// After the channels: the proxies the environment names (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY and
/// their lower-case forms, less NO_PROXY, as curl reads them) become entries of
/// `settings.proxies` and each protocol row's `environment_proxy`. Also refuses a `url_prefix`
/// exit for a row that authenticates by query parameter (the key would be in the forwarder's
/// URL).
void applyEnvironmentProxies(YamlReader& reader, EnvLookup const& env, Settings& settings);

/// Whether NO_PROXY's value `no_proxy` exempts `host`: "*" does every host; an entry matches the
/// host itself and its subdomains (a leading '.' is optional; a ":port" is ignored); an IP
/// literal matches itself, an IPv4 CIDR ("10.0.0.0/8") the addresses in it.
bool noProxyExempts(std::string_view no_proxy, std::string_view host);

}  // namespace llmux::config::detail
