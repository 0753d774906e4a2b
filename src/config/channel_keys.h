#pragma once

// One key of a channel changed on its own (the admin API's /admin/channels/{name}/keys routes):
// added, changed (rotated, disabled, reweighted) or removed, on the channel's entry as the state
// store keeps it — secrets included, so the other keys keep theirs whatever their position.
#include <string>
#include <string_view>

#include "core/result.h"

namespace llmux::config {

enum class KeyEdit { Add, Update, Remove };

/// The channel entry `channel_json` (with its secrets) with one key edited:
/// - Add: `body` is a key as the file writes it (`"sk-..."` or `{"key", "name", "weight",
///   "enabled", "limits", ...}`), appended; it needs its secret.
/// - Update: `body` is an object whose members replace the key's (`"key"` rotates the secret;
///   "***" or absent keeps it); a short-form key becomes `{"key": ...}` first.
/// - Remove: the key goes.
/// `which` names the key: its `name:`, or its position from 0 (the `#<i>` of its label), or its
/// whole label (`relay#0`, `relay/second`). Errors: NotFound for no such key, InvalidRequest
/// naming what is wrong with `body`.
Result<std::string> editChannelKey(std::string const& channel_json, std::string_view channel_name,
                                   KeyEdit edit, std::string_view which, std::string_view body);

}  // namespace llmux::config
