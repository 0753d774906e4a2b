#pragma once

// What an Image or Document block holds, as far as an encoder must decide whether its target can
// take it: provider file ids are only meaningful to their provider, and audio and video go only
// where the target has a part for them (docs/translation.md §4.3).

#include <string_view>

#include "core/wire_protocol.h"
#include "translate/neutral.h"

namespace llmux::translate {

/// The kind of media a block carries, from its media type (Gemini's inlineData and fileData are
/// Documents for every type but images, audio and video included).
enum class MediaKind {
  Image,     ///< image/*, or an Image block of unknown type
  Document,  ///< PDF, text and any other file
  Audio,     ///< audio/*
  Video,     ///< video/*
};

MediaKind mediaKind(Block const& block);

/// Whether an upstream of `target` can use the block's `file_id`: only the provider that issued
/// it can, and OpenAI Chat and Responses share the OpenAI Files API. An id of unknown origin is
/// never usable.
bool fileIdUsable(Block const& block, Protocol target);

/// OpenAI Chat `input_audio.format` for a media type: "wav" or "mp3", the only two it takes;
/// "" for any other audio.
std::string_view chatAudioFormat(std::string_view media_type);

}  // namespace llmux::translate
