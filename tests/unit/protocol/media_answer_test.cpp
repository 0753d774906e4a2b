#include "protocol/media_answer.h"

#include <gtest/gtest.h>

namespace llmux::protocol {
namespace {

TEST(MediaAnswer, ReadsTokensUnderBothSpellingsSecondsAndTheJobId) {
  // gpt-image-1 (tokens as input/output), embeddings (prompt_tokens), a duration-billed
  // transcription, a video job.
  auto image = readMediaAnswer(
      R"({"created":1,"data":[{"b64_json":"AAAA"}],"usage":{"input_tokens":50,"output_tokens":4160,"total_tokens":4210}})");
  ASSERT_TRUE(image.usage);
  EXPECT_EQ(image.usage->input, 50);
  EXPECT_EQ(image.usage->output, 4160);
  auto embedding = readMediaAnswer(R"({"object":"list","data":[],"usage":{"prompt_tokens":8,"total_tokens":8}})");
  ASSERT_TRUE(embedding.usage);
  EXPECT_EQ(embedding.usage->input, 8);
  EXPECT_EQ(embedding.usage->output, 0);
  auto transcription = readMediaAnswer(R"({"text":"hi","usage":{"type":"duration","seconds":9}})");
  EXPECT_FALSE(transcription.usage);
  EXPECT_EQ(transcription.seconds, 9);
  auto video = readMediaAnswer(R"({"id":"video_68d2","object":"video","status":"queued","seconds":"8"})");
  EXPECT_EQ(video.id, "video_68d2");
  EXPECT_EQ(video.seconds, 8);
}

TEST(MediaAnswer, WhatIsNotAJsonObjectSaysNothing) {
  for (std::string_view body : {"", "hello", "[1,2]", "{\"usage\":", "{\"usage\":{\"input_tokens\":-5}}"}) {
    auto answer = readMediaAnswer(body);
    EXPECT_FALSE(answer.usage) << body;
    EXPECT_FALSE(answer.seconds) << body;
    EXPECT_TRUE(answer.id.empty()) << body;
  }
}

TEST(MediaAnswer, TheTailOfAnAnswerTooLargeToKeepStillGivesItsUsage) {
  std::string tail = R"(AAAA"}],"output_format":"png","usage":{"input_tokens":12,"output_tokens":1056,)"
                     R"("input_tokens_details":{"image_tokens":0,"text_tokens":12}}})";
  auto answer = readMediaAnswerTail(tail);
  ASSERT_TRUE(answer.usage);
  EXPECT_EQ(answer.usage->input, 12);
  EXPECT_EQ(answer.usage->output, 1056);
  EXPECT_FALSE(readMediaAnswerTail(R"("usage":{"input_tokens":12)").usage);  // cut: nothing
  EXPECT_FALSE(readMediaAnswerTail(R"("usage": null, "x": {"input_tokens":1}})").usage);
  EXPECT_FALSE(readMediaAnswerTail("no usage here").usage);
}

}  // namespace
}  // namespace llmux::protocol
