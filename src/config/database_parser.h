#pragma once

// The top-level `database:` section: where the request log is kept when not in SQLite
// (docs/configuration.md#database).

#include <string>
#include <string_view>

#include "config/env.h"
#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config {

/// `url` with its password (in the user info or a `password=` parameter) replaced by `***`: what
/// check-config and error messages may show. A URL that does not parse is shown as its scheme
/// only.
std::string maskedDatabaseUrl(std::string_view url);

namespace detail {

/// `database: {url: postgres://…}` or `database: {url_env: VAR}` into `settings.database`.
void readDatabase(YamlReader& reader, Fields const& root, EnvLookup const& env, Settings& settings);

}  // namespace detail
}  // namespace llmux::config
