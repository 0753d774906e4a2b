// OpenAI's video jobs (the Sora API): POST …/v1/videos creates a job (queued), each GET
// …/v1/videos/{id} counts a poll and moves it on (in_progress, then completed on the
// x-mock-video-polls-th GET, 3 by default), GET …/v1/videos/{id}/content downloads it once
// completed. The jobs live in VideoJobs.
#include <boost/json/value.hpp>

#include "mock/byte_writer.h"
#include "mock/json_access.h"
#include "mock/json_writer.h"
#include "mock/media_endpoints.h"
#include "mock/mock_errors.h"
#include "mock/png_image.h"
#include "mock/query_param.h"
#include "mock/video_jobs.h"

namespace llmux::mock::video {
namespace {

namespace json = boost::json;

constexpr std::size_t kShownIdChars = 200;  // an id quoted back in an error stays short
constexpr std::size_t kBytesPerSecond = 16u << 10;
constexpr std::size_t kContentPieceBytes = 16u << 10;
constexpr std::int64_t kSecondsPerPoll = 30;  // how long the mock pretends a poll interval is
constexpr std::int64_t kExpirySeconds = 3600;

std::string_view statusName(VideoJob::Status status) {
  switch (status) {
    case VideoJob::Status::Queued:
      return "queued";
    case VideoJob::Status::InProgress:
      return "in_progress";
    case VideoJob::Status::Completed:
      break;
  }
  return "completed";
}

Rendered renderJob(VideoJob const& job, IdSource& ids) {
  bool completed = job.status() == VideoJob::Status::Completed;
  std::int64_t completed_at = job.created_at + kSecondsPerPoll * job.polls_to_complete;
  std::string body;
  JsonWriter w(body, JsonStyle::Indent2);
  w.beginObject().str("id", job.id).str("object", "video").str("model", job.model);
  w.str("status", statusName(job.status())).num("progress", job.progress());
  w.num("created_at", job.created_at);
  if (completed) {
    w.num("completed_at", completed_at).num("expires_at", completed_at + kExpirySeconds);
  } else {
    w.null("completed_at").null("expires_at");
  }
  w.str("prompt", job.prompt).null("remixed_from_video_id").str("seconds", job.seconds);
  w.str("size", job.size).null("error").endObject();
  body.push_back('\n');
  Rendered out;
  setJsonBody(out.reply, 200, std::move(body), "application/json");
  addOpenAiAnswerHeaders(out.reply, ids);
  return out;
}

MockReply unknownVideo(std::string_view id, IdSource& ids) {
  return openAiError(ids, 404,
                     "Video with id '" + std::string(id.substr(0, kShownIdChars)) + "' not found.",
                     "invalid_request_error", {}, "video_not_found");
}

/// An MP4 that identifies as one (an `ftyp` box, as file sniffers expect) followed by an `mdat`
/// box of filler: about 16 KiB per second of video. It does not play.
std::string fakeMp4(VideoJob const& job) {
  std::string out;
  putBigEndian(out, 32, 4);
  out += "ftypisom";
  putBigEndian(out, 0x200, 4);
  out += "isomiso2avc1mp41";
  std::size_t seconds = job.seconds == "12" ? 12 : job.seconds == "8" ? 8 : 4;
  std::size_t filler = seconds * kBytesPerSecond;
  putBigEndian(out, 8 + filler, 4);
  out += "mdat";
  IdSource bytes(job.seed);
  for (std::size_t i = 0; i < filler; i += 8) putBigEndian(out, bytes.next(), 8);
  return out;
}

}  // namespace

MediaOutcome create(MediaCall const& call, VideoJobs& jobs) {
  MediaForm const& form = call.form;
  IdSource& ids = call.ids;
  VideoJob job;
  std::string_view prompt;
  std::string_view model = "sora-2";
  std::string_view seconds = "4";
  std::string_view size = "720x1280";
  std::optional<MockReply> refusal = readRequiredText(form, "prompt", prompt, ids);
  if (!refusal) refusal = readText(form, "model", model, ids);
  if (!refusal) refusal = readChoice(form, "seconds", {"4", "8", "12"}, seconds, ids);
  if (!refusal) {
    refusal =
        readChoice(form, "size", {"720x1280", "1280x720", "1024x1792", "1792x1024"}, size, ids);
  }
  json::value const* reference = form.fields.if_contains("input_reference");
  if (!refusal && reference != nullptr && !reference->is_object() && !reference->is_null()) {
    // A JSON body names the image ({"image_url"} or {"file_id"}); a form uploads it as a file.
    refusal = openai::invalidType(ids, "input_reference", form.multipart ? "a file" : "an object",
                                  openai::typeName(*reference));
  }
  if (!refusal) {
    if (auto header = call.http.headers.find(kVideoPollsHeader)) {
      auto polls = parseVideoPolls(*header);
      if (!polls)
        return MediaOutcome::refused(
            invalidRequestError(Vendor::OpenAi, ids, polls.error().message));
      job.polls_to_complete = *polls;
    } else {
      job.polls_to_complete = kDefaultVideoPolls;
    }
  }
  if (refusal) return MediaOutcome::refused(std::move(*refusal));

  // The request's hash and a serial: identical requests still make distinct jobs.
  IdSource job_ids(ids.next() ^ (jobs.nextSerial() * 0x9E3779B97F4A7C15ULL));
  job.id = "video_" + job_ids.hex(48);
  job.seed = job_ids.next();
  job.model = std::string(model);
  job.prompt = std::string(prompt);
  job.seconds = std::string(seconds);
  job.size = std::string(size);
  job.created_at = ids.unixTime();
  Rendered out = renderJob(job, ids);
  jobs.add(std::move(job));
  return MediaOutcome::answered(std::move(out));
}

MediaOutcome retrieve(std::string_view id, VideoJobs& jobs, IdSource& ids) {
  auto job = jobs.poll(id);
  if (!job) return MediaOutcome::refused(unknownVideo(id, ids));
  return MediaOutcome::answered(renderJob(*job, ids));
}

MediaOutcome content(std::string_view id, std::string_view query, VideoJobs& jobs, IdSource& ids) {
  auto job = jobs.find(id);
  if (!job) return MediaOutcome::refused(unknownVideo(id, ids));
  std::string_view variant = queryParam(query, "variant");
  if (variant.empty()) variant = "video";
  if (variant != "video" && variant != "thumbnail" && variant != "spritesheet") {
    return MediaOutcome::refused(
        openai::invalidValue(ids, "variant", variant, {"video", "thumbnail", "spritesheet"}));
  }
  if (job->status() != VideoJob::Status::Completed) {
    return MediaOutcome::refused(openAiError(
        ids, 400, "Video is not ready yet, use GET /v1/videos/" + job->id + " to check its status.",
        "invalid_request_error", {}, "video_not_ready"));
  }
  Rendered out;
  if (variant == "video") {
    setChunkedBytes(out.reply, "video/mp4", fakeMp4(*job), kContentPieceBytes);
  } else {
    // The API sends WebP and JPEG previews; the mock has one image format.
    setChunkedBytes(out.reply, "image/png", tinyPng(job->seed), kContentPieceBytes);
  }
  addOpenAiAnswerHeaders(out.reply, ids);
  return MediaOutcome::answered(std::move(out));
}

}  // namespace llmux::mock::video
