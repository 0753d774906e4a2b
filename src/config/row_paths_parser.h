#pragma once

// The paths of a protocol row: `chat_path:` and `models_path:` (internal to this module;
// channel_parser.cpp calls it). See docs/configuration.md#chat_path-and-models_path.

#include <string>
#include <string_view>

#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// Reads the path fields present in `fields` into `paths`, each checked for a row speaking
/// `protocol`; a bad one is reported under its YAML path and left unset.
void readRowPaths(YamlReader& reader, Fields const& fields, Protocol protocol,
                  UpstreamPaths& paths);

/// Reports, under its YAML path, every path field present in `fields`: used where no single
/// protocol row is being read (a channel with `protocols:`).
void rejectRowPaths(YamlReader& reader, Fields const& fields, std::string_view why);

/// What is wrong with `path` as an upstream path ("" when nothing): it must start with '/', hold
/// only URL path characters (RFC 3986: no space, control character, non-ASCII byte, '?', '#',
/// or a '%' that does not start %XX). With `needs_model_placeholder` it must end with `{model}`,
/// written once; without, `{model}` is refused.
std::string upstreamPathProblem(std::string_view path, bool needs_model_placeholder);

}  // namespace llmux::config::detail
