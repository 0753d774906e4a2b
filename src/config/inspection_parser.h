#pragma once

// A channel's `inspection:` (internal to this module; channel_parser.cpp calls it). See
// docs/configuration.md#inspection.

#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// Reads `inspection:` from the channel's `fields`, if present, into `channel.inspection`.
void readInspection(YamlReader& reader, Fields const& fields, Channel& channel);

/// Whether `pointer` is an RFC 6901 JSON pointer ("" or "/a/b", "~" only as "~0" or "~1").
bool isJsonPointer(std::string_view pointer);

}  // namespace llmux::config::detail
