#pragma once

// What each media endpoint offers media_mock.cpp, its dispatcher.

#include <optional>
#include <string_view>

#include "mock/media_form.h"
#include "mock/mock_faults.h"
#include "mock/mock_reply.h"

namespace llmux::mock {

class VideoJobs;

/// One media request being answered: the HTTP request, its fields and the model they name.
struct MediaCall {
  MockRequest const& http;
  MediaForm const& form;
  std::string_view model;
  FaultPlan const& faults;
  IdSource& ids;
};

/// What an endpoint makes of a request: the refusal OpenAI would send, or an answer (the body
/// faults apply to answers only).
struct MediaOutcome {
  std::optional<MockReply> refusal;
  Rendered answer;

  static MediaOutcome refused(MockReply reply) { return {std::move(reply), {}}; }
  static MediaOutcome answered(Rendered rendered) { return {std::nullopt, std::move(rendered)}; }
};

namespace embeddings {
MediaOutcome answer(MediaCall const& call);
}

namespace images {
/// Generations (JSON) and edits (a form with `image` files) share their checks and answer.
MediaOutcome answer(MediaCall const& call, bool edit);
}  // namespace images

namespace speech {
MediaOutcome answer(MediaCall const& call);
}

namespace transcription {
MediaOutcome answer(MediaCall const& call);
}

namespace video {
MediaOutcome create(MediaCall const& call, VideoJobs& jobs);
/// GET …/videos/{id}: counts a poll.
MediaOutcome retrieve(std::string_view id, VideoJobs& jobs, IdSource& ids);
/// GET …/videos/{id}/content[?variant=…].
MediaOutcome content(std::string_view id, std::string_view query, VideoJobs& jobs, IdSource& ids);
}  // namespace video

}  // namespace llmux::mock
