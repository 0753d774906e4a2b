#pragma once

// The configuration as one YAML document for GET /admin/config/export: the file's tree with the
// admin API's objects laid over it, every secret written "***" so that the export can be shown,
// kept and imported again (POST /admin/config/import puts the current secret back wherever it
// finds "***").
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

namespace llmux::config {

/// `tree` (a whole configuration, objects laid over) with its secrets masked:
/// - the objects' secrets as the admin API masks them (withoutSecrets);
/// - elsewhere, the values of `token`, `admin_token`, `metrics_token`, `password`, `secret`,
///   `api_key` and `key` members, the password of any URL's `user:password@`, and the alert
///   webhooks' URLs (their path is their credential).
/// A value that only names an environment variable (`${VAR}`, a `*_env` member) is no secret
/// and is kept.
YAML::Node maskedTree(YAML::Node const& tree);

/// A node as YAML text (block style, as the file is written).
std::string yamlText(YAML::Node const& node);

}  // namespace llmux::config
