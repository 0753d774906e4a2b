#pragma once

// OpenAI's media endpoints: embeddings, image generations and edits, speech, transcriptions and
// video jobs (docs/mock-provider.md, "Media endpoints").

#include <optional>
#include <string_view>

#include "mock/mock_faults.h"
#include "mock/mock_ids.h"
#include "mock/mock_provider.h"

namespace llmux::mock {

class VideoJobs;

/// The media endpoints the mock serves.
enum class MediaEndpoint {
  Embeddings,       ///< POST …/v1/embeddings
  ImageGeneration,  ///< POST …/v1/images/generations
  ImageEdit,        ///< POST …/v1/images/edits (multipart)
  Speech,           ///< POST …/v1/audio/speech
  Transcription,    ///< POST …/v1/audio/transcriptions (multipart)
  VideoCreate,      ///< POST …/v1/videos (JSON or multipart)
  VideoRetrieve,    ///< GET …/v1/videos/{id}
  VideoContent,     ///< GET …/v1/videos/{id}/content
};

struct MediaRoute {
  MediaEndpoint endpoint = MediaEndpoint::Embeddings;
  std::string_view video_id;  ///< VideoRetrieve, VideoContent: the id in the path
};

/// The media endpoint `method` and `path` name, matched on the end of the path (trailing slashes
/// trimmed) like every mock route.
std::optional<MediaRoute> matchMediaRoute(std::string_view method, std::string_view path);

/// The mock's state a media answer may use or change.
struct MediaState {
  FaultCounters& counters;
  VideoJobs& videos;
};

/// Answers an authenticated media request: reads its body, applies the model fault (`fault-…` in
/// the body's model) and the status faults, answers as OpenAI does (or refuses as it does), then
/// applies the body faults. The slow first byte is left to the caller.
MockReply answerMedia(MediaRoute const& route, MockRequest const& request, FaultPlan& faults,
                      MediaState state, IdSource& ids);

}  // namespace llmux::mock
