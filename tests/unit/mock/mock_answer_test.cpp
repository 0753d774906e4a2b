// What the mock answers: quoted text, tool calls with schema-shaped arguments, thinking, usage;
// and the JSON writer behind every byte.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "conformance_support.h"
#include "mock/answer_plan.h"
#include "mock/json_writer.h"
#include "mock/mock_provider.h"
#include "mock/schema_values.h"

namespace llmux::mock {
namespace {

namespace json = boost::json;
using testing::makeRequest;
using testing::parseJson;
using testing::parseSse;

std::string args(std::string_view schema) {
  json::value v = parseJson(schema);
  return argumentsFromSchema(&v);
}

json::value chatAnswer(std::string const& body) {
  MockProvider mock;
  MockReply reply = mock.handle(makeRequest(Protocol::OpenAiChat, "/v1/chat/completions", body));
  EXPECT_EQ(reply.status, 200) << reply.body();
  return parseJson(reply.body());
}

constexpr std::string_view kTwoTools = R"("tools":[
  {"type":"function","function":{"name":"get_weather","parameters":{"type":"object",
    "properties":{"city":{"type":"string"}},"required":["city"]}}},
  {"type":"function","function":{"name":"get_time","parameters":{"type":"object",
    "properties":{"zone":{"type":"string","enum":["UTC","CET"]}},"required":["zone"]}}}])";

std::string chatWithTools(
    std::string_view extra,
    std::string_view messages = R"([{"role":"user","content":"Weather and time?"}])") {
  return std::string(R"({"model":"gpt-4o","messages":)") + std::string(messages) + "," +
         std::string(kTwoTools) + std::string(extra) + "}";
}

TEST(MockAnswer, TextQuotesTheLastUserMessage) {
  json::value body = chatAnswer(R"({"model":"gpt-4o","messages":[
    {"role":"system","content":"Be brief."},{"role":"user","content":"first"},
    {"role":"assistant","content":"ok"},{"role":"user","content":[{"type":"text","text":"Hello there"}]}]})");
  EXPECT_EQ(body.at("choices").at(0).at("message").at("content"), "You said: \"Hello there\"");
}

TEST(MockAnswer, StreamedDeltasAddUpToTheText) {
  MockProvider mock;
  std::string question = "Please explain how streaming works in a few words";
  MockReply reply = mock.handle(makeRequest(
      Protocol::Anthropic, "/v1/messages",
      R"({"model":"claude-sonnet-4-5","max_tokens":100,"stream":true,"messages":[{"role":"user","content":")" +
          question + R"("}]})"));
  std::string text;
  int deltas = 0;
  for (auto const& e : parseSse(reply.body())) {
    if (testing::kindOf(Protocol::Anthropic, e) != "content_block_delta:text_delta") continue;
    text += e.json.at("delta").at("text").as_string();
    ++deltas;
  }
  EXPECT_EQ(text, "You said: \"" + question + "\"");
  EXPECT_GT(deltas, 2);
}

TEST(MockAnswer, LongQuotesAreCutAtACharacterBoundary) {
  std::string long_text;
  for (int i = 0; i < 150; ++i) long_text += "\xC3\xA9";  // "é" x150 = 300 bytes
  json::value body = chatAnswer(R"({"model":"gpt-4o","messages":[{"role":"user","content":")" +
                                long_text + R"("}]})");
  std::string content(body.at("choices").at(0).at("message").at("content").as_string());
  EXPECT_TRUE(content.ends_with("...\""));
  EXPECT_EQ(content, "You said: \"" + long_text.substr(0, 200) + "...\"");
}

TEST(MockAnswer, TwoParallelCallsWhenTwoToolsAreOffered) {
  json::value body = chatAnswer(chatWithTools(""));
  json::value const& calls = body.at("choices").at(0).at("message").at("tool_calls");
  ASSERT_EQ(calls.as_array().size(), 2u);
  EXPECT_EQ(calls.at(0).at("function").at("name"), "get_weather");
  EXPECT_EQ(parseJson(calls.at(0).at("function").at("arguments").as_string()).at("city"), "Paris");
  EXPECT_EQ(parseJson(calls.at(1).at("function").at("arguments").as_string()).at("zone"), "UTC");
  EXPECT_NE(calls.at(0).at("id"), calls.at(1).at("id"));
}

TEST(MockAnswer, ToolChoiceShapesTheCalls) {
  auto calls = [](json::value const& body) {
    json::value const* c =
        body.at("choices").at(0).at("message").as_object().if_contains("tool_calls");
    return c ? c->as_array().size() : 0u;
  };
  EXPECT_EQ(calls(chatAnswer(chatWithTools(R"(,"parallel_tool_calls":false)"))), 1u);
  EXPECT_EQ(calls(chatAnswer(chatWithTools(R"(,"tool_choice":"none")"))), 0u);
  json::value named = chatAnswer(
      chatWithTools(R"(,"tool_choice":{"type":"function","function":{"name":"get_time"}})"));
  ASSERT_EQ(calls(named), 1u);
  EXPECT_EQ(
      named.at("choices").at(0).at("message").at("tool_calls").at(0).at("function").at("name"),
      "get_time");

  MockProvider mock;
  MockReply anthropic =
      mock.handle(makeRequest(Protocol::Anthropic, "/v1/messages", R"({"model":"c","max_tokens":64,
    "tool_choice":{"type":"auto","disable_parallel_tool_use":true},
    "tools":[{"name":"a","input_schema":{"type":"object"}},{"name":"b","input_schema":{"type":"object"}}],
    "messages":[{"role":"user","content":"go"}]})"));
  json::value content = parseJson(anthropic.body()).at("content");
  ASSERT_EQ(content.as_array().size(), 2u);  // the preamble sentence and one call
  EXPECT_EQ(content.at(0).at("text"), "I'll use the a tool.");
}

TEST(MockAnswer, AfterAToolResultTheAnswerIsText) {
  json::value body = chatAnswer(chatWithTools("", R"([{"role":"user","content":"Weather?"},
    {"role":"assistant","tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{}"}}]},
    {"role":"tool","tool_call_id":"call_1","content":"sunny"}])"));
  EXPECT_EQ(body.at("choices").at(0).at("finish_reason"), "stop");
  EXPECT_EQ(body.at("choices").at(0).at("message").at("content"), "You said: \"Weather?\"");
}

TEST(MockAnswer, UsageFollowsTheRequest) {
  std::string plain = R"({"model":"gpt-4o","messages":[{"role":"user","content":"Hi"}]})";
  json::value usage = chatAnswer(plain).at("usage");
  EXPECT_EQ(usage.at("prompt_tokens").as_int64(), static_cast<std::int64_t>(plain.size() / 4 + 1));
  EXPECT_EQ(usage.at("prompt_tokens_details").at("cached_tokens").as_int64(), 0);
  EXPECT_EQ(usage.at("completion_tokens_details").at("reasoning_tokens").as_int64(), 0);

  json::value cached =
      chatAnswer(
          R"({"model":"gpt-4o","prompt_cache_key":"k","messages":[{"role":"user","content":"Hi"}]})")
          .at("usage");
  EXPECT_GT(cached.at("prompt_tokens_details").at("cached_tokens").as_int64(), 0);
  EXPECT_LT(cached.at("prompt_tokens_details").at("cached_tokens").as_int64(),
            cached.at("prompt_tokens").as_int64());

  MockProvider mock;
  MockReply gemini = mock.handle(makeRequest(
      Protocol::Gemini, "/v1beta/models/gemini-2.5-pro:generateContent",
      R"({"contents":[{"parts":[{"text":"Hi"}]}],"generationConfig":{"thinkingConfig":{"includeThoughts":true}}})"));
  json::value meta = parseJson(gemini.body()).at("usageMetadata");
  EXPECT_GT(meta.at("thoughtsTokenCount").as_int64(), 0);
  EXPECT_EQ(meta.at("totalTokenCount").as_int64(), meta.at("promptTokenCount").as_int64() +
                                                       meta.at("candidatesTokenCount").as_int64() +
                                                       meta.at("thoughtsTokenCount").as_int64());
}

TEST(MockAnswer, ThinkingComesWithASignature) {
  MockProvider mock;
  MockReply reply = mock.handle(
      makeRequest(Protocol::Anthropic, "/v1/messages", R"({"model":"c","max_tokens":4096,
    "thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"Why?"}]})"));
  json::value block = parseJson(reply.body()).at("content").at(0);
  EXPECT_EQ(block.at("type"), "thinking");
  EXPECT_GT(block.at("signature").as_string().size(), 100u);
  EXPECT_NE(block.at("thinking").as_string().find("Why?"), json::string::npos);
}

TEST(SchemaValues, RequiredPropertiesGetPlausibleValues) {
  EXPECT_EQ(
      args(
          R"({"type":"object","properties":{"city":{"type":"string"},"unit":{"type":"string"}},"required":["city"]})"),
      R"({"city":"Paris"})");
  EXPECT_EQ(
      args(
          R"({"type":"object","properties":{"n":{"type":"integer","minimum":5}},"required":["n"]})"),
      R"({"n":5})");
  EXPECT_EQ(
      args(
          R"({"type":"object","properties":{"p":{"type":"number","maximum":0.5}},"required":["p"]})"),
      R"({"p":0.5})");
  EXPECT_EQ(
      args(
          R"({"type":"object","properties":{"op":{"enum":["add","sub"]},"k":{"const":7}},"required":["op","k"]})"),
      R"({"op":"add","k":7})");
  EXPECT_EQ(
      args(
          R"({"type":"object","properties":{"tags":{"type":"array","items":{"type":"string"},"minItems":2}},"required":["tags"]})"),
      R"({"tags":["example","example"]})");
  EXPECT_EQ(
      args(
          R"({"type":"object","properties":{"when":{"type":"string","format":"date-time"},"ok":{"type":"boolean"}},"required":["when","ok"]})"),
      R"({"when":"2025-01-01T12:00:00Z","ok":true})");
  EXPECT_EQ(args(R"({"type":"object","properties":{}})"), "{}");
  EXPECT_EQ(argumentsFromSchema(nullptr), "{}");
}

TEST(SchemaValues, FollowsNestingRefsUnionsAndGeminiTypes) {
  EXPECT_EQ(
      args(
          R"({"type":"object","$defs":{"Loc":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}},
                    "properties":{"where":{"$ref":"#/$defs/Loc"}},"required":["where"]})"),
      R"({"where":{"city":"Paris"}})");
  EXPECT_EQ(
      args(
          R"({"type":"object","properties":{"v":{"anyOf":[{"type":"null"},{"type":"integer"}]}},"required":["v"]})"),
      R"({"v":1})");
  EXPECT_EQ(
      args(R"({"type":"object","properties":{"v":{"type":["null","string"]}},"required":["v"]})"),
      R"({"v":"example"})");
  EXPECT_EQ(
      args(
          R"({"type":"OBJECT","properties":{"country":{"type":"STRING"},"count":{"type":"INTEGER"}},"required":["country","count"]})"),
      R"({"country":"France","count":10})");
  // Infinite recursion through a $ref ends.
  std::string deep = args(
      R"({"type":"object","$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}},"required":["next"]}},
                              "properties":{"root":{"$ref":"#/$defs/N"}},"required":["root"]})");
  EXPECT_FALSE(parseJson(deep).is_null());
}

TEST(JsonWriter, ProviderStyles) {
  json::value v = parseJson(R"({"a":1,"b":[true,null],"c":{},"d":"x\n","e":1.5,"f":2.0})");
  EXPECT_EQ(toJsonText(v), R"({"a":1,"b":[true,null],"c":{},"d":"x\n","e":1.5,"f":2.0})");
  EXPECT_EQ(toJsonText(v, JsonStyle::GoogleLine),
            R"({"a": 1,"b": [true,null],"c": {},"d": "x\n","e": 1.5,"f": 2.0})");
  EXPECT_EQ(toJsonText(v, JsonStyle::PythonLine),
            R"({"a": 1, "b": [true, null], "c": {}, "d": "x\n", "e": 1.5, "f": 2.0})");
  EXPECT_EQ(toJsonText(parseJson(R"({"a":[1],"b":{}})"), JsonStyle::Indent2),
            "{\n  \"a\": [\n    1\n  ],\n  \"b\": {}\n}");
  EXPECT_EQ(toJsonText(parseJson(R"({"e":{"m":"x"}})"), JsonStyle::Indent4),
            "{\n    \"e\": {\n        \"m\": \"x\"\n    }\n}");
}

TEST(SplitDeltas, PiecesStartAtWordsAndAddUp) {
  std::string text = "The quick brown fox jumps over the lazy dog, twice, and then rests.";
  auto pieces = splitDeltas(text, 12);
  ASSERT_GT(pieces.size(), 2u);
  std::string joined;
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    if (i > 0) {
      EXPECT_EQ(pieces[i].front(), ' ');
    }
    joined += pieces[i];
  }
  EXPECT_EQ(joined, text);
  // Even a short answer streams in more than one delta.
  EXPECT_EQ(splitDeltas("You said: \"Hi\"").size(), 2u);
  std::string unbroken(100, 'a');
  unbroken += "\xE2\x82\xAC";  // a 3-byte character right where a cut would fall
  std::string again;
  for (auto piece : splitDeltas(unbroken, 16)) again += piece;
  EXPECT_EQ(again, unbroken);
  for (auto piece : splitFragments("\xE2\x82\xAC\xE2\x82\xAC", 2)) EXPECT_EQ(piece.size(), 3u);
}

}  // namespace
}  // namespace llmux::mock
