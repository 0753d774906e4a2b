#include "mock/media_mock.h"

#include <boost/json/monotonic_resource.hpp>

#include "mock/fault_effects.h"
#include "mock/json_access.h"
#include "mock/media_endpoints.h"
#include "mock/mock_errors.h"

namespace llmux::mock {
namespace {

struct PostRoute {
  std::string_view suffix;
  MediaEndpoint endpoint;
};

constexpr PostRoute kPostRoutes[] = {
    {"/v1/embeddings", MediaEndpoint::Embeddings},
    {"/v1/images/generations", MediaEndpoint::ImageGeneration},
    {"/v1/images/edits", MediaEndpoint::ImageEdit},
    {"/v1/audio/speech", MediaEndpoint::Speech},
    {"/v1/audio/transcriptions", MediaEndpoint::Transcription},
    {"/v1/videos", MediaEndpoint::VideoCreate},
};

constexpr std::string_view kVideosPrefix = "/v1/videos/";
constexpr std::string_view kContentSuffix = "/content";

BodyKind bodyKindOf(MediaEndpoint endpoint) {
  switch (endpoint) {
    case MediaEndpoint::ImageEdit:
    case MediaEndpoint::Transcription:
      return BodyKind::Multipart;
    case MediaEndpoint::VideoCreate:
      return BodyKind::JsonOrMultipart;
    default:
      return BodyKind::Json;
  }
}

MediaOutcome answerWithBody(MediaEndpoint endpoint, MediaCall const& call, VideoJobs& videos) {
  switch (endpoint) {
    case MediaEndpoint::Embeddings:
      return embeddings::answer(call);
    case MediaEndpoint::ImageGeneration:
      return images::answer(call, false);
    case MediaEndpoint::ImageEdit:
      return images::answer(call, true);
    case MediaEndpoint::Speech:
      return speech::answer(call);
    case MediaEndpoint::Transcription:
      return transcription::answer(call);
    default:
      return video::create(call, videos);
  }
}

}  // namespace

std::optional<MediaRoute> matchMediaRoute(std::string_view method, std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  if (method == "POST") {
    for (auto const& route : kPostRoutes) {
      if (path.ends_with(route.suffix)) return MediaRoute{route.endpoint, {}};
    }
    return std::nullopt;
  }
  auto at = path.rfind(kVideosPrefix);
  if (method != "GET" || at == std::string_view::npos) return std::nullopt;
  std::string_view id = path.substr(at + kVideosPrefix.size());
  MediaEndpoint endpoint = MediaEndpoint::VideoRetrieve;
  if (id.ends_with(kContentSuffix)) {
    id.remove_suffix(kContentSuffix.size());
    endpoint = MediaEndpoint::VideoContent;
  }
  if (id.empty() || id.find('/') != std::string_view::npos) return std::nullopt;
  return MediaRoute{endpoint, id};
}

MockReply answerMedia(MediaRoute const& route, MockRequest const& request, FaultPlan& faults,
                      MediaState state, IdSource& ids) {
  MediaOutcome outcome;
  if (route.endpoint == MediaEndpoint::VideoRetrieve ||
      route.endpoint == MediaEndpoint::VideoContent) {
    // A refused poll is not a poll: the job does not move.
    if (auto error = statusFault(faults, state.counters, Vendor::OpenAi, ids, {})) {
      return std::move(*error);
    }
    outcome = route.endpoint == MediaEndpoint::VideoRetrieve
                  ? video::retrieve(route.video_id, state.videos, ids)
                  : video::content(route.video_id, request.query, state.videos, ids);
  } else {
    // Form fields live in this buffer for the length of the call (files stay in the body).
    unsigned char scratch[8192];
    boost::json::monotonic_resource resource(scratch, sizeof(scratch));
    MediaForm form;
    if (auto refusal = readForm(request, bodyKindOf(route.endpoint), &resource, form, ids)) {
      return std::move(*refusal);
    }
    std::string_view model = stringField(&form.fields, "model");
    if (auto ok = addModelFault(model, faults); !ok) {
      return invalidRequestError(Vendor::OpenAi, ids, ok.error().message);
    }
    if (auto error = statusFault(faults, state.counters, Vendor::OpenAi, ids, model)) {
      return std::move(*error);
    }
    outcome =
        answerWithBody(route.endpoint, MediaCall{request, form, model, faults, ids}, state.videos);
  }
  if (outcome.refusal) return std::move(*outcome.refusal);
  // Only an event stream has room for a keep-alive; audio and video bytes have none.
  std::optional<std::string> keep_alive;
  if (outcome.answer.reply.headers.get("content-type").starts_with("text/event-stream")) {
    keep_alive = ": keep-alive\n\n";
  }
  applyBodyFaults(outcome.answer, faults, keep_alive);
  return std::move(outcome.answer.reply);
}

}  // namespace llmux::mock
