#include "translate/media.h"

namespace llmux::translate {

MediaKind mediaKind(Block const& block) {
  std::string_view type = block.media_type;
  if (type.starts_with("audio/")) return MediaKind::Audio;
  if (type.starts_with("video/")) return MediaKind::Video;
  if (type.starts_with("image/")) return MediaKind::Image;
  return block.type == BlockType::Image ? MediaKind::Image : MediaKind::Document;
}

bool fileIdUsable(Block const& block, Protocol target) {
  if (block.file_id.empty() || !block.file_origin) return false;
  auto openai = [](Protocol p) {
    return p == Protocol::OpenAiChat || p == Protocol::OpenAiResponses;
  };
  return *block.file_origin == target || (openai(*block.file_origin) && openai(target));
}

std::string_view chatAudioFormat(std::string_view media_type) {
  // Gemini and browsers spell the same two formats in several ways.
  if (media_type == "audio/wav" || media_type == "audio/x-wav" || media_type == "audio/wave" ||
      media_type == "audio/vnd.wave") {
    return "wav";
  }
  if (media_type == "audio/mp3" || media_type == "audio/mpeg" || media_type == "audio/x-mp3" ||
      media_type == "audio/mpeg3") {
    return "mp3";
  }
  return {};
}

}  // namespace llmux::translate
