// The mock's OpenAI Chat Completions and Responses output against recorded OpenAI traffic
// (tests/data/fixtures/openai-chat, openai-responses): same framing, same event sequence, same
// JSON key structure and usage fields. Every tolerance below names a recorded difference between
// model generations or providers, not a mock shortcut.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "conformance_support.h"
#include "mock/mock_provider.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::eventShapeDiff;
using testing::framingOf;
using testing::join;
using testing::kindSequence;
using testing::makeRequest;
using testing::parseJson;
using testing::parseJsonLines;
using testing::parseSse;
using testing::readFixture;
using testing::shapeDiff;
using testing::StreamEvent;
using testing::Tolerance;

constexpr auto kChat = Protocol::OpenAiChat;
constexpr auto kResponses = Protocol::OpenAiResponses;

/// A recorded request body with one change applied.
template <class Edit>
std::string edited(std::string const& request_json, Edit&& edit) {
  json::value v = parseJson(request_json);
  edit(v.as_object());
  return json::serialize(v);
}

/// The events of the n-th (1-based) response of a multi-response recording.
std::vector<StreamEvent> nthResponse(std::vector<StreamEvent> const& events, int n) {
  std::vector<StreamEvent> out;
  int seen = 0;
  for (auto const& e : events) {
    if (e.json.is_object() && e.json.at("type") == "response.created") ++seen;
    if (seen == n) out.push_back(e);
  }
  return out;
}

void expectSameFraming(std::string const& mock, std::string const& recorded) {
  auto m = framingOf(mock), r = framingOf(recorded);
  EXPECT_EQ(m, r) << "mock: " << describe(m) << "\nrecorded: " << describe(r);
}

void expectNoDiff(std::vector<std::string> const& diffs) {
  EXPECT_TRUE(diffs.empty()) << join(diffs);
}

/// Every SSE event is its own chunk, so the glue flushes them one by one.
void expectOneEventPerChunk(MockReply const& reply) {
  for (auto const& chunk : reply.chunks) {
    EXPECT_EQ(parseSse(chunk.bytes).size(), 1u) << chunk.bytes;
  }
}

// ---- Chat Completions ----------------------------------------------------------------------

TEST(ChatConformance, TextStream) {
  MockProvider mock;
  MockReply reply = mock.handle(
      makeRequest(kChat, "/v1/chat/completions",
                  readFixture("openai-chat", "envoy-aigw--chat-streaming.request.json")));
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_TRUE(reply.streaming);
  EXPECT_EQ(reply.headers.get("content-type"), "text/event-stream; charset=utf-8");
  std::string recorded = readFixture("openai-chat", "envoy-aigw--chat-streaming.response.sse");
  expectSameFraming(reply.body(), recorded);
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kChat, mine)), join(kindSequence(kChat, theirs)));
  EXPECT_EQ(join(kindSequence(kChat, mine)), "role | content | finish | [DONE]");
  expectNoDiff(eventShapeDiff(kChat, mine, theirs, {}));
  expectOneEventPerChunk(reply);
}

TEST(ChatConformance, TextStreamWithUsageChunk) {
  // The recording hit max_completion_tokens while reasoning (no content, finish "length"): the
  // sequence differs by design, the usage chunk and the "usage":null fields must not.
  MockProvider mock;
  std::string request =
      readFixture("openai-chat", "envoy-aigw--chat-streaming-detailed-usage.request.json");
  MockReply reply = mock.handle(makeRequest(kChat, "/v1/chat/completions", request));
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded =
      readFixture("openai-chat", "envoy-aigw--chat-streaming-detailed-usage.response.sse");
  expectSameFraming(reply.body(), recorded);
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kChat, mine)), "role | content | finish | usage | [DONE]");
  EXPECT_EQ(join(kindSequence(kChat, theirs)), "role | finish | usage | [DONE]");
  expectNoDiff(eventShapeDiff(kChat, mine, theirs, {.optional = {"kind:content"}}));
  // The usage chunk has no choices and the total adds up.
  json::value const& usage = mine[mine.size() - 2].json.at("usage");
  EXPECT_EQ(usage.at("total_tokens").as_int64(),
            usage.at("prompt_tokens").as_int64() + usage.at("completion_tokens").as_int64());
}

TEST(ChatConformance, ParallelToolCallStream) {
  MockProvider mock;
  MockReply reply = mock.handle(makeRequest(
      kChat, "/v1/chat/completions",
      readFixture("openai-chat", "pydantic-ai--chat_stream_parallel_tool_calls.i0.request.json")));
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded =
      readFixture("openai-chat", "pydantic-ai--chat_stream_parallel_tool_calls.i0.response.sse");
  expectSameFraming(reply.body(), recorded);
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kChat, mine)), join(kindSequence(kChat, theirs)));
  // gpt-4o (this recording) sends logprobs:null and a string fingerprint; gpt-5 (the text
  // recordings, which the mock follows) sends no logprobs and a null fingerprint.
  Tolerance tolerance{.optional = {"choices[].logprobs"}, .any_type = {"system_fingerprint"}};
  expectNoDiff(eventShapeDiff(kChat, mine, theirs, tolerance));
  // Two calls, with distinct indexes and ids, on the first two offered tools.
  EXPECT_EQ(
      mine[1].json.at("choices").at(0).at("delta").at("tool_calls").at(0).at("function").at("name"),
      "get_weather");
}

TEST(ChatConformance, ReasoningStreamLikeDeepSeek) {
  MockProvider mock;
  std::string request = edited(
      readFixture("openai-chat", "pydantic-ai--deepseek_reasoning_content_stream.request.json"),
      [](json::object& o) { o["reasoning_effort"] = "low"; });
  MockReply reply = mock.handle(makeRequest(kChat, "/v1/chat/completions", request));
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded =
      readFixture("openai-chat", "pydantic-ai--deepseek_reasoning_content_stream.response.sse");
  expectSameFraming(reply.body(), recorded);
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  // DeepSeek merges the last content, the finish reason and usage into one chunk; the mock keeps
  // OpenAI's separate finish and usage chunks.
  EXPECT_EQ(join(kindSequence(kChat, mine)),
            "role | reasoning | content | finish | usage | [DONE]");
  EXPECT_EQ(join(kindSequence(kChat, theirs)),
            "role | reasoning | content | content+finish+usage | [DONE]");
  // DeepSeek chunks lack OpenAI's service_tier and obfuscation and carry logprobs:null.
  Tolerance tolerance{.optional = {"service_tier", "obfuscation", "choices[].logprobs"},
                      .any_type = {"system_fingerprint"}};
  std::vector<StreamEvent> deltas(mine.begin(), mine.begin() + 3);
  expectNoDiff(eventShapeDiff(kChat, deltas, theirs, tolerance));
}

TEST(ChatConformance, TextBody) {
  MockProvider mock;
  MockReply reply = mock.handle(
      makeRequest(kChat, "/v1/chat/completions",
                  readFixture("openai-chat", "envoy-aigw--chat-image-to-text.request.json")));
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_FALSE(reply.streaming);
  EXPECT_EQ(reply.headers.get("content-type"), "application/json");
  json::value mine = parseJson(reply.body());
  json::value theirs =
      parseJson(readFixture("openai-chat", "envoy-aigw--chat-image-to-text.response.json"));
  expectNoDiff(shapeDiff(mine, theirs, {}));
  EXPECT_EQ(mine.at("choices").at(0).at("finish_reason"), "stop");
}

TEST(ChatConformance, ToolCallBody) {
  MockProvider mock;
  MockReply reply = mock.handle(
      makeRequest(kChat, "/v1/chat/completions",
                  readFixture("openai-chat", "envoy-aigw--chat-parallel-tools.request.json")));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  json::value theirs =
      parseJson(readFixture("openai-chat", "envoy-aigw--chat-parallel-tools.response.json"));
  expectNoDiff(shapeDiff(mine, theirs, {}));
  json::value const& call = mine.at("choices").at(0).at("message").at("tool_calls").at(0);
  EXPECT_EQ(call.at("function").at("name"), "get_current_weather");
  // Arguments are a JSON string holding an object with the required property filled in.
  json::value args = parseJson(call.at("function").at("arguments").as_string());
  EXPECT_TRUE(args.at("location").is_string());
  EXPECT_EQ(mine.at("choices").at(0).at("finish_reason"), "tool_calls");
}

TEST(ChatConformance, ReasoningBody) {
  MockProvider mock;
  std::string request =
      edited(readFixture("openai-chat", "envoy-aigw--chat-reasoning.request.json"),
             [](json::object& o) { o["reasoning_effort"] = "medium"; });
  MockReply reply = mock.handle(makeRequest(kChat, "/v1/chat/completions", request));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  json::value theirs =
      parseJson(readFixture("openai-chat", "envoy-aigw--chat-reasoning.response.json"));
  // OpenAI returns no reasoning text on Chat; the mock adds DeepSeek's reasoning_content.
  expectNoDiff(shapeDiff(mine, theirs, {.optional = {"choices[].message.reasoning_content"}}));
  json::value const& usage = mine.at("usage");
  EXPECT_GT(usage.at("completion_tokens_details").at("reasoning_tokens").as_int64(), 0);
  EXPECT_GT(usage.at("completion_tokens").as_int64(),
            usage.at("completion_tokens_details").at("reasoning_tokens").as_int64());
}

// ---- Responses -------------------------------------------------------------------------------

/// The envelope echoes the request (tools, reasoning, instructions): when the recording's request
/// differs from the one sent to the mock, those members differ in content, not in layout.
Tolerance crossRequest() {
  return Tolerance{.any_type = {"response.reasoning.effort", "response.reasoning.summary",
                                "response.instructions", "response.tool_choice"},
                   .opaque = {"response.tools"}};
}

TEST(ResponsesConformance, TextStream) {
  MockProvider mock;
  std::string request = readFixture("openai-responses",
                                    "pydantic-ai--responses_stream_function_call.i1.request.json");
  MockReply reply = mock.handle(makeRequest(kResponses, "/v1/responses", request));
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded = readFixture("openai-responses",
                                     "pydantic-ai--responses_stream_function_call.i1.response.sse");
  expectSameFraming(reply.body(), recorded);
  auto mine = parseSse(reply.body());
  EXPECT_EQ(join(kindSequence(kResponses, mine)),
            join(kindSequence(kResponses, parseSse(recorded))));
  for (auto const& e : mine) EXPECT_EQ(e.event, e.json.at("type").as_string());
  // That recording predates sequence_number; the layout of each event is checked against the
  // newest text answer recorded (the 4th response of the vercel-ai agent loop).
  auto newest = nthResponse(
      parseJsonLines(readFixture("openai-responses",
                                 "vercel-ai--openai-reasoning-encrypted-content.1.chunks.txt")),
      4);
  expectNoDiff(eventShapeDiff(kResponses, mine, newest, crossRequest()));
  for (std::size_t i = 0; i < mine.size(); ++i) {
    EXPECT_EQ(mine[i].json.at("sequence_number").as_int64(), static_cast<std::int64_t>(i));
  }
  expectOneEventPerChunk(reply);
}

TEST(ResponsesConformance, ReasoningThenFunctionCallStream) {
  MockProvider mock;
  std::string request =
      readFixture("openai-responses",
                  "pydantic-ai--responses_stream_reasoning_then_function_call.request.json");
  MockReply reply = mock.handle(makeRequest(kResponses, "/v1/responses", request));
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded =
      readFixture("openai-responses",
                  "pydantic-ai--responses_stream_reasoning_then_function_call.response.sse");
  expectSameFraming(reply.body(), recorded);
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kResponses, mine)), join(kindSequence(kResponses, theirs)));
  // Recorded in 2025-09, before the API added prompt_cache_retention.
  expectNoDiff(
      eventShapeDiff(kResponses, mine, theirs, {.optional = {"response.prompt_cache_retention"}}));
  json::value const& usage = mine.back().json.at("response").at("usage");
  EXPECT_GT(usage.at("output_tokens_details").at("reasoning_tokens").as_int64(), 0);
}

constexpr std::string_view kCalculatorTool = R"({"type":"function",
  "description":"A minimal calculator for basic arithmetic. Call it once per step.",
  "name":"calculator","parameters":{"type":"object","properties":{
    "a":{"type":"number","description":"First operand."},
    "b":{"type":"number","description":"Second operand."},
    "op":{"type":"string","enum":["add","subtract","multiply","divide"],"default":"add",
          "description":"Arithmetic operation to perform."}},
  "required":["a","b","op"],"additionalProperties":false},"strict":true})";

/// The vercel-ai agent loop's request, rebuilt from the tools and settings its responses echo.
std::string calculatorRequest(bool stream, bool after_tool_result) {
  std::string input = R"([{"role":"user","content":"What is (12 + 7) * 3 * 10?"})";
  if (after_tool_result) {
    input += R"(,{"type":"function_call","call_id":"call_1","name":"calculator",
                 "arguments":"{\"a\":57,\"b\":10,\"op\":\"multiply\"}"},
                {"type":"function_call_output","call_id":"call_1","output":"570"})";
  }
  input += "]";
  return std::string(R"({"model":"gpt-5.1-codex-max","stream":)") + (stream ? "true" : "false") +
         R"(,"reasoning":{"effort":"high","summary":"detailed"},"include":["reasoning.encrypted_content"],)" +
         R"("tools":[)" + std::string(kCalculatorTool) + R"(],"input":)" + input + "}";
}

TEST(ResponsesConformance, ReasoningSummaryThenFunctionCallStream) {
  MockProvider mock;
  MockReply reply =
      mock.handle(makeRequest(kResponses, "/v1/responses", calculatorRequest(true, false)));
  ASSERT_EQ(reply.status, 200) << reply.body();
  auto mine = parseSse(reply.body());
  auto first = nthResponse(
      parseJsonLines(readFixture("openai-responses",
                                 "vercel-ai--openai-reasoning-encrypted-content.1.chunks.txt")),
      1);
  EXPECT_EQ(join(kindSequence(kResponses, mine)), join(kindSequence(kResponses, first)));
  expectNoDiff(eventShapeDiff(kResponses, mine, first, {}));
}

TEST(ResponsesConformance, FunctionCallBody) {
  MockProvider mock;
  MockReply reply = mock.handle(
      makeRequest(kResponses, "/v1/responses",
                  readFixture("openai-responses",
                              "pydantic-ai--responses_function_call_roundtrip.i0.request.json")));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  json::value theirs = parseJson(readFixture(
      "openai-responses", "pydantic-ai--responses_function_call_roundtrip.i0.response.json"));
  expectNoDiff(shapeDiff(mine, theirs, {.optional = {"prompt_cache_retention"}}));
  EXPECT_EQ(mine.at("output").at(0).at("name"), "get_capital");
}

TEST(ResponsesConformance, TextBodyAfterFunctionCallOutput) {
  MockProvider mock;
  MockReply reply = mock.handle(
      makeRequest(kResponses, "/v1/responses",
                  readFixture("openai-responses",
                              "pydantic-ai--responses_function_call_roundtrip.i1.request.json")));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  json::value theirs = parseJson(readFixture(
      "openai-responses", "pydantic-ai--responses_function_call_roundtrip.i1.response.json"));
  expectNoDiff(shapeDiff(mine, theirs, {.optional = {"prompt_cache_retention"}}));
  EXPECT_EQ(mine.at("output").at(0).at("type"), "message");
}

TEST(ResponsesConformance, ReasoningBody) {
  MockProvider mock;
  MockReply reply =
      mock.handle(makeRequest(kResponses, "/v1/responses", calculatorRequest(false, true)));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  json::value theirs = parseJson(
      readFixture("openai-responses", "vercel-ai--openai-reasoning-encrypted-content.1.json"));
  expectNoDiff(shapeDiff(mine, theirs, {}));
}

TEST(ResponsesConformance, ContextOverflowInStreamEndsWithResponseFailed) {
  MockProvider mock;
  MockRequest request = makeRequest(kResponses, "/v1/responses", calculatorRequest(true, false));
  request.headers.add("x-mock-fault", "context-overflow");
  MockReply reply = mock.handle(request);
  ASSERT_EQ(reply.status, 200);
  auto mine = parseSse(reply.body());
  auto recorded =
      parseJsonLines(readFixture("openai-responses", "vercel-ai--openai-error.1.chunks.txt"));
  EXPECT_EQ(join(kindSequence(kResponses, mine)), join(kindSequence(kResponses, recorded)));
  // `param` is null for the recorded quota error and names the field for an input error.
  Tolerance tolerance = crossRequest();
  tolerance.any_type.insert("error.param");
  expectNoDiff(eventShapeDiff(kResponses, mine, recorded, tolerance));
  EXPECT_EQ(mine.back().json.at("response").at("error").at("code"), "context_length_exceeded");
}

TEST(OpenAiErrorConformance, ErrorBodiesHaveOpenAiShape) {
  MockProvider mock;
  MockReply reply =
      mock.handle(makeRequest(kChat, "/v1/chat/completions", R"({"model":"gpt-4o"})"));
  EXPECT_EQ(reply.status, 400);
  json::value theirs =
      parseJson(readFixture("openai-chat", "envoy-aigw--chat-bad-request.response.json"));
  expectNoDiff(shapeDiff(parseJson(reply.body()), theirs, {}));
  // OpenAI indents error bodies by four spaces (envoy-aigw--chat-unknown-model is verbatim).
  std::string verbatim = readFixture("openai-chat", "envoy-aigw--chat-unknown-model.response.json");
  std::string_view layout = "{\n    \"error\": {\n        \"message\": \"";
  EXPECT_TRUE(verbatim.starts_with(layout));
  EXPECT_TRUE(reply.body().starts_with(layout)) << reply.body();
  EXPECT_TRUE(reply.body().ends_with("\n    }\n}\n"));
  EXPECT_TRUE(verbatim.ends_with("\n    }\n}\n"));
}

}  // namespace
}  // namespace llmux::mock
