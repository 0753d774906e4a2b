// Routing, authentication and request validation: the mock refuses what the real providers
// refuse, with their status codes, error shapes and wording.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>

#include "conformance_support.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::join;
using testing::makeRequest;
using testing::parseJson;
using testing::readFixture;
using testing::shapeDiff;

constexpr std::string_view kChatBody =
    R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]})";
constexpr std::string_view kAnthropicBody =
    R"({"model":"claude-sonnet-4-5","max_tokens":64,"messages":[{"role":"user","content":"Hi"}]})";
constexpr std::string_view kGeminiBody =
    R"({"contents":[{"role":"user","parts":[{"text":"Hi"}]}]})";
constexpr std::string_view kGeminiPath = "/v1beta/models/gemini-2.5-flash:generateContent";

MockRequest bare(std::string method, std::string path, std::string body = {}) {
  MockRequest request;
  request.method = std::move(method);
  request.path = std::move(path);
  request.body = std::move(body);
  return request;
}

json::value errorOf(MockReply const& reply) {
  return parseJson(reply.body()).at("error");
}

// ---- routes ----------------------------------------------------------------------------------

TEST(MockRoutes, MatchOnPathSuffixWhateverThePrefix) {
  MockProvider mock;
  EXPECT_EQ(mock.handle(makeRequest(Protocol::OpenAiChat, "/relay/v1/chat/completions",
                                    std::string(kChatBody)))
                .status,
            200);
  EXPECT_EQ(mock.handle(makeRequest(Protocol::Anthropic, "/anthropic/v1/messages",
                                    std::string(kAnthropicBody)))
                .status,
            200);
  EXPECT_EQ(mock.handle(makeRequest(Protocol::Gemini,
                                    "/google/v1beta/models/gemini-2.5-flash:generateContent",
                                    std::string(kGeminiBody)))
                .status,
            200);
  EXPECT_EQ(mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions/",
                                    std::string(kChatBody)))
                .status,
            200);
}

TEST(MockRoutes, UnknownRoutesGet404InTheCallersShape) {
  MockProvider mock;
  MockReply openai =
      mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/completions", std::string(kChatBody)));
  EXPECT_EQ(openai.status, 404);
  EXPECT_EQ(errorOf(openai).at("message"), "Invalid URL (POST /v1/completions)");

  MockReply anthropic =
      mock.handle(makeRequest(Protocol::Anthropic, "/v1/complete", std::string(kAnthropicBody)));
  EXPECT_EQ(anthropic.status, 404);
  EXPECT_TRUE(
      shapeDiff(
          parseJson(anthropic.body()),
          parseJson(readFixture("anthropic", "pydantic-ai--error_404_not_found.response.json")), {})
          .empty());
  EXPECT_EQ(errorOf(anthropic).at("type"), "not_found_error");

  MockReply gemini =
      mock.handle(makeRequest(Protocol::Gemini, "/v1beta/models/gemini-2.5-flash:embed", "{}"));
  EXPECT_EQ(gemini.status, 404);
  EXPECT_EQ(errorOf(gemini).at("status"), "NOT_FOUND");

  // A GET on a POST-only route is unknown too.
  EXPECT_EQ(mock.handle(bare("GET", "/v1/chat/completions")).status, 404);
}

TEST(MockRoutes, ModelListsInEachProvidersShape) {
  MockProvider mock;
  MockRequest openai = bare("GET", "/v1/models");
  openai.headers.add("authorization", "Bearer sk-test");
  json::value list = parseJson(mock.handle(openai).body());
  EXPECT_EQ(list.at("object"), "list");
  EXPECT_EQ(list.at("data").at(0).at("object"), "model");

  MockRequest anthropic = bare("GET", "/v1/models");
  anthropic.headers.add("x-api-key", "sk-ant");
  anthropic.headers.add("anthropic-version", "2023-06-01");
  json::value models = parseJson(mock.handle(anthropic).body());
  EXPECT_EQ(models.at("has_more"), false);
  EXPECT_EQ(models.at("data").at(0).at("type"), "model");

  MockRequest gemini = bare("GET", "/v1beta/models");
  gemini.query = "key=AIza-test";
  json::value google = parseJson(mock.handle(gemini).body());
  EXPECT_TRUE(google.at("models").at(0).at("name").as_string().starts_with("models/"));
}

TEST(MockRoutes, TokenCounting) {
  MockProvider mock;
  MockReply anthropic = mock.handle(
      makeRequest(Protocol::Anthropic, "/v1/messages/count_tokens", std::string(kAnthropicBody)));
  ASSERT_EQ(anthropic.status, 200);
  EXPECT_EQ(parseJson(anthropic.body()).at("input_tokens").as_int64(),
            static_cast<std::int64_t>(kAnthropicBody.size() / 4 + 1));
  MockReply gemini = mock.handle(makeRequest(
      Protocol::Gemini, "/v1beta/models/gemini-2.5-flash:countTokens", std::string(kGeminiBody)));
  ASSERT_EQ(gemini.status, 200);
  EXPECT_GT(parseJson(gemini.body()).at("totalTokens").as_int64(), 0);
}

// ---- authentication --------------------------------------------------------------------------

TEST(MockAuth, OpenAiKeys) {
  MockProvider mock;
  MockReply missing = mock.handle(bare("POST", "/v1/chat/completions", std::string(kChatBody)));
  EXPECT_EQ(missing.status, 401);
  EXPECT_TRUE(
      errorOf(missing).at("message").as_string().starts_with("You didn't provide an API key."));
  EXPECT_TRUE(missing.headers.get("x-request-id").starts_with("req_"));

  auto withKey = [&](std::string key) {
    MockRequest request = bare("POST", "/v1/chat/completions", std::string(kChatBody));
    request.headers.add("Authorization", "Bearer " + key);
    return mock.handle(request);
  };
  MockReply invalid = withKey("sk-invalid-1");
  EXPECT_EQ(invalid.status, 401);
  EXPECT_EQ(errorOf(invalid).at("code"), "invalid_api_key");
  EXPECT_EQ(invalid.body().find("sk-invalid-1"), std::string::npos);  // never echo the secret
  EXPECT_EQ(withKey("sk-forbidden").status, 403);
  MockReply limited = withKey("sk-ratelimited");
  EXPECT_EQ(limited.status, 429);
  EXPECT_EQ(limited.headers.get("retry-after"), "1");
  EXPECT_EQ(withKey("sk-good").status, 200);
}

TEST(MockAuth, AnthropicKeysAndVersion) {
  MockProvider mock;
  MockReply missing = mock.handle(bare("POST", "/v1/messages", std::string(kAnthropicBody)));
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(errorOf(missing).at("type"), "authentication_error");

  MockRequest bearer = bare("POST", "/v1/messages", std::string(kAnthropicBody));
  bearer.headers.add("authorization", "Bearer oauth-token");
  bearer.headers.add("anthropic-version", "2023-06-01");
  EXPECT_EQ(mock.handle(bearer).status, 200);

  MockRequest no_version = bare("POST", "/v1/messages", std::string(kAnthropicBody));
  no_version.headers.add("x-api-key", "sk-ant");
  MockReply reply = mock.handle(no_version);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply).at("message"), "anthropic-version: header is required");

  MockRequest invalid =
      makeRequest(Protocol::Anthropic, "/v1/messages", std::string(kAnthropicBody));
  invalid.headers.set("x-api-key", "sk-ant-invalid");
  EXPECT_EQ(errorOf(mock.handle(invalid)).at("message"), "invalid x-api-key");
}

TEST(MockAuth, GeminiKeysLikeGoogle) {
  MockProvider mock;
  MockReply missing = mock.handle(bare("POST", std::string(kGeminiPath), std::string(kGeminiBody)));
  EXPECT_EQ(missing.status, 403);
  EXPECT_EQ(errorOf(missing).at("status"), "PERMISSION_DENIED");

  MockRequest query_key = bare("POST", std::string(kGeminiPath), std::string(kGeminiBody));
  query_key.query = "alt=json&key=AIza-good";
  EXPECT_EQ(mock.handle(query_key).status, 200);

  MockRequest vertex = bare(
      "POST",
      "/v1/projects/p/locations/global/publishers/google/models/gemini-2.5-flash:generateContent",
      std::string(kGeminiBody));
  vertex.headers.add("authorization", "Bearer ya29.token");
  EXPECT_EQ(mock.handle(vertex).status, 200);

  MockRequest invalid = bare("POST", std::string(kGeminiPath), std::string(kGeminiBody));
  invalid.headers.add("x-goog-api-key", "invalid-key");
  MockReply reply = mock.handle(invalid);
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply).at("status"), "INVALID_ARGUMENT");
  EXPECT_EQ(errorOf(reply).at("details").at(0).at("reason"), "API_KEY_INVALID");
}

TEST(MockAuth, AcceptedKeysRestrictWhoGetsIn) {
  MockProvider mock(MockOptions{{"sk-one", "sk-two"}});
  auto withKey = [&](std::string key) {
    MockRequest request =
        makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", std::string(kChatBody));
    request.headers.set("authorization", "Bearer " + key);
    return mock.handle(request).status;
  };
  EXPECT_EQ(withKey("sk-one"), 200);
  EXPECT_EQ(withKey("sk-two"), 200);
  EXPECT_EQ(withKey("sk-three"), 401);
}

// ---- bodies ----------------------------------------------------------------------------------

TEST(MockValidation, InvalidJsonIs400Everywhere) {
  MockProvider mock;
  for (auto protocol : kAllProtocols) {
    std::string path = protocol == Protocol::Anthropic         ? "/v1/messages"
                       : protocol == Protocol::Gemini          ? std::string(kGeminiPath)
                       : protocol == Protocol::OpenAiResponses ? "/v1/responses"
                                                               : "/v1/chat/completions";
    EXPECT_EQ(mock.handle(makeRequest(protocol, path, "{\"model\":")).status, 400) << path;
    EXPECT_EQ(mock.handle(makeRequest(protocol, path, "[1,2]")).status, 400) << path;
  }
  MockReply reply = mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", "nope"));
  EXPECT_TRUE(
      errorOf(reply).at("message").as_string().starts_with("We could not parse the JSON body"));
}

TEST(MockValidation, MissingRequiredFields) {
  MockProvider mock;
  MockReply chat = mock.handle(
      makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", R"({"model":"gpt-4o"})"));
  EXPECT_EQ(errorOf(chat).at("param"), "messages");
  EXPECT_EQ(errorOf(chat).at("code"), "missing_required_parameter");
  EXPECT_EQ(
      mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", R"({"messages":[]})"))
          .status,
      400);

  MockReply responses =
      mock.handle(makeRequest(Protocol::OpenAiResponses, "/v1/responses", R"({"model":"gpt-5"})"));
  EXPECT_EQ(responses.status, 400);
  EXPECT_EQ(errorOf(responses).at("message"), "Missing required parameter: 'input'.");

  MockReply anthropic = mock.handle(makeRequest(
      Protocol::Anthropic, "/v1/messages", R"({"model":"claude-sonnet-4-5","max_tokens":10})"));
  EXPECT_EQ(errorOf(anthropic).at("message"), "messages: Field required");

  MockReply gemini =
      mock.handle(makeRequest(Protocol::Gemini, std::string(kGeminiPath), R"({"contents":[]})"));
  EXPECT_EQ(gemini.status, 400);
  EXPECT_EQ(errorOf(gemini).at("message"),
            "* GenerateContentRequest.contents: contents is not specified\n");
}

TEST(MockValidation, SamplingRangesWordedLikeOpenAi) {
  MockProvider mock;
  MockReply reply = mock.handle(makeRequest(
      Protocol::OpenAiResponses, "/v1/responses",
      readFixture("openai-responses", "pydantic-ai--responses_http_error_400.request.json")));
  EXPECT_EQ(reply.status, 400);
  // Returned as JSON although the request asked for a stream, as recorded.
  EXPECT_FALSE(reply.streaming);
  EXPECT_EQ(parseJson(reply.body()),
            parseJson(readFixture("openai-responses",
                                  "pydantic-ai--responses_http_error_400.response.json")));
}

TEST(MockValidation, AnthropicToolUseNeedsToolResultInTheNextTurn) {
  MockProvider mock;
  std::string body = R"({"model":"claude-sonnet-4-5","max_tokens":64,"messages":[
    {"role":"user","content":"Weather?"},
    {"role":"assistant","content":[{"type":"tool_use","id":"toolu_A","name":"w","input":{}},
                                   {"type":"tool_use","id":"toolu_B","name":"w","input":{}}]},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_A","content":"sunny"}]}]})";
  MockReply reply = mock.handle(makeRequest(Protocol::Anthropic, "/v1/messages", body));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply).at("message"),
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: "
            "toolu_B. Each `tool_use` block must have a corresponding `tool_result` block in the "
            "next message.");

  std::string orphan = R"({"model":"claude-sonnet-4-5","max_tokens":64,"messages":[
    {"role":"user","content":"Weather?"},
    {"role":"assistant","content":"Sure."},
    {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_X","content":"?"}]}]})";
  reply = mock.handle(makeRequest(Protocol::Anthropic, "/v1/messages", orphan));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(
      errorOf(reply).at("message"),
      "messages.2.content.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_X. "
      "Each `tool_result` block must have a corresponding `tool_use` block in the previous "
      "message.");

  // The recorded round trip (thinking block with signature, tool_use, tool_result) is accepted.
  EXPECT_EQ(
      mock
          .handle(makeRequest(
              Protocol::Anthropic, "/v1/messages",
              readFixture("anthropic",
                          "llm-anthropic--stream_thinking_signature_tool_use.i1.request.json")))
          .status,
      200);
}

TEST(MockValidation, AnthropicThinkingConstraints) {
  MockProvider mock;
  MockReply budget = mock.handle(
      makeRequest(Protocol::Anthropic, "/v1/messages", R"({"model":"c","max_tokens":1024,
    "thinking":{"type":"enabled","budget_tokens":2048},"messages":[{"role":"user","content":"Hi"}]})"));
  EXPECT_EQ(budget.status, 400);
  EXPECT_TRUE(errorOf(budget).at("message").as_string().starts_with(
      "`max_tokens` must be greater than `thinking.budget_tokens`"));
  MockReply forced = mock.handle(
      makeRequest(Protocol::Anthropic, "/v1/messages", R"({"model":"c","max_tokens":4096,
    "thinking":{"type":"adaptive"},"tool_choice":{"type":"any"},
    "tools":[{"name":"t","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"Hi"}]})"));
  EXPECT_EQ(forced.status, 400);
  EXPECT_EQ(errorOf(forced).at("message"),
            "Thinking may not be enabled when tool_choice forces tool use.");
}

TEST(MockValidation, ChatToolCallsMustBeAnswered) {
  MockProvider mock;
  std::string unanswered = R"({"model":"gpt-4o","messages":[
    {"role":"user","content":"Weather?"},
    {"role":"assistant","tool_calls":[
      {"id":"call_1","type":"function","function":{"name":"w","arguments":"{}"}},
      {"id":"call_2","type":"function","function":{"name":"w","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"call_1","content":"sunny"},
    {"role":"user","content":"And?"}]})";
  MockReply reply =
      mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", unanswered));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(
      errorOf(reply).at("message"),
      "An assistant message with 'tool_calls' must be followed by tool messages responding to "
      "each 'tool_call_id'. The following tool_call_ids did not have response messages: call_2");
  EXPECT_EQ(errorOf(reply).at("param"), "messages.[1].role");

  std::string orphan = R"({"model":"gpt-4o","messages":[
    {"role":"user","content":"Weather?"},{"role":"tool","tool_call_id":"call_9","content":"sunny"}]})";
  reply = mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", orphan));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply).at("param"), "messages.[1].role");
}

TEST(MockValidation, ResponsesOutputsMustReferenceKnownCalls) {
  MockProvider mock;
  std::string body = R"({"model":"gpt-5","input":[{"role":"user","content":"Hi"},
    {"type":"function_call_output","call_id":"call_missing","output":"42"}]})";
  MockReply reply = mock.handle(makeRequest(Protocol::OpenAiResponses, "/v1/responses", body));
  EXPECT_EQ(reply.status, 400);
  EXPECT_EQ(errorOf(reply).at("message"),
            "No tool call found for function call output with call_id call_missing.");
  // With previous_response_id the call lives upstream: the mock cannot know and lets it pass.
  std::string chained = R"({"model":"gpt-5","previous_response_id":"resp_1","input":[
    {"type":"function_call_output","call_id":"call_missing","output":"42"}]})";
  EXPECT_EQ(mock.handle(makeRequest(Protocol::OpenAiResponses, "/v1/responses", chained)).status,
            200);
}

}  // namespace
}  // namespace llmux::mock
