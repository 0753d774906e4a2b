#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "config/settings.h"

namespace llmux::config {

/// "<channel>/<first 12 hex digits of SHA-256(secret)>": the same for the same channel name and
/// secret, so runtime state keyed by it survives a reload, and it reveals nothing usable about
/// the secret.
std::string channelKeyId(std::string_view channel, std::string_view secret);

/// "<channel>#<index>" (index counted from 0, as in `channels[i].keys[index]`).
std::string channelKeyLabel(std::string_view channel, std::size_t index);

/// A ChannelKey with its label and id filled in.
ChannelKey makeChannelKey(std::string_view channel, std::size_t index, std::string secret);

}  // namespace llmux::config
