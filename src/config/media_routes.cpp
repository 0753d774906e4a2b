#include "config/media_routes.h"

namespace llmux::config {

std::optional<Modality> modalityOf(protocol::RouteKind kind) {
  using protocol::RouteKind;
  switch (kind) {
    case RouteKind::ImageGenerations:
    case RouteKind::ImageEdits:
      return Modality::Images;
    case RouteKind::VideoCreate:
    case RouteKind::VideoRetrieve:
    case RouteKind::VideoContent:
      return Modality::Videos;
    case RouteKind::Speech:
      return Modality::Speech;
    case RouteKind::Transcriptions:
      return Modality::Transcriptions;
    case RouteKind::Embeddings:
      return Modality::Embeddings;
    default:
      return std::nullopt;
  }
}

std::string_view configuredMediaPath(MediaSettings const& media, protocol::RouteKind kind) {
  auto modality = modalityOf(kind);
  if (!modality) return {};
  MediaEndpoint const& endpoint = media[*modality];
  return kind == protocol::RouteKind::ImageEdits ? endpoint.edits_path : endpoint.path;
}

}  // namespace llmux::config
