#pragma once

// A channel's `media:` (internal to this module; channel_parser.cpp calls it). See
// docs/configuration.md#media.

#include "config/settings.h"
#include "config/yaml_reader.h"

namespace llmux::config::detail {

/// Reads `media:` from `fields` into `channel.media`, each modality `true`/`false` or a mapping
/// of its paths, and picks the row media requests go to. Call it once `channel.rows` is complete
/// (preset rows included: they are skipped). A channel enabling a modality without an
/// openai-chat or openai-responses row is reported under `media`.
void readMedia(YamlReader& reader, Fields const& fields, Channel& channel);

}  // namespace llmux::config::detail
