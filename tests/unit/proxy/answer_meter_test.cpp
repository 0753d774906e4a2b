#include "proxy/answer_meter.h"

#include <gtest/gtest.h>

namespace llmux::proxy {
namespace {

constexpr std::string_view kChatAnswer =
    R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o-mini",)"
    R"("choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},)"
    R"("finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}})";

TEST(AnswerMeter, AWholeAnswerIsMeteredWhateverItsSplit) {
  AnswerMeter meter(Protocol::OpenAiChat, false, true, 100);
  EXPECT_FALSE(meter.holding()) << "only streams are held";
  meter.feed(kChatAnswer.substr(0, 40));
  meter.feed(kChatAnswer.substr(40));
  meter.finish();
  ASSERT_TRUE(meter.usage());
  EXPECT_EQ(meter.usage()->input, 12);
  EXPECT_EQ(meter.usage()->output, 3);
}

TEST(AnswerMeter, ErrorAnswersAreNotMetered) {
  AnswerMeter meter(Protocol::OpenAiChat, true, false, 100);
  EXPECT_FALSE(meter.holding());
  meter.feed(R"({"error":{"message":"bad","type":"invalid_request_error"}})");
  meter.finish();
  EXPECT_FALSE(meter.usage());
  EXPECT_FALSE(meter.failureBeforeContent());
}

TEST(AnswerMeter, AStreamIsHeldUntilItsFirstContent) {
  AnswerMeter meter(Protocol::OpenAiChat, true, true, 100);
  EXPECT_TRUE(meter.holding());
  meter.feed(
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},"
      "\"finish_reason\":null}]}\n\n");
  EXPECT_TRUE(meter.holding()) << "the role chunk carries no content";
  meter.feed(
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":null}]}\n\n");
  EXPECT_FALSE(meter.holding());
}

TEST(AnswerMeter, AnErrorInPlaceOfContentEndsTheHold) {
  AnswerMeter meter(Protocol::OpenAiChat, true, true, 100);
  meter.feed("data: {\"error\":{\"message\":\"Rate limit reached\",\"type\":\"rate_limit_error\","
             "\"code\":\"rate_limit_exceeded\"}}\n\n");
  EXPECT_FALSE(meter.holding());
  ASSERT_TRUE(meter.failureBeforeContent());
  EXPECT_EQ(meter.failureBeforeContent()->status, 429);
}

// An OpenAI Chat stream without stream_options.include_usage reports no usage: the budgets
// are charged an estimate of what was relayed, marked as such.
TEST(AnswerMeter, AStreamWithoutUsageIsChargedAnEstimate) {
  AnswerMeter meter(Protocol::OpenAiChat, true, true, 100);
  std::string const text(400, 'x');
  meter.feed(
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"" +
      text +
      "\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n");
  meter.finish();
  auto usage = meter.usage();
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->input, 100) << "the prompt estimate";
  EXPECT_EQ(usage->output, 100) << "400 bytes of content";
  EXPECT_TRUE(usage->estimated);
}

TEST(AnswerMeter, AWholeAnswerWithoutUsageIsChargedAnEstimate) {
  AnswerMeter meter(Protocol::OpenAiChat, false, true, 20);
  meter.feed(R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"m",)"
             R"("choices":[{"index":0,"message":{"role":"assistant","content":"Hello, world"},)"
             R"("finish_reason":"stop"}]})");
  meter.finish();
  auto usage = meter.usage();
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->input, 20);
  EXPECT_EQ(usage->output, 3) << "12 bytes";
  EXPECT_TRUE(usage->estimated);
}

TEST(AnswerMeter, AStreamThatProducedNothingIsNotCharged) {
  AnswerMeter meter(Protocol::OpenAiChat, true, true, 100);
  meter.feed("data: [DONE]\n\n");
  meter.finish();
  EXPECT_FALSE(meter.usage());
}

TEST(StreamFailurePolicy, AContextOverflowIsNeverRetriedWhateverItsStatus) {
  auto overflow = translate::upstreamError(500, "This model's maximum context length is 128000");
  EXPECT_EQ(streamFailurePolicy(overflow).verdict, routing::Verdict::Relay);
  auto overloaded = translate::upstreamError(529, "Overloaded");
  EXPECT_EQ(streamFailurePolicy(overloaded).verdict, routing::Verdict::NextCandidate);
  auto limited = translate::upstreamError(429, "Too many tokens, please wait before trying again.");
  EXPECT_EQ(streamFailurePolicy(limited).verdict, routing::Verdict::NextKey)
      << "a throttling 429 is not a context overflow";
  auto bad = translate::upstreamError(400, "Invalid value for 'temperature'");
  EXPECT_EQ(streamFailurePolicy(bad).verdict, routing::Verdict::Relay);
}

}  // namespace
}  // namespace llmux::proxy
