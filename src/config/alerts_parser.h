#pragma once

// The top-level `slo:` and `alerts:` sections (internal to this module; loader.cpp calls it).
// docs/configuration.md, docs/operations.md.

#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// `slo:` and `alerts:` into `settings`.
void readAlertSettings(YamlReader& reader, Fields const& root, EnvLookup const& env,
                       Settings& settings);

/// A webhook URL: http(s), host, optional port, path and query (robots carry their token in
/// either). Errors do not repeat the URL (it is a secret).
bool parseWebhookUrl(std::string_view url, Webhook& out, std::string& why);

}  // namespace llmux::config::detail
