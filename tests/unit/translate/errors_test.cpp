#include "translate/errors.h"

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
