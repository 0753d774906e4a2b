// OpenAI's video jobs: create, poll until completed, download.
#include <gtest/gtest.h>

#include "media_test_support.h"
#include "mock/mock_provider.h"
#include "mock/png_image.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::errorOf;
using testing::formPost;
using testing::getRequest;
using testing::jsonOf;
using testing::jsonPost;

json::value createVideo(MockProvider& mock, std::string body = R"({"prompt":"A calm lake"})",
                        std::string polls = {}) {
  MockRequest request = jsonPost("/v1/videos", std::move(body));
  if (!polls.empty()) request.headers.add("x-mock-video-polls", polls);
  MockReply reply = mock.handle(request);
  EXPECT_EQ(reply.status, 200) << reply.body();
  return jsonOf(reply);
}

json::value poll(MockProvider& mock, std::string_view id) {
  MockReply reply = mock.handle(getRequest("/v1/videos/" + std::string(id)));
  EXPECT_EQ(reply.status, 200) << reply.body();
  return jsonOf(reply);
}

TEST(MockVideo, CreateAnswersAQueuedJob) {
  MockProvider mock;
  json::value job = createVideo(mock);
  std::string id(job.at("id").as_string());
  EXPECT_TRUE(id.starts_with("video_"));
  EXPECT_EQ(id.size(), 6u + 48);
  EXPECT_EQ(job.at("object"), "video");
  EXPECT_EQ(job.at("status"), "queued");
  EXPECT_EQ(job.at("progress"), 0);
  EXPECT_EQ(job.at("model"), "sora-2");
  EXPECT_EQ(job.at("seconds"), "4");
  EXPECT_EQ(job.at("size"), "720x1280");
  EXPECT_EQ(job.at("prompt"), "A calm lake");
  EXPECT_TRUE(job.at("created_at").is_int64());
  for (auto key : {"completed_at", "expires_at", "error", "remixed_from_video_id"}) {
    EXPECT_TRUE(job.at(key).is_null()) << key;
  }
  // The same request twice makes two jobs.
  EXPECT_NE(createVideo(mock).at("id"), job.at("id"));
}

TEST(MockVideo, CreateFromAFormWithAReferenceImage) {
  MockProvider mock;
  MockReply reply = mock.handle(
      formPost("/v1/videos", {{"prompt", "A dog", "", ""},
                              {"model", "sora-2-pro", "", ""},
                              {"seconds", "8", "", ""},
                              {"size", "1280x720", "", ""},
                              {"input_reference", tinyPng(1), "ref.png", "image/png"}}));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value job = jsonOf(reply);
  EXPECT_EQ(job.at("model"), "sora-2-pro");
  EXPECT_EQ(job.at("seconds"), "8");
  EXPECT_EQ(job.at("size"), "1280x720");
}

TEST(MockVideo, CompletesOnTheThirdPollByDefault) {
  MockProvider mock;
  std::string id(createVideo(mock).at("id").as_string());
  MockReply early = mock.handle(getRequest("/v1/videos/" + id + "/content"));
  EXPECT_EQ(early.status, 400);
  EXPECT_EQ(errorOf(early)["code"], "video_not_ready");

  json::value first = poll(mock, id);
  EXPECT_EQ(first.at("status"), "in_progress");
  EXPECT_EQ(first.at("progress"), 33);
  json::value second = poll(mock, id);
  EXPECT_EQ(second.at("status"), "in_progress");
  EXPECT_EQ(second.at("progress"), 66);
  EXPECT_TRUE(second.at("completed_at").is_null());
  json::value third = poll(mock, id);
  EXPECT_EQ(third.at("status"), "completed");
  EXPECT_EQ(third.at("progress"), 100);
  EXPECT_GT(third.at("completed_at").as_int64(), third.at("created_at").as_int64());
  EXPECT_GT(third.at("expires_at").as_int64(), third.at("completed_at").as_int64());
  EXPECT_EQ(poll(mock, id).at("status"), "completed");  // and stays so

  MockReply video = mock.handle(getRequest("/v1/videos/" + id + "/content"));
  ASSERT_EQ(video.status, 200) << video.body();
  EXPECT_EQ(video.headers.get("content-type"), "video/mp4");
  EXPECT_TRUE(video.streaming);
  EXPECT_GE(video.chunks.size(), 4u);
  std::string bytes = video.body();
  EXPECT_EQ(bytes.substr(4, 8), "ftypisom");
  EXPECT_EQ(bytes.substr(36, 4), "mdat");
  EXPECT_EQ(testing::readBe(bytes, 32, 4), bytes.size() - 32);
  EXPECT_EQ(mock.handle(getRequest("/v1/videos/" + id + "/content")).body(), bytes);

  MockReply thumbnail =
      mock.handle(getRequest("/v1/videos/" + id + "/content", "variant=thumbnail"));
  EXPECT_EQ(thumbnail.headers.get("content-type"), "image/png");
  EXPECT_EQ(testing::pngSize(thumbnail.body()).first, kMockImageSide);
  MockReply bad = mock.handle(getRequest("/v1/videos/" + id + "/content", "variant=gif"));
  EXPECT_EQ(errorOf(bad)["message"],
            "Invalid value: 'gif'. Supported values are: 'video', 'thumbnail', and 'spritesheet'.");
}

TEST(MockVideo, PollsHeaderSetsWhenTheJobCompletes) {
  MockProvider mock;
  std::string fast(createVideo(mock, R"({"prompt":"p"})", "1").at("id").as_string());
  EXPECT_EQ(poll(mock, fast).at("status"), "completed");
  std::string slow(createVideo(mock, R"({"prompt":"p"})", "5").at("id").as_string());
  for (int i = 1; i < 5; ++i) EXPECT_EQ(poll(mock, slow).at("progress"), i * 20);
  EXPECT_EQ(poll(mock, slow).at("status"), "completed");
  MockRequest bad = jsonPost("/v1/videos", R"({"prompt":"p"})");
  bad.headers.add("x-mock-video-polls", "0");
  EXPECT_EQ(errorOf(mock.handle(bad))["message"],
            "invalid x-mock-video-polls: expected a number of polls from 1 to 1000");
}

TEST(MockVideo, AFaultedPollDoesNotMoveTheJob) {
  MockProvider mock;
  std::string id(createVideo(mock).at("id").as_string());
  MockRequest faulted = getRequest("/v1/videos/" + id);
  faulted.headers.add("x-mock-fault", "503");
  EXPECT_EQ(mock.handle(faulted).status, 503);
  EXPECT_EQ(poll(mock, id).at("progress"), 33);
}

TEST(MockVideo, UnknownIdsAndRoutes) {
  MockProvider mock;
  MockReply unknown = mock.handle(getRequest("/v1/videos/video_nope"));
  EXPECT_EQ(unknown.status, 404);
  EXPECT_EQ(errorOf(unknown)["message"], "Video with id 'video_nope' not found.");
  EXPECT_EQ(mock.handle(getRequest("/v1/videos/video_nope/content")).status, 404);
  // Not media routes: the unknown-route 404.
  for (std::string path : {"/v1/videos", "/v1/videos/a/b", "/v1/videos//content"}) {
    MockReply reply = mock.handle(getRequest(path));
    EXPECT_EQ(reply.status, 404) << path;
    EXPECT_NE(errorOf(reply)["message"].as_string().find("Invalid URL"), json::string::npos)
        << path;
  }
}

TEST(MockVideo, OldJobsAreForgottenPastTheCapacity) {
  MockProvider mock;
  std::string first(createVideo(mock).at("id").as_string());
  for (int i = 0; i < 1024; ++i) createVideo(mock);
  EXPECT_EQ(mock.handle(getRequest("/v1/videos/" + first)).status, 404);
}

TEST(MockVideo, CreateRefusals) {
  MockProvider mock;
  struct Case {
    std::string body;
    std::string message;
  };
  for (Case const& c : std::initializer_list<Case>{
           {R"({"model":"sora-2"})", "Missing required parameter: 'prompt'."},
           {R"({"prompt":"p","seconds":8})",
            "Invalid type for 'seconds': expected one of '4', '8', or '12', but got an integer "
            "instead."},
           {R"({"prompt":"p","seconds":"5"})",
            "Invalid value: '5'. Supported values are: '4', '8', and '12'."},
           {R"({"prompt":"p","size":"1x1"})",
            "Invalid value: '1x1'. Supported values are: '720x1280', '1280x720', '1024x1792', and "
            "'1792x1024'."},
           {R"({"prompt":"p","input_reference":"https://x"})",
            "Invalid type for 'input_reference': expected an object, but got a string instead."},
       }) {
    MockReply reply = mock.handle(jsonPost("/v1/videos", c.body));
    EXPECT_EQ(reply.status, 400) << c.body;
    EXPECT_EQ(errorOf(reply)["message"], c.message.c_str()) << c.body;
  }
}

}  // namespace
}  // namespace llmux::mock
