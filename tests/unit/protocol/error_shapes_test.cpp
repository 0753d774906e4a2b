#include "protocol/error_shapes.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include "protocol/sse_parser.h"

namespace llmux::protocol {
namespace {

boost::json::value parse(std::string_view text) {
  return boost::json::parse(text);
}

std::vector<SseEvent> events(std::string_view sse) {
  SseParser parser;
  std::vector<SseEvent> out;
  parser.feed(sse, out);
  parser.finish(out);
  return out;
}

TEST(ErrorShapes, OpenAiBodyByStatus) {
  struct Case {
    int status;
    std::string_view type;
    std::string_view code;  // "" means null
  };
  Case const cases[] = {
      {400, "invalid_request_error", ""},
      {401, "invalid_request_error", "invalid_api_key"},
      {403, "request_forbidden", ""},
      {404, "invalid_request_error", "model_not_found"},
      {405, "invalid_request_error", ""},
      {413, "invalid_request_error", "request_too_large"},
      {429, "rate_limit_error", "rate_limit_exceeded"},
      {431, "invalid_request_error", "request_headers_too_large"},
      {500, "server_error", ""},
      {502, "server_error", ""},
      {503, "server_error", "service_unavailable"},
      {504, "server_error", "timeout"},
  };
  for (Protocol protocol : {Protocol::OpenAiChat, Protocol::OpenAiResponses}) {
    for (auto const& c : cases) {
      auto doc = parse(renderErrorBody(protocol, c.status, "boom \"quoted\"\n"));
      auto const& error = doc.at("error").as_object();
      EXPECT_EQ(error.size(), 4u);
      EXPECT_EQ(error.at("message").as_string(), "boom \"quoted\"\n");
      EXPECT_EQ(error.at("type").as_string(), c.type) << c.status;
      EXPECT_TRUE(error.at("param").is_null());
      if (c.code.empty()) {
        EXPECT_TRUE(error.at("code").is_null()) << c.status;
      } else {
        EXPECT_EQ(error.at("code").as_string(), c.code) << c.status;
      }
    }
  }
}

TEST(ErrorShapes, AnthropicBodyByStatus) {
  struct Case {
    int status;
    std::string_view type;
  };
  Case const cases[] = {{400, "invalid_request_error"},
                        {401, "authentication_error"},
                        {402, "billing_error"},
                        {403, "permission_error"},
                        {404, "not_found_error"},
                        {413, "request_too_large"},
                        {429, "rate_limit_error"},
                        {500, "api_error"},
                        {502, "api_error"},
                        {503, "overloaded_error"},
                        {529, "overloaded_error"},
                        {504, "timeout_error"},
                        {422, "invalid_request_error"}};
  for (auto const& c : cases) {
    auto doc = parse(renderErrorBody(Protocol::Anthropic, c.status, "nope", "req_123"));
    EXPECT_EQ(doc.at("type").as_string(), "error");
    EXPECT_EQ(doc.at("error").at("type").as_string(), c.type) << c.status;
    EXPECT_EQ(doc.at("error").at("message").as_string(), "nope");
    EXPECT_EQ(doc.at("request_id").as_string(), "req_123");
  }
  // The exact recorded layout: type, error{type, message}, request_id.
  EXPECT_EQ(
      renderErrorBody(Protocol::Anthropic, 404, "model: x", "req_1"),
      R"({"type":"error","error":{"type":"not_found_error","message":"model: x"},"request_id":"req_1"})");
  EXPECT_FALSE(
      parse(renderErrorBody(Protocol::Anthropic, 400, "m")).as_object().contains("request_id"));
}

TEST(ErrorShapes, GeminiBodyByStatus) {
  struct Case {
    int status;
    std::string_view name;
  };
  Case const cases[] = {{400, "INVALID_ARGUMENT"},  {401, "UNAUTHENTICATED"},
                        {403, "PERMISSION_DENIED"}, {404, "NOT_FOUND"},
                        {413, "INVALID_ARGUMENT"},  {429, "RESOURCE_EXHAUSTED"},
                        {500, "INTERNAL"},          {502, "UNAVAILABLE"},
                        {503, "UNAVAILABLE"},       {504, "DEADLINE_EXCEEDED"}};
  for (auto const& c : cases) {
    auto doc = parse(renderErrorBody(Protocol::Gemini, c.status, "m", "ignored"));
    auto const& error = doc.at("error").as_object();
    EXPECT_EQ(error.at("code").as_int64(), c.status);
    EXPECT_EQ(error.at("message").as_string(), "m");
    EXPECT_EQ(error.at("status").as_string(), c.name) << c.status;
    EXPECT_EQ(doc.as_object().size(), 1u);
  }
  EXPECT_EQ(errorContentType(), "application/json");
}

TEST(ErrorShapes, AnthropicStreamErrorIsAnErrorEvent) {
  std::string sse = renderStreamError(Protocol::Anthropic, 529, "Overloaded", {});
  EXPECT_EQ(sse,
            "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
            "\"message\":\"Overloaded\"}}\n\n");
  auto timeout = events(renderStreamError(Protocol::Anthropic, 504, "slow", {}));
  ASSERT_EQ(timeout.size(), 1u);
  EXPECT_EQ(timeout[0].event, "error");
  EXPECT_EQ(parse(timeout[0].data).at("error").at("type").as_string(), "timeout_error");
}

TEST(ErrorShapes, ChatStreamErrorIsOneDataFrameWithAnErrorMember) {
  std::string sse = renderStreamError(Protocol::OpenAiChat, 502, "upstream \n broke", {});
  EXPECT_TRUE(sse.starts_with("data: {"));
  EXPECT_TRUE(sse.ends_with("}\n\n"));
  EXPECT_EQ(sse.find("[DONE]"), std::string::npos);
  auto frames = events(sse);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].event, "");
  auto doc = parse(frames[0].data);
  EXPECT_EQ(doc.at("error").at("message").as_string(), "upstream \n broke");
  EXPECT_EQ(doc.at("error").at("type").as_string(), "server_error");
}

TEST(ErrorShapes, ResponsesStreamErrorIsErrorThenResponseFailed) {
  StreamErrorContext ctx{"resp_abc", "gpt-5", 1763474589};
  auto frames = events(renderStreamError(Protocol::OpenAiResponses, 429, "slow down", ctx));
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_EQ(frames[0].event, "error");
  auto error = parse(frames[0].data);
  EXPECT_EQ(error.at("type").as_string(), "error");
  EXPECT_EQ(error.at("code").as_string(), "rate_limit_exceeded");
  EXPECT_EQ(error.at("message").as_string(), "slow down");
  EXPECT_EQ(error.at("error").at("type").as_string(), "rate_limit_error");
  EXPECT_EQ(error.at("error").at("message").as_string(), "slow down");

  EXPECT_EQ(frames[1].event, "response.failed");
  auto failed = parse(frames[1].data);
  EXPECT_EQ(failed.at("type").as_string(), "response.failed");
  auto const& response = failed.at("response");
  EXPECT_EQ(response.at("id").as_string(), "resp_abc");
  EXPECT_EQ(response.at("object").as_string(), "response");
  EXPECT_EQ(response.at("created_at").as_int64(), 1763474589);
  EXPECT_EQ(response.at("status").as_string(), "failed");
  EXPECT_EQ(response.at("model").as_string(), "gpt-5");
  EXPECT_EQ(response.at("error").at("code").as_string(), "rate_limit_exceeded");
  EXPECT_EQ(response.at("error").at("message").as_string(), "slow down");
  EXPECT_TRUE(response.at("output").as_array().empty());

  // Without context: stable placeholders, and a string code even where OpenAI has none.
  auto bare = events(renderStreamError(Protocol::OpenAiResponses, 500, "x", {}));
  ASSERT_EQ(bare.size(), 2u);
  auto bare_response = parse(bare[1].data).at("response");
  EXPECT_EQ(bare_response.at("id").as_string(), "resp_error");
  EXPECT_EQ(bare_response.at("model").as_string(), "unknown");
  EXPECT_EQ(bare_response.at("error").at("code").as_string(), "server_error");
}

TEST(ErrorShapes, GeminiStreamErrorUsesCrlfFraming) {
  std::string sse = renderStreamError(Protocol::Gemini, 503, "try later", {});
  EXPECT_EQ(sse,
            "data: {\"error\":{\"code\":503,\"message\":\"try "
            "later\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n");
  auto frames = events(sse);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(parse(frames[0].data).at("error").at("code").as_int64(), 503);
}

}  // namespace
}  // namespace llmux::protocol
