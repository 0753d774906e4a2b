#include "protocol/media_request.h"

#include <gtest/gtest.h>

#include "protocol/model_splice.h"
#include "protocol/multipart.h"

namespace llmux::protocol {
namespace {

Route routeOf(RouteKind kind) {
  Route route;
  route.kind = kind;
  route.protocol = Protocol::OpenAiChat;
  return route;
}

constexpr std::string_view kForm = "multipart/form-data; boundary=xyz";

/// A transcription upload as the openai SDK sends one: the file first, then the fields.
std::string transcriptionForm(std::string_view model) {
  std::string body;
  appendMultipartPart(body, "xyz", "file", std::string("RIFF\0\0model\r\n", 13), true, "a.wav", "audio/wav");
  appendMultipartPart(body, "xyz", "model", model);
  appendMultipartPart(body, "xyz", "response_format", "json");
  closeMultipart(body, "xyz");
  return body;
}

std::string errorOf(Result<MediaRequest> const& r) { return r ? "(accepted)" : r.error().message; }

TEST(MediaRequest, JsonBodiesGiveTheModelItsSpanAndTheBilledQuantities) {
  std::string body = R"({"prompt":"a cat","model":"gpt-image-1","n":3,"size":"1024x1024"})";
  auto images = inspectMediaRequest(routeOf(RouteKind::ImageGenerations), "application/json", body);
  ASSERT_TRUE(images) << errorOf(images);
  EXPECT_EQ(images->profile.model, "gpt-image-1");
  EXPECT_EQ(body.substr(images->profile.model_begin, images->profile.model_end - images->profile.model_begin),
            "\"gpt-image-1\"");
  EXPECT_FALSE(images->profile.model_raw);
  EXPECT_FALSE(images->profile.stream);
  EXPECT_EQ(images->ask.images, 3);

  auto one = inspectMediaRequest(routeOf(RouteKind::ImageGenerations), "", R"({"model":"dall-e-3","prompt":"x"})");
  ASSERT_TRUE(one) << errorOf(one);
  EXPECT_EQ(one->ask.images, 1);  // n defaults to 1

  auto speech = inspectMediaRequest(routeOf(RouteKind::Speech), "application/json",
                                    R"({"model":"tts-1","voice":"alloy","input":"h\u00e9llo 世界"})");
  ASSERT_TRUE(speech) << errorOf(speech);
  EXPECT_EQ(speech->ask.speech_characters, 8);  // code points, not bytes

  auto video = inspectMediaRequest(routeOf(RouteKind::VideoCreate), "application/json",
                                   R"({"model":"sora-2","prompt":"waves","seconds":"8"})");
  ASSERT_TRUE(video) << errorOf(video);
  EXPECT_EQ(video->ask.video_seconds, 8);
  auto default_video = inspectMediaRequest(routeOf(RouteKind::VideoCreate), "", R"({"model":"sora-2","prompt":"w"})");
  ASSERT_TRUE(default_video);
  EXPECT_EQ(default_video->ask.video_seconds, 4);

  auto embeddings = inspectMediaRequest(routeOf(RouteKind::Embeddings), "application/json",
                                        R"({"model":"text-embedding-3-small","input":["a","b"]})");
  ASSERT_TRUE(embeddings) << errorOf(embeddings);
  EXPECT_EQ(embeddings->profile.model, "text-embedding-3-small");
}

TEST(MediaRequest, FormUploadsGiveTheRawFieldSpanWhichSplicesUnquoted) {
  std::string body = transcriptionForm("whisper-1");
  auto read = inspectMediaRequest(routeOf(RouteKind::Transcriptions), kForm, body);
  ASSERT_TRUE(read) << errorOf(read);
  EXPECT_EQ(read->profile.model, "whisper-1");
  EXPECT_TRUE(read->profile.model_raw);
  // The file's bytes mention "model" and a CRLF: only the field counts.
  SplicedBody spliced = spliceModel(body, read->profile, "whisper-large-v3");
  std::string const sent = spliced.joined();  // the parts view it
  auto parts = parseMultipart(sent, "xyz");
  ASSERT_TRUE(parts) << parts.error().message;
  ASSERT_EQ(parts->size(), 3u);
  EXPECT_EQ((*parts)[1].name, "model");
  EXPECT_EQ((*parts)[1].body, "whisper-large-v3");
  EXPECT_EQ((*parts)[0].body, std::string("RIFF\0\0model\r\n", 13));

  std::string edit;
  appendMultipartPart(edit, "xyz", "image", "PNG", true, "a.png", "image/png");
  appendMultipartPart(edit, "xyz", "model", "gpt-image-1");
  appendMultipartPart(edit, "xyz", "n", "2");
  closeMultipart(edit, "xyz");
  auto edits = inspectMediaRequest(routeOf(RouteKind::ImageEdits), kForm, edit);
  ASSERT_TRUE(edits) << errorOf(edits);
  EXPECT_EQ(edits->ask.images, 2);

  std::string video;
  appendMultipartPart(video, "xyz", "model", "sora-2");
  appendMultipartPart(video, "xyz", "seconds", "12");
  appendMultipartPart(video, "xyz", "input_reference", "JPEG", true, "ref.jpg", "image/jpeg");
  closeMultipart(video, "xyz");
  auto job = inspectMediaRequest(routeOf(RouteKind::VideoCreate), kForm, video);
  ASSERT_TRUE(job) << errorOf(job);
  EXPECT_EQ(job->ask.video_seconds, 12);
}

TEST(MediaRequest, RefusesWhatAnUpstreamWouldRefuseWithAMessageToActOn) {
  auto form_for_json = inspectMediaRequest(routeOf(RouteKind::Embeddings), kForm, transcriptionForm("m"));
  EXPECT_NE(errorOf(form_for_json).find("JSON body"), std::string::npos);
  auto json_for_form = inspectMediaRequest(routeOf(RouteKind::Transcriptions), "application/json", R"({"model":"whisper-1"})");
  EXPECT_NE(errorOf(json_for_form).find("multipart/form-data"), std::string::npos);
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::ImageGenerations), "", R"({"prompt":"x"})"))
                .find("\"model\""),
            std::string::npos);
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::ImageGenerations), "",
                                        R"({"model":"a","model":"b"})"))
                .find("more than one"),
            std::string::npos);
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::ImageGenerations), "", R"({"model":5})")).find("string"),
            std::string::npos);
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::ImageGenerations), "", R"({"model":""})")).find("empty"),
            std::string::npos);
  for (std::string_view n : {"0", "-1", "1.5", "\"two\"", "1e9"}) {
    std::string body = std::string(R"({"model":"m","n":)") + std::string(n) + "}";
    EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::ImageGenerations), "", body)).find("\"n\""),
              std::string::npos)
        << n;
  }
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::VideoCreate), "", R"({"model":"m","seconds":"soon"})"))
                .find("\"seconds\""),
            std::string::npos);
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::Speech), "", R"({"model":"tts-1"})")).find("\"input\""),
            std::string::npos);
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::Embeddings), "", "{")).find("not valid JSON"),
            std::string::npos);
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::Embeddings), "", "")).find("empty"), std::string::npos);
  // A form whose framing is broken, and one with the model twice.
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::Transcriptions), kForm, "--xyz\r\nbroken")).find("multipart"),
            std::string::npos);
  std::string twice;
  appendMultipartPart(twice, "xyz", "model", "a");
  appendMultipartPart(twice, "xyz", "model", "b");
  closeMultipart(twice, "xyz");
  EXPECT_NE(errorOf(inspectMediaRequest(routeOf(RouteKind::Transcriptions), kForm, twice)).find("more than one"),
            std::string::npos);
  // Routes without a body to inspect are the caller's bug.
  auto poll = inspectMediaRequest(routeOf(RouteKind::VideoRetrieve), "", "");
  ASSERT_FALSE(poll);
  EXPECT_EQ(poll.error().kind, ErrorKind::Internal);
}

TEST(MediaRequest, ContentTypes) {
  EXPECT_TRUE(isMultipartFormData("Multipart/Form-Data ; boundary=x"));
  EXPECT_FALSE(isMultipartFormData("multipart/mixed; boundary=x"));
  EXPECT_TRUE(isJsonContentType("application/json; charset=utf-8"));
  EXPECT_TRUE(isJsonContentType("application/problem+json"));
  EXPECT_FALSE(isJsonContentType("audio/mpeg"));
  EXPECT_FALSE(isJsonContentType("+json"));
}

}  // namespace
}  // namespace llmux::protocol
