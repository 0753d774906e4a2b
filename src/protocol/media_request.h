#pragma once

// What the gateway reads from a media request (OpenAI's images, videos, audio and embeddings
// endpoints; docs/media.md) before routing it: the model, where it sits in the body (so a
// model_map can rename it in place), and the quantities a request is billed by when the answer
// does not say them. JSON bodies and multipart/form-data uploads alike; the body is never copied.

#include <cstdint>
#include <string_view>

#include "core/result.h"
#include "protocol/inspect.h"
#include "protocol/routes.h"

namespace llmux::protocol {

/// The billable quantities a media request asks for (0 when the route has none).
struct MediaAsk {
  std::int64_t images = 0;         ///< images generations and edits: `n` (default 1)
  double video_seconds = 0;        ///< video jobs: `seconds` (default 4, as OpenAI's API)
  std::int64_t speech_characters = 0;  ///< speech: the characters (code points) of `input`
};

struct MediaRequest {
  RequestProfile profile;  ///< model and its span; `model_raw` for a form field; never a stream
  MediaAsk ask;
};

/// Inspects the body of a media route that takes one (every media route but the video job's
/// GETs). `content_type` picks the reading: multipart/form-data (image edits and transcriptions
/// must be; a video job may be), else JSON (the others must be). Errors are InvalidRequest with
/// a message a client can act on: an empty or malformed body, a missing, empty or repeated
/// `model`, a non-numeric `n` or `seconds`, a missing `input` for speech.
Result<MediaRequest> inspectMediaRequest(Route const& route, std::string_view content_type,
                                         std::string_view body);

/// Whether `content_type` is multipart/form-data (parameters ignored, case-insensitive).
bool isMultipartFormData(std::string_view content_type);

/// Whether `content_type` is JSON: application/json or any `+json` type.
bool isJsonContentType(std::string_view content_type);

}  // namespace llmux::protocol
