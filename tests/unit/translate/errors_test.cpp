#include "translate/errors.h"
#include "translate/overflow_counts.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace llmux::translate {
namespace {

WallTime now() { return WallTime(std::chrono::seconds(1'700'000'000)); }

TEST(Errors, ContextOverflowFromEveryProviderBecomesA400InEveryClientShape) {
  struct Case {
    Protocol upstream;
    int status;
    std::string body;
  };
  std::vector<Case> cases = {
      {Protocol::OpenAiChat, 400,
       R"({"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 8227 tokens.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})"},
      {Protocol::Anthropic, 400,
       R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 219898 tokens > 200000 maximum"}})"},
      {Protocol::Gemini, 400,
       R"({"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})"},
      {Protocol::OpenAiChat, 413, R"({"error":{"message":"Request too large: too many tokens"}})"},
  };
  for (auto const& c : cases) {
    auto error = readUpstreamError(c.upstream, c.status, c.body, {}, now());
    EXPECT_EQ(error.cls, ErrorClass::ContextOverflow) << c.body;
    auto openai = renderForClient(Protocol::OpenAiChat, error, "r");
    EXPECT_EQ(openai.status, 400) << "normalised whatever the upstream's status: " << c.status;
    EXPECT_EQ(boost::json::parse(openai.body).at("error").at("code").as_string(), "context_length_exceeded");
    auto anthropic = renderForClient(Protocol::Anthropic, error, "r");
    EXPECT_NE(anthropic.body.find("prompt is too long"), std::string::npos) << anthropic.body;
    auto gemini = renderForClient(Protocol::Gemini, error, "r");
    EXPECT_EQ(boost::json::parse(gemini.body).at("error").at("status").as_string(), "INVALID_ARGUMENT");
  }
}

// A Gemini client gets Gemini's own sentence (the one Gemini CLI reads), whoever overflowed, with
// the counts the upstream stated and no others.
TEST(Errors, GeminiClientsGetGeminisContextOverflowSentenceWithTheUpstreamsCounts) {
  struct Case {
    Protocol upstream;
    int status;
    std::string body;
    std::string expected;  ///< the Gemini client's message
  };
  std::vector<Case> cases = {
      {Protocol::OpenAiChat, 400,
       R"({"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})",
       "The input token count (130000) exceeds the maximum number of tokens allowed (128000)."},
      // The completion's reservation comes out of the window: 4096 - 2048 are left for input.
      {Protocol::OpenAiChat, 400,
       R"({"error":{"message":"This model's maximum context length is 4096 tokens. However, you requested 5048 tokens (3000 in the messages, 2048 in the completion). Please reduce the length of the messages or completion.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}})",
       "The input token count (3000) exceeds the maximum number of tokens allowed (2048)."},
      // The Responses API states no count: none is made up.
      {Protocol::OpenAiResponses, 400,
       R"({"error":{"message":"Your input exceeds the context window of this model. Please adjust your input and try again.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}})",
       "The input token count exceeds the maximum number of tokens allowed."},
      {Protocol::Anthropic, 400,
       R"({"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"},"request_id":"req_1"})",
       "The input token count (210000) exceeds the maximum number of tokens allowed (200000)."},
      {Protocol::Anthropic, 400,
       R"({"type":"error","error":{"type":"invalid_request_error","message":"input length and `max_tokens` exceed context limit: 190000 + 20000 > 200000, decrease input length or `max_tokens` and try again"}})",
       "The input token count (190000) exceeds the maximum number of tokens allowed (180000)."},
      // Relays: a 413 that says only "too many tokens", vLLM's 422, a Mistral-style 500,
      // OpenRouter's estimate with its completion reservation.
      {Protocol::OpenAiChat, 413, R"({"error":{"message":"Request too large: too many tokens"}})",
       "The input token count exceeds the maximum number of tokens allowed."},
      {Protocol::OpenAiChat, 422,
       R"({"error":{"message":"This model's maximum context length is 32768 tokens. However, your request has 40000 input tokens. Please reduce the length of the input messages.","type":"BadRequestError"}})",
       "The input token count (40000) exceeds the maximum number of tokens allowed (32768)."},
      {Protocol::OpenAiChat, 500,
       R"({"error":{"message":"Prompt contains 40000 tokens and 0 draft tokens, too large for model with 32768 maximum context length"}})",
       "The input token count (40000) exceeds the maximum number of tokens allowed (32768)."},
      {Protocol::OpenAiChat, 400,
       R"({"error":{"message":"This endpoint's maximum context length is 200,000 tokens. However, you requested about 250,000 tokens (240,000 of text input, 10,000 in the output). Please reduce the length of either one.","code":400}})",
       "The input token count (240000) exceeds the maximum number of tokens allowed (190000)."},
      // Gemini's own wordings (a relay in front of Gemini, passthrough) stay as they are.
      {Protocol::Gemini, 500,
       R"({"error":{"code":500,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INTERNAL"}})",
       "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."},
      {Protocol::Gemini, 400,
       R"({"error":{"code":400,"message":"The input token count exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})",
       "The input token count exceeds the maximum number of tokens allowed (1048576)."},
  };
  for (auto const& c : cases) {
    auto error = readUpstreamError(c.upstream, c.status, c.body, {}, now());
    ASSERT_EQ(error.cls, ErrorClass::ContextOverflow) << c.body;
    auto gemini = renderForClient(Protocol::Gemini, error, "r");
    EXPECT_EQ(gemini.status, 400) << c.body;
    std::string expected = R"({"error":{"code":400,"message":")" + c.expected +
                           R"(","status":"INVALID_ARGUMENT"}})";
    EXPECT_EQ(gemini.body, expected) << c.body;
  }
  // The same inside a stream (an in-stream error known by status and message only).
  auto in_stream = upstreamError(
      400, "This model's maximum context length is 8192 tokens. However, your messages resulted "
           "in 8227 tokens.");
  EXPECT_EQ(boost::json::parse(renderForClient(Protocol::Gemini, in_stream, "r").body)
                .at("error")
                .at("message"),
            "The input token count (8227) exceeds the maximum number of tokens allowed (8192).");
}

// Claude Code reads "prompt is too long: N tokens > M maximum"; with no counts stated, the
// upstream's words follow Anthropic's prefix. OpenAI clients keep the upstream's message.
TEST(Errors, AnthropicAndOpenAiClientsGetTheirOwnOverflowIdiom) {
  auto from_gemini = readUpstreamError(
      Protocol::Gemini, 400,
      R"({"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}})",
      {}, now());
  auto anthropic = boost::json::parse(renderForClient(Protocol::Anthropic, from_gemini, "r").body);
  EXPECT_EQ(anthropic.at("error").at("type"), "invalid_request_error");
  EXPECT_EQ(anthropic.at("error").at("message"),
            "prompt is too long: 1200000 tokens > 1048576 maximum");
  auto openai = boost::json::parse(renderForClient(Protocol::OpenAiChat, from_gemini, "r").body);
  EXPECT_EQ(openai.at("error").at("code"), "context_length_exceeded");
  EXPECT_EQ(openai.at("error").at("message"),
            "The input token count (1200000) exceeds the maximum number of tokens allowed "
            "(1048576).");

  auto from_responses = readUpstreamError(
      Protocol::OpenAiResponses, 400,
      R"({"error":{"message":"Your input exceeds the context window of this model.","code":"context_length_exceeded"}})",
      {}, now());
  EXPECT_EQ(boost::json::parse(renderForClient(Protocol::Anthropic, from_responses, "r").body)
                .at("error")
                .at("message"),
            "prompt is too long: Your input exceeds the context window of this model.");
}

TEST(Errors, OverflowCountsAreOnlyTheOnesStated) {
  EXPECT_FALSE(readOverflowCounts("context length exceeded").input);
  EXPECT_FALSE(readOverflowCounts("context length exceeded").limit);
  auto only_limit = readOverflowCounts("This model's maximum context length is 8192 tokens.");
  EXPECT_FALSE(only_limit.input);
  EXPECT_EQ(only_limit.limit, 8192);
  EXPECT_EQ(geminiOverflowMessage(only_limit),
            "The input token count exceeds the maximum number of tokens allowed (8192).");
  auto only_input = readOverflowCounts("prompt is too long: 300000 tokens");
  EXPECT_EQ(only_input.input, 300000);
  EXPECT_FALSE(only_input.limit);
  EXPECT_EQ(geminiOverflowMessage(only_input),
            "The input token count (300000) exceeds the maximum number of tokens allowed.");
  EXPECT_EQ(anthropicOverflowMessage(only_input, "prompt is too long: 300000 tokens"),
            "prompt is too long: 300000 tokens");
  // Counts that contradict the claim (the input fits the limit) are not repeated.
  auto odd = readOverflowCounts("maximum context length is 9000 tokens, resulted in 10 tokens");
  EXPECT_FALSE(odd.input);
  EXPECT_FALSE(odd.limit);
  // A run of digits longer than any count is no count.
  EXPECT_FALSE(
      readOverflowCounts("prompt is too long: 12345678901234567890 tokens > 5 maximum").input);
}

TEST(Errors, OverloadAndRateLimitKeepTheirMeaningAcrossProtocols) {
  auto overloaded = readUpstreamError(
      Protocol::Anthropic, 529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})",
      {}, now());
  EXPECT_EQ(renderForClient(Protocol::OpenAiChat, overloaded, "r").status, 503);
  EXPECT_EQ(renderForClient(Protocol::Anthropic, overloaded, "r").status, 529);
  EXPECT_EQ(renderForClient(Protocol::Gemini, overloaded, "r").status, 503);

  // Gemini's 429 gives its delay in the body only; other clients get it as retry-after.
  auto limited = readUpstreamError(
      Protocol::Gemini, 429,
      R"({"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}})",
      {}, now());
  auto rendered = renderForClient(Protocol::Anthropic, limited, "r");
  EXPECT_EQ(rendered.status, 429);
  EXPECT_EQ(rendered.headers.get("retry-after"), "35");
  EXPECT_EQ(boost::json::parse(rendered.body).at("error").at("type").as_string(), "rate_limit_error");
}

TEST(Errors, GeminiClientsGetTheRetryDelayInTheBodyAsGoogleSendsIt) {
  // The Gemini SDKs and CLI read the delay from google.rpc.RetryInfo, not from a header.
  HeaderList headers;
  headers.add("retry-after", "20");
  auto limited = readUpstreamError(
      Protocol::Anthropic, 429,
      R"({"type":"error","error":{"type":"rate_limit_error","message":"slow down"}})", headers,
      now());
  auto rendered = renderForClient(Protocol::Gemini, limited, "r");
  EXPECT_EQ(rendered.status, 429);
  EXPECT_EQ(rendered.headers.get("retry-after"), "20");
  EXPECT_EQ(
      rendered.body,
      R"({"error":{"code":429,"message":"slow down","status":"RESOURCE_EXHAUSTED",)"
      R"("details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"20s"}]}})");

  auto from_gemini = readUpstreamError(
      Protocol::Gemini, 429,
      R"({"error":{"code":429,"message":"quota","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"34.4s"}]}})",
      {}, now());
  auto body = boost::json::parse(renderForClient(Protocol::Gemini, from_gemini, "r").body);
  EXPECT_EQ(body.at("error").at("details").at(0).at("retryDelay"), "34.400s");

  auto unknown =
      readUpstreamError(Protocol::OpenAiChat, 429, R"({"error":{"message":"x"}})", {}, now());
  EXPECT_FALSE(boost::json::parse(renderForClient(Protocol::Gemini, unknown, "r").body)
                   .at("error")
                   .as_object()
                   .contains("details"))
      << "no delay known, none made up";
}

TEST(Errors, AThrottlingMessageAboutTokensIsARateLimitNotAnOverflow) {
  // AWS Bedrock's throttling wording mentions tokens; the status says what it is.
  auto error = readUpstreamError(
      Protocol::Anthropic, 429,
      R"({"type":"error","error":{"type":"rate_limit_error","message":"Too many tokens, please wait before trying again."}})",
      {}, now());
  EXPECT_EQ(error.cls, ErrorClass::RateLimited);
  EXPECT_EQ(renderForClient(Protocol::OpenAiChat, error, "r").status, 429);
  EXPECT_EQ(upstreamError(429, "Too many tokens").cls, ErrorClass::RateLimited);
  EXPECT_EQ(upstreamError(500, "maximum context length exceeded").cls, ErrorClass::ContextOverflow);
}

TEST(Errors, OtherClientErrorsKeepTheirStatus) {
  auto billing = readUpstreamError(
      Protocol::Anthropic, 402,
      R"({"type":"error","error":{"type":"billing_error","message":"Your credit balance is too low"}})",
      {}, now());
  EXPECT_EQ(renderForClient(Protocol::OpenAiChat, billing, "r").status, 402);
  EXPECT_EQ(renderForClient(Protocol::Gemini, billing, "r").status, 402);
  auto conflict = readUpstreamError(Protocol::OpenAiChat, 409, R"({"error":{"message":"conflict"}})", {}, now());
  EXPECT_EQ(renderForClient(Protocol::Anthropic, conflict, "r").status, 409);
}

}  // namespace
}  // namespace llmux::translate
