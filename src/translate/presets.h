#pragma once

// Client presets (`client_preset:` on a channel or one of its models): the upstream request is
// built as that client would send it — the preset's protocol (config picks the row), its headers
// and its default body fields, filled only where the caller set nothing. docs/presets.md lists
// every value and where it comes from.

#include <optional>
#include <string>
#include <string_view>

#include "core/client_preset.h"
#include "core/http_headers.h"
#include "translate/neutral.h"

namespace llmux::translate {

/// What a preset's values depend on in the request being served.
struct PresetContext {
  std::string_view model;       ///< the upstream model
  std::string_view session_id;  ///< the caller's session ("" when unknown: no session fields)
  bool stream = false;
  bool reasoning_off = false;   ///< the caller turned reasoning off: no reasoning defaults
};

/// The headers the preset's client sends. They replace the caller's headers of the same name;
/// a channel's own `headers:` still win over them.
HeaderList presetHeaders(ClientPreset preset, PresetContext const& context);

/// Query parameters the preset's client adds to its URL ("beta=true" for Claude Code), "" when
/// none.
std::string_view presetQuery(ClientPreset preset);

/// Defaults a translation encoder would otherwise invent itself (the output limit), filled into
/// the neutral request where the caller gave none. Call before encoding.
void applyPresetDefaults(ClientPreset preset, Request& request);
/// Whether applyPresetDefaults would change `request` (so a caller can avoid copying it).
bool presetAddsDefaults(ClientPreset preset, Request const& request);

/// `body` (a JSON object in the preset's protocol) with the preset's default fields added where
/// absent: nested objects are merged member by member, nothing present is overwritten. nullopt
/// when nothing was missing (send `body` as it is) or `body` is not a JSON object.
std::optional<std::string> withPresetFields(ClientPreset preset, std::string_view body,
                                            PresetContext const& context);

}  // namespace llmux::translate
