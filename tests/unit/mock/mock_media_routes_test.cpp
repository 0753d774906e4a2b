// The media endpoints share the mock's routing, authentication and faults.
#include <gtest/gtest.h>

#include "media_test_support.h"
#include "mock/audio_bytes.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using testing::errorOf;
using testing::formPost;
using testing::getRequest;
using testing::jsonOf;
using testing::jsonPost;

constexpr std::string_view kEmbedding = R"({"model":"text-embedding-3-small","input":"hi"})";

MockRequest transcription(std::string model) {
  return formPost("/v1/audio/transcriptions",
                  {{"file", fakeAudio(AudioFormat::Wav, 500, 1), "a.wav", "audio/wav"},
                   {"model", std::move(model), "", ""}});
}

TEST(MockMediaRoutes, MatchOnThePathEndWhateverThePrefix) {
  MockProvider mock;
  EXPECT_EQ(mock.handle(jsonPost("/relay/openai/v1/embeddings/", std::string(kEmbedding))).status,
            200);
  EXPECT_EQ(mock.handle(jsonPost("/v1/images/generations", R"({"prompt":"p"})")).status, 200);
  EXPECT_EQ(
      mock.handle(jsonPost("/v1/audio/speech", R"({"model":"tts-1","input":"x","voice":"alloy"})"))
          .status,
      200);
  // A GET on a POST route is an unknown route.
  MockReply get = mock.handle(getRequest("/v1/embeddings"));
  EXPECT_EQ(get.status, 404);
  EXPECT_EQ(errorOf(get)["message"], "Invalid URL (GET /v1/embeddings)");
}

TEST(MockMediaRoutes, AuthenticatedLikeEveryOpenAiRoute) {
  MockProvider mock;
  MockRequest anonymous = jsonPost("/v1/embeddings", std::string(kEmbedding));
  anonymous.headers.remove("authorization");
  MockReply missing = mock.handle(anonymous);
  EXPECT_EQ(missing.status, 401);
  EXPECT_TRUE(errorOf(missing)["message"].as_string().starts_with("You didn't provide an API key"));
  MockRequest invalid = getRequest("/v1/videos/video_x");
  invalid.headers.set("authorization", "Bearer sk-invalid");
  EXPECT_EQ(errorOf(mock.handle(invalid))["code"], "invalid_api_key");
  MockRequest limited = transcription("whisper-1");
  limited.headers.set("authorization", "Bearer sk-ratelimited");
  MockReply reply = mock.handle(limited);
  EXPECT_EQ(reply.status, 429);
  EXPECT_EQ(reply.headers.get("retry-after"), "1");
}

TEST(MockMediaRoutes, StatusFaultsByHeaderOrModel) {
  MockProvider mock;
  MockRequest header = jsonPost("/v1/embeddings", std::string(kEmbedding));
  header.headers.add("x-mock-fault", "429=7");
  MockReply limited = mock.handle(header);
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.headers.get("retry-after"), "7");
  EXPECT_EQ(errorOf(limited)["code"], "rate_limit_exceeded");
  MockReply by_model = mock.handle(
      jsonPost("/v1/audio/speech", R"({"model":"fault-503","input":"x","voice":"alloy"})"));
  EXPECT_EQ(by_model.status, 503);
  EXPECT_EQ(mock.handle(transcription("fault-500")).status, 500);  // a form's model field
  MockRequest unknown = jsonPost("/v1/images/generations", R"({"prompt":"p"})");
  unknown.headers.add("x-mock-fault", "explode");
  MockReply refused = mock.handle(unknown);
  EXPECT_EQ(refused.status, 400);
  EXPECT_EQ(errorOf(refused)["message"], "invalid x-mock-fault spec 'explode': unknown fault");
}

TEST(MockMediaRoutes, FailNthCountsMediaRequests) {
  MockProvider mock;
  for (int i = 1; i <= 3; ++i) {
    MockRequest request = jsonPost("/v1/embeddings", std::string(kEmbedding));
    request.headers.add("x-mock-fault", "fail-nth=2:502@media");
    EXPECT_EQ(mock.handle(request).status, i == 2 ? 502 : 200) << i;
  }
}

TEST(MockMediaRoutes, SlowFirstByteAndCutWholeBodies) {
  MockProvider mock;
  MockRequest request = jsonPost("/v1/embeddings", std::string(kEmbedding));
  std::string whole = mock.handle(request).body();
  request.headers.add("x-mock-fault", "slow-first-byte=250, cut");
  MockReply reply = mock.handle(request);
  EXPECT_EQ(reply.status, 200);
  EXPECT_EQ(reply.head_delay, 250ms);
  EXPECT_TRUE(reply.streaming);
  EXPECT_EQ(reply.ending, MockEnding::Cut);
  EXPECT_EQ(reply.body(), whole.substr(0, whole.size() / 2));
}

TEST(MockMediaRoutes, KeepAlivesOnlyInEventStreams) {
  MockProvider mock;
  MockRequest request =
      formPost("/v1/audio/transcriptions",
               {{"file", fakeAudio(AudioFormat::Wav, 500, 1), "a.wav", "audio/wav"},
                {"model", "gpt-4o-mini-transcribe", "", ""},
                {"stream", "true", "", ""}});
  request.headers.add("x-mock-fault", "slow-first-token=350, keep-alive=100");
  MockReply reply = mock.handle(request);
  ASSERT_GE(reply.chunks.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(reply.chunks[i].bytes, ": keep-alive\n\n");
    EXPECT_EQ(reply.chunks[i].delay, 100ms);
  }
  EXPECT_EQ(reply.chunks[3].delay, 50ms);
  EXPECT_TRUE(reply.chunks[3].bytes.starts_with("data: {\"type\":\"transcript.text.delta\""));
}

}  // namespace
}  // namespace llmux::mock
