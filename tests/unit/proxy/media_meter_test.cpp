#include "proxy/media_meter.h"

#include <gtest/gtest.h>

#include "proxy/request_cost.h"

namespace llmux::proxy {
namespace {

using protocol::RouteKind;

protocol::MediaAsk askFor(std::int64_t images, double seconds, std::int64_t characters) {
  return protocol::MediaAsk{images, seconds, characters};
}

/// `body` fed in pieces of `step` bytes, then finished.
MediaMeter metered(RouteKind route, protocol::MediaAsk ask, std::string_view body, bool success = true,
                   bool json = true, std::size_t step = 7) {
  MediaMeter meter(route, ask, success, json);
  for (std::size_t at = 0; at < body.size(); at += step) meter.feed(body.substr(at, step));
  meter.finish();
  return meter;
}

TEST(MediaMeter, EachModalityInItsUnit) {
  auto images = metered(RouteKind::ImageGenerations, askFor(3, 0, 0),
                        R"({"data":[{},{},{}],"usage":{"input_tokens":4,"output_tokens":816}})");
  EXPECT_EQ(images.mediaUsage(), (MediaUsage{"images", "images", 3}));
  ASSERT_TRUE(images.usage());
  EXPECT_EQ(images.usage()->output, 816);

  auto video = metered(RouteKind::VideoCreate, askFor(0, 4, 0), R"({"id":"video_1","seconds":"12"})");
  EXPECT_EQ(video.mediaUsage(), (MediaUsage{"videos", "seconds", 12}));  // the answer's seconds win
  EXPECT_EQ(video.videoId(), "video_1");

  // Speech is binary: nothing is kept, the characters asked for are the units.
  auto speech = metered(RouteKind::Speech, askFor(0, 0, 42), std::string(100'000, '\x7f'), true, false);
  EXPECT_EQ(speech.mediaUsage(), (MediaUsage{"speech", "characters", 42}));
  EXPECT_FALSE(speech.usage());

  auto by_duration = metered(RouteKind::Transcriptions, {}, R"({"text":"x","usage":{"type":"duration","seconds":61}})");
  EXPECT_EQ(by_duration.mediaUsage(), (MediaUsage{"transcriptions", "seconds", 61}));
  auto by_tokens = metered(RouteKind::Transcriptions, {},
                           R"({"text":"x","usage":{"type":"tokens","input_tokens":30,"output_tokens":5}})");
  EXPECT_EQ(by_tokens.mediaUsage(), (MediaUsage{"transcriptions", "tokens", 35}));
  auto as_text = metered(RouteKind::Transcriptions, {}, "plain words", true, false);
  EXPECT_FALSE(as_text.mediaUsage());

  auto embeddings = metered(RouteKind::Embeddings, {}, R"({"data":[],"usage":{"prompt_tokens":9,"total_tokens":9}})");
  EXPECT_EQ(embeddings.mediaUsage(), (MediaUsage{"embeddings", "tokens", 9}));

  // Polls and downloads of a job are not billed.
  EXPECT_FALSE(metered(RouteKind::VideoRetrieve, {}, R"({"id":"video_1","seconds":"4"})").mediaUsage());
}

TEST(MediaMeter, FailedOrUnfinishedAnswersAreNotBilled) {
  EXPECT_FALSE(metered(RouteKind::Speech, askFor(0, 0, 42), R"({"error":{}})", false).mediaUsage());
  MediaMeter cut(RouteKind::ImageGenerations, askFor(2, 0, 0), true, true);
  cut.feed(R"({"data":[)");
  EXPECT_FALSE(cut.mediaUsage());  // never finished: the answer broke
}

TEST(MediaMeter, AnAnswerTooLargeToKeepIsReadFromItsTail) {
  std::string big = R"({"data":[{"b64_json":")" + std::string(MediaMeter::kMaxKept + 12345, 'A') +
                    R"("}],"usage":{"input_tokens":12,"output_tokens":4160}})";
  auto meter = metered(RouteKind::ImageGenerations, askFor(1, 0, 0), big, true, true, 65'536);
  ASSERT_TRUE(meter.usage());
  EXPECT_EQ(meter.usage()->input, 12);
  EXPECT_EQ(meter.usage()->output, 4160);
}

TEST(RequestCost, MediaUnitsAtTheirPricesBesidesTokens) {
  std::map<std::string, config::ModelPrice> prices;
  prices["gpt-image-1"] = {.input = 5, .output = 40, .per_image = 0.01};
  prices["tts-1"] = {.per_million_characters = 15};
  prices["sora-2"] = {.per_second = 0.1};
  RequestRecord image;
  image.model = "gpt-image-1";
  image.usage = TokenUsage{.input = 4, .output = 544};
  image.media = MediaUsage{"images", "images", 2};
  EXPECT_NEAR(requestCostOf(prices, image), 0.02 + 544 * 40e-6 + 4 * 5e-6, 1e-12);
  RequestRecord speech;
  speech.model = "tts-1";
  speech.media = MediaUsage{"speech", "characters", 1000};
  EXPECT_NEAR(requestCostOf(prices, speech), 0.015, 1e-12);
  RequestRecord video;
  video.model = "sora-2";
  video.media = MediaUsage{"videos", "seconds", 8};
  EXPECT_NEAR(*loggedCostOf(prices, video), 0.8, 1e-12);
  RequestRecord unpriced;
  unpriced.model = "whisper-1";
  unpriced.media = MediaUsage{"transcriptions", "seconds", 10};
  EXPECT_FALSE(loggedCostOf(prices, unpriced));
}

}  // namespace
}  // namespace llmux::proxy
