#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace llmux::config {

/// Where `${VAR}` and `key_env` values come from. Injected so tests never touch the real
/// environment; nullopt means "not set".
using EnvLookup = std::function<std::optional<std::string>(std::string_view name)>;

/// The process environment (getenv).
EnvLookup processEnvironment();

/// Whether `name` is a valid variable name: [A-Za-z_][A-Za-z0-9_]*.
bool isVariableName(std::string_view name);

/// `text` with every `${NAME}` replaced by the variable's value. A lone `$` is kept as it is.
/// Fails (ErrorKind::InvalidRequest) when a variable is not set ("environment variable NAME is not
/// set", all missing names listed) or a `${` is not followed by `NAME}`. The message never
/// contains `text` itself, which may be a secret.
Result<std::string> expandVariables(std::string_view text, EnvLookup const& env);

}  // namespace llmux::config
