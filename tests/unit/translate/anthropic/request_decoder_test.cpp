#include <gtest/gtest.h>

#include <algorithm>

#include "translate/anthropic/codec.h"

namespace llmux::translate::anthropic {
namespace {

Request decodeOk(std::string const& body) {
  auto r = decodeRequest(body);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message) << "\n" << body;
  return r.ok() ? std::move(r).value() : Request{};
}

bool dropped(Request const& r, std::string_view name) {
  return std::find(r.dropped.begin(), r.dropped.end(), name) != r.dropped.end();
}

TEST(AnthropicRequestDecoder, ScalarsAndParameters) {
  Request r = decodeOk(R"({"model":"claude-x","max_tokens":512,"stream":true,"temperature":0.3,
    "top_p":0.9,"top_k":40,"stop_sequences":["END","###"],"metadata":{"user_id":"u-1"},
    "messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(r.model, "claude-x");
  EXPECT_EQ(r.max_output_tokens, 512);
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);  // Anthropic streams always carry usage
  EXPECT_DOUBLE_EQ(*r.temperature, 0.3);
  EXPECT_DOUBLE_EQ(*r.top_p, 0.9);
  EXPECT_EQ(r.top_k, 40);
  EXPECT_EQ(r.stop, (std::vector<std::string>{"END", "###"}));
  EXPECT_EQ(r.user, "u-1");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, Role::User);
  ASSERT_EQ(r.messages[0].blocks.size(), 1u);
  EXPECT_EQ(r.messages[0].blocks[0].text, "hi");
  EXPECT_FALSE(r.reasoning.has_value());
  EXPECT_TRUE(r.dropped.empty());
}

TEST(AnthropicRequestDecoder, SystemAsStringOrBlocksWithCacheMarkers) {
  Request s = decodeOk(R"({"model":"m","max_tokens":1,"system":"be brief","messages":[]})");
  ASSERT_EQ(s.system.size(), 1u);
  EXPECT_EQ(s.system[0].text, "be brief");

  Request b = decodeOk(R"({"model":"m","max_tokens":1,"messages":[],"system":[
    {"type":"text","text":"one"},
    {"type":"text","text":"two","cache_control":{"type":"ephemeral","ttl":"1h"}}]})");
  ASSERT_EQ(b.system.size(), 2u);
  EXPECT_FALSE(b.system[0].cache_marker);
  EXPECT_TRUE(b.system[1].cache_marker);
  EXPECT_TRUE(dropped(b, "cache_control.ttl"));
}

TEST(AnthropicRequestDecoder, ContentBlocksOfEveryKind) {
  Request r = decodeOk(R"({"model":"m","max_tokens":1,"messages":[
    {"role":"user","content":[
      {"type":"text","text":"look"},
      {"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},
      {"type":"image","source":{"type":"url","url":"https://x.test/a.jpg"}},
      {"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0="},"title":"t"},
      {"type":"document","source":{"type":"text","media_type":"text/plain","data":"plain words"}}]},
    {"role":"assistant","content":[
      {"type":"thinking","thinking":"hmm","signature":"sig-A"},
      {"type":"redacted_thinking","data":"opaque"},
      {"type":"text","text":"calling"},
      {"type":"tool_use","id":"toolu_1","name":"get","input":{"q":"x","n":2}}]},
    {"role":"user","content":[
      {"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"r1"}],"is_error":true},
      {"type":"text","text":"go on"}]}]})");
  ASSERT_EQ(r.messages.size(), 3u);
  auto const& u = r.messages[0].blocks;
  ASSERT_EQ(u.size(), 5u);
  EXPECT_EQ(u[1].type, BlockType::Image);
  EXPECT_EQ(u[1].media_type, "image/png");
  EXPECT_EQ(u[1].data, "iVBORw0KGgo=");
  EXPECT_EQ(u[2].url, "https://x.test/a.jpg");
  EXPECT_EQ(u[3].type, BlockType::Document);
  EXPECT_EQ(u[3].media_type, "application/pdf");
  EXPECT_EQ(u[4].media_type, "text/plain");
  EXPECT_EQ(u[4].data, "cGxhaW4gd29yZHM=");  // base64 of "plain words"
  EXPECT_TRUE(dropped(r, "document.title"));

  auto const& a = r.messages[1].blocks;
  ASSERT_EQ(a.size(), 4u);
  EXPECT_EQ(a[0].type, BlockType::Thinking);
  EXPECT_EQ(a[0].text, "hmm");
  EXPECT_EQ(a[0].signature, "sig-A");
  EXPECT_EQ(a[0].signature_origin, Protocol::Anthropic);
  EXPECT_EQ(a[1].type, BlockType::RedactedThinking);
  EXPECT_EQ(a[1].signature, "opaque");
  EXPECT_EQ(a[3].type, BlockType::ToolCall);
  EXPECT_EQ(a[3].id, "toolu_1");
  EXPECT_EQ(a[3].arguments, R"({"q":"x","n":2})");

  auto const& t = r.messages[2].blocks;
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t[0].type, BlockType::ToolResult);
  EXPECT_EQ(t[0].id, "toolu_1");
  EXPECT_EQ(t[0].name, "get");  // paired with its call by id
  EXPECT_TRUE(t[0].is_error);
  ASSERT_EQ(t[0].content.size(), 1u);
  EXPECT_EQ(t[0].content[0].text, "r1");
}

TEST(AnthropicRequestDecoder, ToolsAndToolChoice) {
  struct Case {
    std::string choice;
    ToolChoiceMode mode;
    std::string name;
    std::optional<bool> parallel;
  };
  std::vector<Case> cases = {
      {R"({"type":"auto"})", ToolChoiceMode::Auto, "", std::nullopt},
      {R"({"type":"any","disable_parallel_tool_use":true})", ToolChoiceMode::Required, "", false},
      {R"({"type":"tool","name":"get"})", ToolChoiceMode::Named, "get", std::nullopt},
      {R"({"type":"none"})", ToolChoiceMode::None, "", std::nullopt},
      {R"({"type":"auto","disable_parallel_tool_use":false})", ToolChoiceMode::Auto, "", true},
  };
  for (auto const& c : cases) {
    Request r = decodeOk(
        R"({"model":"m","max_tokens":1,"messages":[],"tool_choice":)" + c.choice +
        R"(,"tools":[{"name":"get","description":"d","input_schema":{"type":"object","properties":{"q":{"type":"string"}}},"cache_control":{"type":"ephemeral"}},
                         {"type":"web_search_20250305","name":"web_search"}]})");
    ASSERT_TRUE(r.tool_choice.has_value()) << c.choice;
    EXPECT_EQ(r.tool_choice->mode, c.mode) << c.choice;
    EXPECT_EQ(r.tool_choice->name, c.name) << c.choice;
    EXPECT_EQ(r.parallel_tool_calls, c.parallel) << c.choice;
    ASSERT_EQ(r.tools.size(), 1u);
    EXPECT_EQ(r.tools[0].name, "get");
    EXPECT_EQ(r.tools[0].description, "d");
    EXPECT_EQ(r.tools[0].parameters, R"({"type":"object","properties":{"q":{"type":"string"}}})");
    EXPECT_TRUE(dropped(r, "tools.web_search_20250305"));
    EXPECT_TRUE(dropped(r, "tools.cache_control"));
  }
}

TEST(AnthropicRequestDecoder, ReasoningSettings) {
  struct Case {
    std::string fields;
    bool present;
    bool enabled;
    std::string effort;
    std::optional<std::int64_t> budget;
    bool include_thoughts;
  };
  std::vector<Case> cases = {
      {R"("thinking":{"type":"enabled","budget_tokens":3000})", true, true, "", 3000, true},
      {R"("thinking":{"type":"enabled","budget_tokens":1024,"display":"omitted"})", true, true, "",
       1024, false},
      {R"("thinking":{"type":"disabled"})", true, false, "", std::nullopt, false},
      {R"("thinking":{"type":"adaptive"},"output_config":{"effort":"high"})", true, true, "high",
       std::nullopt, true},
      {R"("output_config":{"effort":"low"})", true, true, "low", std::nullopt, false},
      {R"("temperature":1)", false, false, "", std::nullopt, false},
  };
  for (auto const& c : cases) {
    Request r = decodeOk(R"({"model":"m","max_tokens":8000,"messages":[],)" + c.fields + "}");
    ASSERT_EQ(r.reasoning.has_value(), c.present) << c.fields;
    if (!c.present) continue;
    EXPECT_EQ(r.reasoning->enabled, c.enabled) << c.fields;
    EXPECT_EQ(r.reasoning->effort, c.effort) << c.fields;
    EXPECT_EQ(r.reasoning->budget_tokens, c.budget) << c.fields;
    EXPECT_EQ(r.reasoning->include_thoughts, c.include_thoughts) << c.fields;
  }
}

TEST(AnthropicRequestDecoder, StructuredOutputAndMidConversationSystem) {
  Request r = decodeOk(R"({"model":"m","max_tokens":1,
    "output_config":{"format":{"type":"json_schema","schema":{"type":"object"}}},
    "messages":[{"role":"user","content":"a"},{"role":"system","content":"reminder"},
                {"role":"user","content":"b"}]})");
  ASSERT_TRUE(r.response_format.has_value());
  EXPECT_EQ(r.response_format->type, ResponseFormatType::JsonSchema);
  EXPECT_EQ(r.response_format->schema, R"({"type":"object"})");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[1].role, Role::System);
  EXPECT_EQ(r.messages[1].blocks[0].text, "reminder");
}

TEST(AnthropicRequestDecoder, FieldsWithoutANeutralPlaceAreListed) {
  Request r = decodeOk(R"({"model":"m","max_tokens":1,"service_tier":"auto",
    "context_management":{"edits":[]},"container":"c","cache_control":{"type":"ephemeral"},
    "metadata":{"user_id":"u","other":1},
    "messages":[{"role":"assistant","content":[
      {"type":"server_tool_use","id":"srvtoolu_1","name":"web_search","input":{}},
      {"type":"web_search_tool_result","tool_use_id":"srvtoolu_1","content":[]},
      {"type":"text","text":"t","citations":[{"type":"x"}]}]}]})");
  for (std::string_view name :
       {"service_tier", "context_management", "container", "cache_control", "metadata.other",
        "server_tool_use", "web_search_tool_result", "citations"}) {
    EXPECT_TRUE(dropped(r, name)) << name;
  }
  ASSERT_EQ(r.messages[0].blocks.size(), 1u);
  EXPECT_EQ(r.messages[0].blocks[0].text, "t");
}

TEST(AnthropicRequestDecoder, SignaturesTaggedForAnotherProtocolGetTheirOriginBack) {
  Request r = decodeOk(R"({"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[
    {"type":"thinking","thinking":"t","signature":"llmux:gemini:c2lnbmF0dXJl"},
    {"type":"thinking","thinking":"u","signature":"llmux:openai-responses:gAAAA"},
    {"type":"thinking","thinking":"v","signature":""}]}]})");
  auto const& b = r.messages[0].blocks;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].signature, "c2lnbmF0dXJl");
  EXPECT_EQ(b[0].signature_origin, Protocol::Gemini);
  EXPECT_EQ(b[1].signature, "gAAAA");
  EXPECT_EQ(b[1].signature_origin, Protocol::OpenAiResponses);
  EXPECT_TRUE(b[2].signature.empty());
  EXPECT_FALSE(b[2].signature_origin.has_value());
}

TEST(AnthropicRequestDecoder, MalformedBodiesAreInvalidRequestsNamingTheField) {
  struct Case {
    std::string body;
    std::string mentions;
  };
  std::vector<Case> cases = {
      {"not json", "not valid JSON"},
      {"[]", "JSON object"},
      {R"({"max_tokens":1,"messages":[]})", "model"},
      {R"({"model":"m","max_tokens":1})", "messages"},
      {R"({"model":"m","max_tokens":"many","messages":[]})", "max_tokens"},
      {R"({"model":"m","max_tokens":0,"messages":[]})", "max_tokens"},
      {R"({"model":"m","max_tokens":1,"stream":"yes","messages":[]})", "stream"},
      {R"({"model":"m","max_tokens":1,"messages":[{"role":"robot","content":"x"}]})",
       "messages.0.role"},
      {R"({"model":"m","max_tokens":1,"messages":[{"role":"user"}]})", "messages.0.content"},
      {R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"text"}]}]})",
       "messages.0.content.0"},
      {R"({"model":"m","max_tokens":1,"messages":[{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"b","input":[1]}]}]})",
       "messages.0.content.0"},
      {R"({"model":"m","max_tokens":1,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"ftp"}}]}]})",
       "messages.0.content.0"},
      {R"({"model":"m","max_tokens":1,"messages":[],"tool_choice":{"type":"tool"}})",
       "tool_choice"},
      {R"({"model":"m","max_tokens":1,"messages":[],"thinking":{"type":"enabled"}})",
       "thinking.budget_tokens"},
      {R"({"model":"m","max_tokens":1,"messages":[],"tools":[{"description":"x"}]})",
       "tools.0.name"},
      {R"({"model":"m","max_tokens":1,"messages":[],"stop_sequences":"END"})", "stop_sequences"},
  };
  for (auto const& c : cases) {
    auto r = decodeRequest(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.error().kind, ErrorKind::InvalidRequest) << c.body;
    EXPECT_NE(r.error().message.find(c.mentions), std::string::npos)
        << c.body << " -> " << r.error().message;
  }
}

}  // namespace
}  // namespace llmux::translate::anthropic
