#include "proxy/media_route.h"

namespace llmux::proxy {

using config::Modality;
using protocol::RouteKind;

std::optional<Modality> modalityOf(RouteKind kind) {
  switch (kind) {
    case RouteKind::ImageGenerations:
    case RouteKind::ImageEdits: return Modality::Images;
    case RouteKind::VideoCreate:
    case RouteKind::VideoRetrieve:
    case RouteKind::VideoContent: return Modality::Videos;
    case RouteKind::Speech: return Modality::Speech;
    case RouteKind::Transcriptions: return Modality::Transcriptions;
    case RouteKind::Embeddings: return Modality::Embeddings;
    default: return std::nullopt;
  }
}

std::string_view configuredMediaPath(config::Channel const& channel, RouteKind kind) {
  auto modality = modalityOf(kind);
  if (!modality) return {};
  config::MediaEndpoint const& endpoint = channel.media[*modality];
  return kind == RouteKind::ImageEdits ? std::string_view(endpoint.edits_path)
                                       : std::string_view(endpoint.path);
}

}  // namespace llmux::proxy
