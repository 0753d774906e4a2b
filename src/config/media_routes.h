#pragma once

// Which part of a channel's `media:` a media route uses: the modality that enables it and the
// path configured for it (docs/configuration.md#media).

#include <optional>
#include <string_view>

#include "config/settings.h"
#include "protocol/routes.h"

namespace llmux::config {

/// The modality whose `media:` entry enables `kind`; nullopt for a route that is not a media one.
std::optional<Modality> modalityOf(protocol::RouteKind kind);

/// The upstream path `media` configures for media route `kind` (protocol::RowPaths::media):
/// `edits_path` for image edits, the modality's `path` for the others (a video job's routes
/// included: the job's id goes below it); "" = the standard path, and for a non-media route.
std::string_view configuredMediaPath(MediaSettings const& media, protocol::RouteKind kind);

}  // namespace llmux::config
