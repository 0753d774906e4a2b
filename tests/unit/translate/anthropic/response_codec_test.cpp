#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "anthropic/support.h"
#include "translate/anthropic/codec.h"
#include "validators/anthropic_validator.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;
using testing::readFixture;

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += p + "\n";
  return out;
}

/// Non-error whole-message fixtures.
std::vector<std::string> messageFixtures() {
  std::vector<std::string> names;
  for (auto const& suffix : {".response.json", ".json"}) {
    for (auto const& name : testing::fixturesEnding(suffix)) {
      if (name.ends_with(".request.json") || name.find("error_") != std::string::npos) continue;
      if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
    }
  }
  return names;
}

void expectSameContent(Response const& a, Response const& b, std::string const& where) {
  ASSERT_EQ(a.content.size(), b.content.size()) << where;
  for (std::size_t i = 0; i < a.content.size(); ++i) {
    Block const& x = a.content[i];
    Block const& y = b.content[i];
    EXPECT_EQ(x.type, y.type) << where << " block " << i;
    EXPECT_EQ(x.text, y.text) << where << " block " << i;
    EXPECT_EQ(x.signature, y.signature) << where << " block " << i;
    EXPECT_EQ(x.id, y.id) << where << " block " << i;
    EXPECT_EQ(x.name, y.name) << where << " block " << i;
    if (x.type == BlockType::ToolCall) {
      EXPECT_EQ(json::parse(x.arguments), json::parse(y.arguments)) << where << " block " << i;
    }
  }
}

TEST(AnthropicResponseCodec, EveryRecordedMessageRoundTripsAndValidates) {
  auto names = messageFixtures();
  ASSERT_GE(names.size(), 9u);
  for (auto const& name : names) {
    std::string body = readFixture(name);
    EXPECT_TRUE(validators::anthropic::validateResponse(body).empty())
        << name << " (recorded): " << joined(validators::anthropic::validateResponse(body));
    auto decoded = decodeResponse(body);
    ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.error().message;
    EncodeOptions options;
    options.model = "client-model";
    std::string encoded = encodeResponse(*decoded, options);
    auto problems = validators::anthropic::validateResponse(encoded);
    EXPECT_TRUE(problems.empty()) << name << ": " << joined(problems) << encoded;
    auto again = decodeResponse(encoded);
    ASSERT_TRUE(again.ok()) << name;
    expectSameContent(*decoded, *again, name);
    EXPECT_EQ(again->id, decoded->id) << name;
    EXPECT_EQ(again->model, "client-model") << name;
    EXPECT_EQ(again->stop, decoded->stop) << name;
    ASSERT_TRUE(again->usage && decoded->usage) << name;
    EXPECT_EQ(again->usage->input, decoded->usage->input) << name;
    EXPECT_EQ(again->usage->cache_read, decoded->usage->cache_read) << name;
    EXPECT_EQ(again->usage->cache_write, decoded->usage->cache_write) << name;
    EXPECT_EQ(again->usage->output, decoded->usage->output) << name;
  }
}

TEST(AnthropicResponseCodec, RecordedContentIsDecodedFaithfully) {
  auto thinking =
      decodeResponse(readFixture("pydantic-ai--thinking_tool_use_roundtrip.i0.response.json"));
  ASSERT_TRUE(thinking.ok());
  ASSERT_EQ(thinking->content.size(), 3u);
  EXPECT_EQ(thinking->content[0].type, BlockType::Thinking);
  EXPECT_TRUE(thinking->content[0].signature.starts_with("EqEECkYICxgCKkAo3UA4"));
  EXPECT_EQ(thinking->content[0].signature_origin, Protocol::Anthropic);
  EXPECT_EQ(thinking->content[2].type, BlockType::ToolCall);
  EXPECT_EQ(thinking->content[2].id, "toolu_01YGzqpRE16Vricda3Aqcejo");
  EXPECT_EQ(thinking->content[2].name, "get_user_country");
  EXPECT_EQ(thinking->content[2].arguments, "{}");
  EXPECT_EQ(thinking->stop, StopReason::ToolUse);
  EXPECT_EQ(thinking->id, "msg_01WvueFjZVbHcj4H4zUzeGv2");

  auto parallel = decodeResponse(readFixture("pydantic-ai--parallel_tool_use.i0.response.json"));
  ASSERT_TRUE(parallel.ok());
  ASSERT_EQ(parallel->content.size(), 5u);
  EXPECT_EQ(parallel->content[4].arguments, R"({"name":"Daisy"})");

  auto redacted = decodeResponse(readFixture("pydantic-ai--redacted_thinking.response.json"));
  ASSERT_TRUE(redacted.ok());
  EXPECT_EQ(redacted->content[0].type, BlockType::RedactedThinking);
  EXPECT_TRUE(redacted->content[0].signature.starts_with("EvgFCkYIBxgCKkBm"));

  // Server tool blocks (web search) are Anthropic's own state: thinking and text are carried.
  auto paused = decodeResponse(readFixture("pydantic-ai--stop_pause_turn.response.json"));
  ASSERT_TRUE(paused.ok());
  EXPECT_EQ(paused->stop, StopReason::PauseTurn);
  ASSERT_EQ(paused->content.size(), 6u);
  EXPECT_EQ(paused->content[0].type, BlockType::Thinking);
  for (std::size_t i = 1; i < paused->content.size(); ++i) {
    EXPECT_EQ(paused->content[i].type, BlockType::Text);
  }
}

TEST(AnthropicResponseCodec, UsageBecomesTheCanonicalRecordAndBack) {
  // input_tokens 3, cache write 418, cache read 1111, output 33.
  auto r = decodeResponse(readFixture("pydantic-ai--prompt_cache_usage.i1.response.json"));
  ASSERT_TRUE(r.ok() && r->usage);
  EXPECT_EQ(r->usage->input, 3 + 418 + 1111);
  EXPECT_EQ(r->usage->cache_read, 1111);
  EXPECT_EQ(r->usage->cache_write, 418);
  EXPECT_EQ(r->usage->output, 33);
  EXPECT_EQ(r->usage->total(), 1532 + 33);
  EXPECT_FALSE(r->usage->estimated);
  auto body = json::parse(encodeResponse(*r, {})).as_object();
  auto const& usage = body.at("usage").as_object();
  EXPECT_EQ(usage.at("input_tokens").as_int64(), 3);
  EXPECT_EQ(usage.at("cache_creation_input_tokens").as_int64(), 418);
  EXPECT_EQ(usage.at("cache_read_input_tokens").as_int64(), 1111);
  EXPECT_EQ(usage.at("output_tokens").as_int64(), 33);
}

TEST(AnthropicResponseCodec, ZeroCompletionIsReestimated) {
  auto r = decodeResponse(R"({"id":"msg_1","type":"message","role":"assistant","model":"m",
    "content":[{"type":"text","text":"twelve chars"}],"stop_reason":"end_turn",
    "usage":{"input_tokens":5,"output_tokens":0}})");
  ASSERT_TRUE(r.ok() && r->usage);
  EXPECT_EQ(r->usage->output, 3);  // 12 bytes / 4
  EXPECT_TRUE(r->usage->estimated);
}

TEST(AnthropicResponseCodec, StopReasonsBothWays) {
  struct Case {
    std::string wire;
    StopReason stop;
  };
  std::vector<Case> cases = {{"end_turn", StopReason::EndTurn},
                             {"max_tokens", StopReason::MaxTokens},
                             {"stop_sequence", StopReason::StopSequence},
                             {"tool_use", StopReason::ToolUse},
                             {"pause_turn", StopReason::PauseTurn},
                             {"refusal", StopReason::ContentFilter},
                             {"model_context_window_exceeded", StopReason::ContextWindow}};
  for (auto const& c : cases) {
    std::string content = c.stop == StopReason::ToolUse
                              ? R"([{"type":"tool_use","id":"toolu_1","name":"f","input":{}}])"
                              : R"([{"type":"text","text":"x"}])";
    auto r = decodeResponse(
        R"({"id":"msg_1","type":"message","role":"assistant","model":"m","content":)" + content +
        R"(,"stop_reason":")" + c.wire +
        R"(","stop_sequence":"END","usage":{"input_tokens":1,"output_tokens":1}})");
    ASSERT_TRUE(r.ok()) << c.wire;
    EXPECT_EQ(r->stop, c.stop) << c.wire;
    auto out = json::parse(encodeResponse(*r, {})).as_object();
    EXPECT_EQ(out.at("stop_reason").as_string(), c.wire);
  }
}

TEST(AnthropicResponseCodec, EncodedAnswersFromOtherProtocols) {
  Response r;
  r.id = "chatcmpl-42";
  r.model = "gpt-x";
  Block thought;
  thought.type = BlockType::Thinking;
  thought.text = "reasoning summary";
  thought.signature = "gAAAAencrypted";
  thought.signature_origin = Protocol::OpenAiResponses;
  Block unsigned_thought;
  unsigned_thought.type = BlockType::Thinking;
  unsigned_thought.text = "deepseek reasoning";
  unsigned_thought.signature_origin = Protocol::OpenAiChat;
  Block answer;
  answer.text = "calling";
  Block tool;
  tool.type = BlockType::ToolCall;
  tool.id = "";
  tool.name = "get";
  tool.arguments = "{\"a\": [1, 2]}";
  Block broken = tool;
  broken.id = "call:9";
  broken.arguments = "{\"a\": ";
  r.content = {thought, unsigned_thought, answer, tool, broken};
  r.stop = StopReason::EndTurn;  // Gemini says STOP after function calls
  r.stop_sequence.clear();
  r.usage = Usage{10, 4, 0, 7, 2, false};
  EncodeOptions options;
  options.model = "claude-alias";
  std::string body = encodeResponse(r, options);
  auto problems = validators::anthropic::validateResponse(body);
  EXPECT_TRUE(problems.empty()) << joined(problems) << body;
  auto o = json::parse(body).as_object();
  EXPECT_EQ(o.at("id").as_string(), "msg_chatcmpl-42");
  EXPECT_EQ(o.at("model").as_string(), "claude-alias");
  EXPECT_EQ(o.at("stop_reason").as_string(), "tool_use");
  auto const& c = o.at("content").as_array();
  ASSERT_EQ(c.size(), 5u);
  EXPECT_EQ(c[0].at("signature").as_string(), "llmux:openai-responses:gAAAAencrypted");
  EXPECT_EQ(c[1].at("signature").as_string(), "llmux:openai-chat:") << "never empty";
  EXPECT_TRUE(c[3].at("id").as_string().starts_with("toolu_"));
  EXPECT_EQ(c[3].at("input"), json::parse(R"({"a":[1,2]})"));
  EXPECT_EQ(c[4].at("id").as_string(), "call_9");
  EXPECT_EQ(c[4].at("input"), json::parse("{}"));  // unparsable arguments cannot be carried
  EXPECT_EQ(o.at("usage").at("input_tokens").as_int64(), 6);

  // Stop sequence only when known; nothing else made up.
  Response s;
  s.content = {answer};
  s.stop = StopReason::StopSequence;
  auto unknown = json::parse(encodeResponse(s, {})).as_object();
  EXPECT_EQ(unknown.at("stop_reason").as_string(), "end_turn");
  EXPECT_TRUE(unknown.at("id").as_string().starts_with("msg_"));
  s.stop_sequence = "###";
  auto known = json::parse(encodeResponse(s, {})).as_object();
  EXPECT_EQ(known.at("stop_reason").as_string(), "stop_sequence");
  EXPECT_EQ(known.at("stop_sequence").as_string(), "###");
}

TEST(AnthropicResponseCodec, ErrorsAndMalformedBodies) {
  auto e400 = decodeResponse(readFixture("pydantic-ai--error_400_invalid_request.response.json"));
  ASSERT_FALSE(e400.ok());
  EXPECT_EQ(e400.error().status(), 400);
  EXPECT_NE(e400.error().message.find("effort level"), std::string::npos);
  auto e404 = decodeResponse(readFixture("pydantic-ai--error_404_not_found.response.json"));
  ASSERT_FALSE(e404.ok());
  EXPECT_EQ(e404.error().status(), 404);
  auto overloaded = decodeResponse(
      R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  ASSERT_FALSE(overloaded.ok());
  EXPECT_EQ(overloaded.error().status(), 529);
  for (std::string body :
       {"", "{", "[]", R"({"id":"msg_1"})", R"({"content":[{"type":"tool_use","id":"x"}]})"}) {
    auto r = decodeResponse(body);
    ASSERT_FALSE(r.ok()) << body;
    EXPECT_EQ(r.error().kind, ErrorKind::UpstreamProtocol) << body;
  }
}

}  // namespace
}  // namespace llmux::translate::anthropic
