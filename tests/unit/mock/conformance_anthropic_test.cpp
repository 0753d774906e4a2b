// The mock's Anthropic Messages output against recorded Anthropic traffic
// (tests/data/fixtures/anthropic): same framing (event: + data: lines, the padded data lines, the
// "ping" spelling), same event sequence, same JSON key structure and usage fields.
#include <gtest/gtest.h>

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

constexpr auto kAnthropic = Protocol::Anthropic;
constexpr std::string_view kFolder = "anthropic";

MockReply ask(std::string body) {
  MockProvider mock;
  return mock.handle(makeRequest(kAnthropic, "/v1/messages", std::move(body), "beta=true"));
}

template <class Edit>
std::string edited(std::string const& request_json, Edit&& edit) {
  json::value v = parseJson(request_json);
  edit(v.as_object());
  return json::serialize(v);
}

void expectNoDiff(std::vector<std::string> const& diffs) {
  EXPECT_TRUE(diffs.empty()) << join(diffs);
}

std::vector<std::string> without(std::vector<std::string> kinds,
                                 std::set<std::string> const& drop) {
  std::erase_if(kinds, [&](std::string const& k) { return drop.count(k) > 0; });
  std::vector<std::string> collapsed;
  for (auto& k : kinds) {
    if (collapsed.empty() || collapsed.back() != k) collapsed.push_back(std::move(k));
  }
  return collapsed;
}

TEST(AnthropicConformance, TextStream) {
  // The recording's request had thinking on but Haiku did not think after the tool result; the
  // mock always thinks when asked, so it gets the same request without `thinking`.
  std::string request = edited(
      readFixture(kFolder, "llm-anthropic--stream_thinking_signature_tool_use.i1.request.json"),
      [](json::object& o) { o.erase("thinking"); });
  MockReply reply = ask(request);
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_EQ(reply.headers.get("content-type"), "text/event-stream; charset=utf-8");
  EXPECT_TRUE(reply.headers.get("request-id").starts_with("req_011C"));
  std::string recorded =
      readFixture(kFolder, "llm-anthropic--stream_thinking_signature_tool_use.i1.response.sse");
  EXPECT_EQ(framingOf(reply.body()), framingOf(recorded));
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kAnthropic, mine)), join(kindSequence(kAnthropic, theirs)));
  expectNoDiff(eventShapeDiff(kAnthropic, mine, theirs, {}));
  for (auto const& e : mine) EXPECT_EQ(e.event, e.json.at("type").as_string());
  // The ping is spelled as Anthropic spells it, with a space after the colon.
  EXPECT_NE(reply.body().find("data: {\"type\": \"ping\"}\n\n"), std::string::npos);
  for (auto const& chunk : reply.chunks) EXPECT_EQ(parseSse(chunk.bytes).size(), 1u);
}

TEST(AnthropicConformance, ThinkingThenToolUseStream) {
  MockReply reply = ask(
      readFixture(kFolder, "llm-anthropic--stream_thinking_signature_tool_use.i0.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded =
      readFixture(kFolder, "llm-anthropic--stream_thinking_signature_tool_use.i0.response.sse");
  EXPECT_EQ(framingOf(reply.body()), framingOf(recorded));
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  // The mock writes a one-sentence preamble before its tool calls, as Sonnet does
  // (pydantic-ai--thinking_tool_use_roundtrip.i0); Haiku skipped it in this recording.
  std::set<std::string> text_block = {"content_block_start:text", "content_block_delta:text_delta"};
  EXPECT_EQ(join(without(kindSequence(kAnthropic, mine), text_block)),
            join(kindSequence(kAnthropic, theirs)));
  Tolerance tolerance{
      .optional = {"kind:content_block_start:text", "kind:content_block_delta:text_delta"}};
  expectNoDiff(eventShapeDiff(kAnthropic, mine, theirs, tolerance));
  // Usage is split: input side in message_start, cumulative output in message_delta.
  json::value const& delta_usage = mine[mine.size() - 2].json.at("usage");
  EXPECT_GT(delta_usage.at("output_tokens").as_int64(),
            delta_usage.at("output_tokens_details").at("thinking_tokens").as_int64());
  EXPECT_LT(mine[0].json.at("message").at("usage").at("output_tokens").as_int64(),
            delta_usage.at("output_tokens").as_int64());
}

TEST(AnthropicConformance, ThinkingThenTextStream) {
  MockReply reply =
      ask(readFixture(kFolder, "pydantic-ai--stream_thinking_signature.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  std::string recorded =
      readFixture(kFolder, "pydantic-ai--stream_thinking_signature.response.sse");
  auto mine = parseSse(reply.body()), theirs = parseSse(recorded);
  EXPECT_EQ(join(kindSequence(kAnthropic, mine)), join(kindSequence(kAnthropic, theirs)));
  // Recorded in 2025, before stop_details and output_tokens_details existed.
  Tolerance tolerance{
      .optional = {"message.stop_details", "delta.stop_details", "usage.output_tokens_details"}};
  expectNoDiff(eventShapeDiff(kAnthropic, mine, theirs, tolerance));
}

TEST(AnthropicConformance, TextThenToolUseStream) {
  // Rebuilt from the recording: one tool without arguments, no thinking.
  std::string request = R"({"model":"claude-sonnet-4-5-20250929","max_tokens":1024,"stream":true,
    "tools":[{"name":"updateIssueList","description":"Update the issue list",
              "input_schema":{"type":"object","properties":{}}}],
    "messages":[{"role":"user","content":"Update the issue list"}]})";
  MockReply reply = ask(request);
  ASSERT_EQ(reply.status, 200) << reply.body();
  auto mine = parseSse(reply.body());
  auto theirs =
      parseJsonLines(readFixture(kFolder, "vercel-ai--anthropic-tool-no-args.chunks.txt"));
  // Pings come wherever the API likes; the recording has four, the mock one.
  EXPECT_EQ(join(without(kindSequence(kAnthropic, mine), {"ping"})),
            join(without(kindSequence(kAnthropic, theirs), {"ping"})));
  // Recorded in 2025, before stop_details, inference_geo, output_tokens_details and caller.
  Tolerance tolerance{.optional = {"message.stop_details", "message.usage.inference_geo",
                                   "delta.stop_details", "usage.output_tokens_details",
                                   "content_block.caller"}};
  expectNoDiff(eventShapeDiff(kAnthropic, mine, theirs, tolerance));
  // A tool without arguments streams exactly one empty input_json_delta.
  int input_deltas = 0;
  for (auto const& e : mine)
    input_deltas += testing::kindOf(kAnthropic, e) == "content_block_delta:input_json_delta";
  EXPECT_EQ(input_deltas, 1);
}

TEST(AnthropicConformance, TextBodyWithPromptCache) {
  MockReply reply = ask(readFixture(kFolder, "pydantic-ai--prompt_cache_usage.i1.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  EXPECT_FALSE(reply.streaming);
  json::value mine = parseJson(reply.body());
  expectNoDiff(shapeDiff(
      mine, parseJson(readFixture(kFolder, "pydantic-ai--prompt_cache_usage.i1.response.json")),
      {}));
  // cache_control in the request: reads and writes are reported, and excluded from input_tokens.
  json::value const& usage = mine.at("usage");
  EXPECT_GT(usage.at("cache_read_input_tokens").as_int64(), 0);
  EXPECT_GT(usage.at("cache_creation_input_tokens").as_int64(), 0);
  EXPECT_EQ(usage.at("cache_creation").at("ephemeral_5m_input_tokens"),
            usage.at("cache_creation_input_tokens"));
  EXPECT_LT(usage.at("input_tokens").as_int64(), usage.at("cache_read_input_tokens").as_int64());
}

TEST(AnthropicConformance, ToolUseBody) {
  MockReply reply = ask(readFixture(kFolder, "pydantic-ai--parallel_tool_use.i0.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  json::value theirs =
      parseJson(readFixture(kFolder, "pydantic-ai--parallel_tool_use.i0.response.json"));
  // Recorded before usage.inference_geo existed.
  expectNoDiff(shapeDiff(mine, theirs, {.optional = {"usage.inference_geo"}}));
  EXPECT_EQ(mine.at("stop_reason"), "tool_use");
  json::value const& call = mine.at("content").at(1);
  EXPECT_EQ(call.at("type"), "tool_use");
  EXPECT_TRUE(call.at("input").at("name").is_string());  // the schema's required property
}

TEST(AnthropicConformance, ThinkingTextToolUseBody) {
  MockReply reply =
      ask(readFixture(kFolder, "pydantic-ai--thinking_tool_use_roundtrip.i0.request.json"));
  ASSERT_EQ(reply.status, 200) << reply.body();
  json::value mine = parseJson(reply.body());
  json::value theirs =
      parseJson(readFixture(kFolder, "pydantic-ai--thinking_tool_use_roundtrip.i0.response.json"));
  expectNoDiff(shapeDiff(mine, theirs, {}));
  std::vector<std::string> types;
  for (auto const& block : mine.at("content").as_array())
    types.emplace_back(block.at("type").as_string());
  EXPECT_EQ(join(types), "thinking | text | tool_use");
}

TEST(AnthropicConformance, ErrorBodiesHaveAnthropicShape) {
  MockReply reply =
      ask(R"({"model":"claude-sonnet-4-5","messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(reply.status, 400);
  json::value mine = parseJson(reply.body());
  expectNoDiff(shapeDiff(
      mine, parseJson(readFixture(kFolder, "pydantic-ai--error_400_invalid_request.response.json")),
      {}));
  EXPECT_EQ(mine.at("error").at("message"), "max_tokens: Field required");
  EXPECT_EQ(mine.at("request_id").as_string(), reply.headers.get("request-id"));
}

}  // namespace
}  // namespace llmux::mock
