#pragma once

// What a media endpoint's JSON answer says about what was used (docs/media.md): tokens (image
// models that report them, embeddings, token-billed transcriptions), seconds (transcriptions
// billed by duration, video jobs) and a video job's id. The answer bytes are only read.

#include <optional>
#include <string>
#include <string_view>

#include "core/token_usage.h"

namespace llmux::protocol {

struct MediaAnswer {
  std::optional<TokenUsage> usage;  ///< `usage` in tokens (input_tokens/prompt_tokens, output_tokens)
  std::optional<double> seconds;    ///< `usage.seconds` (duration-billed audio), a video's `seconds`
  std::string id;                   ///< the top-level `id` (a video job's), "" when none
};

/// Reads a whole JSON answer; a body that is not a JSON object gives an empty answer.
MediaAnswer readMediaAnswer(std::string_view body);

/// Reads only the `usage` object from the end of an answer too large to keep whole (an image
/// answer carrying base64 images puts `usage` after them): `tail` is its last bytes.
MediaAnswer readMediaAnswerTail(std::string_view tail);

}  // namespace llmux::protocol
