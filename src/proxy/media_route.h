#pragma once

// Which modality of a channel's `media:` a media route belongs to, and the path it configures
// (docs/media.md).

#include <optional>
#include <string_view>

#include "config/settings.h"
#include "protocol/routes.h"

namespace llmux::proxy {

/// The modality of a media route; nullopt for every other route.
std::optional<config::Modality> modalityOf(protocol::RouteKind kind);

/// The path `channel`'s `media:` sets for a request of `kind` (images edits: its `edits_path`),
/// "" when it sets none (the standard path applies) or `kind` is not a media route.
std::string_view configuredMediaPath(config::Channel const& channel, protocol::RouteKind kind);

}  // namespace llmux::proxy
