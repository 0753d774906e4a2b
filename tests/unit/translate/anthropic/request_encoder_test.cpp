#include "translate/anthropic/request_encoder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "anthropic/support.h"
#include "translate/anthropic/codec.h"
#include "translate/anthropic/turns.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;
using testing::askMock;

Block text(std::string t) {
  Block b;
  b.text = std::move(t);
  return b;
}

Block call(std::string id, std::string name, std::string arguments) {
  Block b;
  b.type = BlockType::ToolCall;
  b.id = std::move(id);
  b.name = std::move(name);
  b.arguments = std::move(arguments);
  return b;
}

Block result(std::string id, std::string content, std::string name = {}) {
  Block b;
  b.type = BlockType::ToolResult;
  b.id = std::move(id);
  b.name = std::move(name);
  b.content.push_back(text(std::move(content)));
  return b;
}

Block thinking(std::string t, std::string signature, std::optional<Protocol> origin) {
  Block b;
  b.type = BlockType::Thinking;
  b.text = std::move(t);
  b.signature = std::move(signature);
  b.signature_origin = origin;
  return b;
}

Message msg(Role role, std::vector<Block> blocks) {
  return Message{role, std::move(blocks)};
}

Request basic() {
  Request r;
  r.model = "client-model";
  r.messages.push_back(msg(Role::User, {text("hello")}));
  return r;
}

struct Encoded {
  json::object body;
  std::string text;
  std::vector<std::string> dropped;
};

Encoded encode(Request const& r, std::string_view model = "claude-sonnet-4-5") {
  Encoded e;
  auto body = encodeRequestReporting(r, model, e.dropped);
  EXPECT_TRUE(body.ok()) << (body.ok() ? "" : body.error().message);
  if (!body.ok()) return e;
  e.text = *body;
  boost::system::error_code ec;
  json::value v = json::parse(e.text, ec);
  EXPECT_FALSE(ec) << e.text;
  if (!ec && v.is_object()) e.body = v.get_object();
  // Whatever the encoder writes must be accepted by the provider (the mock validates like it).
  auto answer = askMock(e.text);
  EXPECT_EQ(answer.status, 200) << e.text << "\n-> " << answer.body;
  return e;
}

bool has(std::vector<std::string> const& list, std::string_view name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

std::string str(json::value const& v) {
  return json::serialize(v);
}

json::array const& messages(Encoded const& e) {
  return e.body.at("messages").as_array();
}

TEST(AnthropicRequestEncoder, RequiredFieldsAndDefaults) {
  Encoded e = encode(basic());
  EXPECT_EQ(e.body.at("model").as_string(), "claude-sonnet-4-5");
  EXPECT_EQ(e.body.at("max_tokens").as_int64(), 8192);  // kDefaultMaxTokens
  EXPECT_FALSE(e.body.contains("thinking"));
  EXPECT_FALSE(e.body.contains("stream"));
  EXPECT_EQ(str(e.body.at("messages")),
            R"([{"role":"user","content":[{"type":"text","text":"hello"}]}])");

  Request r = basic();
  r.stream = true;
  r.max_output_tokens = 300;
  r.user = "end-user-7";
  Encoded s = encode(r, "");
  EXPECT_EQ(s.body.at("model").as_string(), "client-model");  // no upstream name: the client's
  EXPECT_EQ(s.body.at("max_tokens").as_int64(), 300);
  EXPECT_TRUE(s.body.at("stream").as_bool());
  EXPECT_EQ(s.body.at("metadata").at("user_id").as_string(), "end-user-7");
}

TEST(AnthropicRequestEncoder, ReasoningBecomesThinkingWithABudgetBelowMaxTokens) {
  struct Case {
    std::optional<Reasoning> reasoning;
    std::optional<std::int64_t> max_tokens;
    std::string thinking;  // "" = absent
    std::int64_t expect_max;
  };
  std::vector<Case> cases = {
      {std::nullopt, std::nullopt, "", 8192},
      {Reasoning{false, "", {}, false}, std::nullopt, R"({"type":"disabled"})", 8192},
      {Reasoning{true, "none", {}, false}, std::nullopt, R"({"type":"disabled"})", 8192},
      {Reasoning{true, "high", {}, false}, 2000, R"({"type":"enabled","budget_tokens":4096})",
       4096 + 1024},
      {Reasoning{true, "minimal", {}, false}, 20000, R"({"type":"enabled","budget_tokens":1024})",
       20000},
      {Reasoning{true, "", {}, false}, std::nullopt, R"({"type":"enabled","budget_tokens":2048})",
       8192},
      {Reasoning{true, "low", 3000, true}, 3000, R"({"type":"enabled","budget_tokens":3000})",
       3000 + 1024},
      {Reasoning{true, "", 100, true}, std::nullopt, R"({"type":"enabled","budget_tokens":1024})",
       8192},
      {Reasoning{true, "max", {}, false}, std::nullopt,
       R"({"type":"enabled","budget_tokens":16384})", 16384 + 1024},
  };
  for (auto const& c : cases) {
    Request r = basic();
    r.reasoning = c.reasoning;
    r.max_output_tokens = c.max_tokens;
    Encoded e = encode(r);
    if (c.thinking.empty()) {
      EXPECT_FALSE(e.body.contains("thinking")) << e.text;
    } else {
      ASSERT_TRUE(e.body.contains("thinking")) << e.text;
      EXPECT_EQ(str(e.body.at("thinking")), c.thinking);
    }
    EXPECT_EQ(e.body.at("max_tokens").as_int64(), c.expect_max) << e.text;
  }
}

TEST(AnthropicRequestEncoder, ThinkingDropsWhatAnthropicRefusesAlongsideIt) {
  Request r = basic();
  r.reasoning = Reasoning{true, "medium", {}, false};
  r.tools.push_back(ToolSpec{"get", "", R"({"type":"object"})", false});
  r.tool_choice = ToolChoice{ToolChoiceMode::Required, ""};
  r.temperature = 0.2;
  r.top_k = 5;
  r.top_p = 0.5;
  Encoded e = encode(r);
  EXPECT_EQ(str(e.body.at("tool_choice")), R"({"type":"auto"})");
  EXPECT_FALSE(e.body.contains("temperature"));
  EXPECT_FALSE(e.body.contains("top_k"));
  EXPECT_FALSE(e.body.contains("top_p"));
  for (std::string_view name : {"tool_choice", "temperature", "top_k", "top_p"}) {
    EXPECT_TRUE(has(e.dropped, name)) << name;
  }

  r.tool_choice = ToolChoice{ToolChoiceMode::Named, "get"};
  r.temperature = 1.0;
  r.top_p = 0.97;
  r.top_k.reset();
  Encoded named = encode(r);
  EXPECT_EQ(str(named.body.at("tool_choice")), R"({"type":"auto"})");
  EXPECT_EQ(named.body.at("temperature").to_number<double>(), 1.0);  // the one value allowed
  EXPECT_FALSE(named.body.contains("top_p"));  // not together with temperature
}

TEST(AnthropicRequestEncoder, SamplingParameters) {
  Request r = basic();
  r.temperature = 1.6;
  r.top_k = 12;
  r.stop = {"END", "\n", "  ", "###"};
  Encoded e = encode(r);
  EXPECT_EQ(e.body.at("temperature").to_number<double>(), 1.0);  // clamped to Anthropic's range
  EXPECT_EQ(e.body.at("top_k").as_int64(), 12);
  EXPECT_EQ(str(e.body.at("stop_sequences")), R"(["END","###"])");
  EXPECT_TRUE(has(e.dropped, "stop.whitespace"));

  Request p = basic();
  p.top_p = 0.8;
  Encoded only_top_p = encode(p);
  EXPECT_EQ(only_top_p.body.at("top_p").to_number<double>(), 0.8);
}

TEST(AnthropicRequestEncoder, ToolsChoiceAndSchemas) {
  Request r = basic();
  r.tools.push_back(ToolSpec{
      "get_weather", "Weather",
      R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})",
      true});
  r.tools.push_back(ToolSpec{"noargs", "", "", false});
  r.tools.push_back(ToolSpec{"gemini_style", "",
                             R"({"type":"OBJECT","properties":{"n":{"type":"INTEGER"}}})", false});
  r.parallel_tool_calls = false;
  struct Case {
    std::optional<ToolChoice> choice;
    std::string expect;
  };
  std::vector<Case> cases = {
      {std::nullopt, R"({"type":"auto","disable_parallel_tool_use":true})"},
      {ToolChoice{ToolChoiceMode::Auto, ""}, R"({"type":"auto","disable_parallel_tool_use":true})"},
      {ToolChoice{ToolChoiceMode::Required, ""},
       R"({"type":"any","disable_parallel_tool_use":true})"},
      {ToolChoice{ToolChoiceMode::Named, "get_weather"},
       R"({"type":"tool","name":"get_weather","disable_parallel_tool_use":true})"},
      {ToolChoice{ToolChoiceMode::None, ""}, R"({"type":"none"})"},
  };
  for (auto const& c : cases) {
    r.tool_choice = c.choice;
    Encoded e = encode(r);
    EXPECT_EQ(str(e.body.at("tool_choice")), c.expect);
    auto const& tools = e.body.at("tools").as_array();
    ASSERT_EQ(tools.size(), 3u);
    // A valid object schema is copied byte for byte.
    EXPECT_NE(
        e.text.find(
            R"("input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})"),
        std::string::npos);
    EXPECT_EQ(str(tools[1].at("input_schema")), R"({"type":"object","properties":{}})");
    EXPECT_FALSE(tools[1].as_object().contains("description"));
    EXPECT_EQ(tools[2].at("input_schema").at("type").as_string(), "object");
    EXPECT_EQ(tools[2].at("input_schema").at("properties").at("n").at("type").as_string(),
              "integer");
    EXPECT_TRUE(has(e.dropped, "tools.strict"));
  }
}

TEST(AnthropicRequestEncoder, ChatStyleHistoryIsShapedIntoAlternatingTurns) {
  // Chat clients send each tool result as its own message and may repeat roles.
  Request r;
  r.system.push_back(text("be useful"));
  r.messages = {
      msg(Role::System, {text("leading system message")}),
      msg(Role::User, {text("first")}),
      msg(Role::User, {text("second")}),
      msg(Role::Assistant, {text("calling two tools"), call("call_a", "get", R"({"x":1})"),
                            call("call_b", "put", "")}),
      msg(Role::User, {result("call_b", "B done")}),
      msg(Role::User, {result("call_a", "A done")}),
      msg(Role::User, {text("and now?")}),
  };
  Encoded e = encode(r);
  EXPECT_EQ(
      str(e.body.at("system")),
      R"([{"type":"text","text":"be useful"},{"type":"text","text":"leading system message"}])");
  auto const& m = messages(e);
  ASSERT_EQ(m.size(), 3u) << e.text;
  EXPECT_EQ(
      str(m[0]),
      R"({"role":"user","content":[{"type":"text","text":"first"},{"type":"text","text":"second"}]})");
  EXPECT_EQ(str(m[1].at("content").as_array()[1]),
            R"({"type":"tool_use","id":"call_a","name":"get","input":{"x":1}})");
  EXPECT_EQ(str(m[1].at("content").as_array()[2]),
            R"({"type":"tool_use","id":"call_b","name":"put","input":{}})");
  // Results first, in call order, then the user's text.
  EXPECT_EQ(str(m[2].at("content")),
            R"([{"type":"tool_result","tool_use_id":"call_a","content":"A done"},)"
            R"({"type":"tool_result","tool_use_id":"call_b","content":"B done"},)"
            R"({"type":"text","text":"and now?"}])");
}

TEST(AnthropicRequestEncoder, EveryToolUseIsAnsweredAndStrayResultsBecomeText) {
  Request r;
  r.messages = {
      msg(Role::User, {text("go"), result("call_zz", "stray", "lookup")}),
      msg(Role::Assistant, {call("call_1", "get", "{}"), call("call_2", "get", "{}")}),
      msg(Role::User, {result("call_2", "two")}),
      msg(Role::Assistant, {call("call_3", "get", "{}")}),
  };
  Encoded e = encode(r);
  auto const& m = messages(e);
  ASSERT_EQ(m.size(), 5u) << e.text;
  EXPECT_EQ(
      str(m[0].at("content")),
      R"([{"type":"text","text":"go"},{"type":"text","text":"Tool result (lookup) [call_zz]: stray"}])");
  auto const& answers = m[2].at("content").as_array();
  ASSERT_EQ(answers.size(), 2u);
  EXPECT_EQ(answers[0].at("tool_use_id").as_string(), "call_1");
  EXPECT_TRUE(answers[0].at("is_error").as_bool());
  EXPECT_EQ(answers[0].at("content").as_string(), kMissingToolResult);
  EXPECT_EQ(answers[1].at("tool_use_id").as_string(), "call_2");
  // The conversation ended on a call: a user turn answering it is added.
  EXPECT_EQ(m[4].at("role").as_string(), "user");
  EXPECT_EQ(m[4].at("content").as_array()[0].at("tool_use_id").as_string(), "call_3");
  EXPECT_TRUE(has(e.dropped, "tool_result.missing"));
  EXPECT_TRUE(has(e.dropped, "tool_result.unmatched"));
}

TEST(AnthropicRequestEncoder, ToolIdsAreMadeValidAndUnique) {
  Request r;
  r.messages = {
      msg(Role::User, {text("go")}),
      msg(Role::Assistant, {call("functions.get:0", "get", "{}"), call("", "put", "{}")}),
      msg(Role::User, {result("functions.get:0", "a"), result("", "b", "put")}),
      msg(Role::Assistant, {call("functions.get:0", "get", "{}")}),  // reused id, next turn
      msg(Role::User, {result("functions.get:0", "c")}),
  };
  Encoded e = encode(r);
  auto const& m = messages(e);
  ASSERT_EQ(m.size(), 5u);
  auto id = [&](std::size_t turn, std::size_t block, std::string_view key) {
    return std::string(m[turn].at("content").as_array()[block].at(key).as_string());
  };
  EXPECT_EQ(id(1, 0, "id"), "functions_get_0");
  EXPECT_EQ(id(2, 0, "tool_use_id"), "functions_get_0");
  EXPECT_EQ(id(1, 1, "id"), id(2, 1, "tool_use_id"));  // made-up id, paired by name
  EXPECT_TRUE(id(1, 1, "id").starts_with("toolu_"));
  EXPECT_NE(id(3, 0, "id"), "functions_get_0");
  EXPECT_EQ(id(3, 0, "id"), id(4, 0, "tool_use_id"));
}

TEST(AnthropicRequestEncoder, SignaturesGoBackOnlyToTheirOwnProtocol) {
  Request r;
  r.messages = {
      msg(Role::User, {text("q")}),
      msg(Role::Assistant, {thinking("mine", "sig-anthropic", Protocol::Anthropic),
                            thinking("theirs", "enc", Protocol::OpenAiResponses),
                            thinking("unsigned", "", std::nullopt), text("a")}),
      msg(Role::User, {text("more")}),
  };
  Block redacted;
  redacted.type = BlockType::RedactedThinking;
  redacted.signature = "opaque";
  redacted.signature_origin = Protocol::Anthropic;
  r.messages[1].blocks.insert(r.messages[1].blocks.begin() + 1, redacted);
  Encoded e = encode(r);
  EXPECT_EQ(str(messages(e)[1].at("content")),
            R"([{"type":"thinking","thinking":"mine","signature":"sig-anthropic"},)"
            R"({"type":"redacted_thinking","data":"opaque"},{"type":"text","text":"a"}])");
  EXPECT_TRUE(has(e.dropped, "thinking"));

  // An assistant turn left with nothing to send disappears; its neighbours merge.
  Request only;
  only.messages = {msg(Role::User, {text("a")}),
                   msg(Role::Assistant, {thinking("x", "gem", Protocol::Gemini)}),
                   msg(Role::User, {text("b")})};
  Encoded merged = encode(only);
  ASSERT_EQ(messages(merged).size(), 1u);
  EXPECT_EQ(messages(merged)[0].at("content").as_array().size(), 2u);
}

TEST(AnthropicRequestEncoder, ThinkingIsLeftOutWhenThePendingToolTurnCarriesNone) {
  // A tool loop that started on another protocol has no signed thinking: Anthropic would refuse
  // thinking for it ("a final assistant message must start with a thinking block").
  Request r;
  r.reasoning = Reasoning{true, "high", {}, false};
  r.messages = {
      msg(Role::User, {text("q")}),
      msg(Role::Assistant, {thinking("t", "gem", Protocol::Gemini), call("c1", "f", "{}")}),
      msg(Role::User, {result("c1", "r")})};
  r.tools.push_back(ToolSpec{"f", "", "", false});
  Encoded e = encode(r);
  EXPECT_FALSE(e.body.contains("thinking")) << e.text;
  EXPECT_TRUE(has(e.dropped, "thinking"));

  r.messages[1].blocks[0] = thinking("t", "sig", Protocol::Anthropic);
  Encoded kept = encode(r);
  EXPECT_TRUE(kept.body.contains("thinking")) << kept.text;
}

TEST(AnthropicRequestEncoder, HistoryWithCallsButNoToolsGetsDefinitions) {
  Request r;
  r.messages = {msg(Role::User, {text("q")}), msg(Role::Assistant, {call("c1", "lookup", "{}")}),
                msg(Role::User, {result("c1", "r")})};
  Encoded e = encode(r);
  EXPECT_EQ(str(e.body.at("tools")),
            R"([{"name":"lookup","input_schema":{"type":"object","properties":{}}}])");
  EXPECT_EQ(str(e.body.at("tool_choice")), R"({"type":"none"})");
}

TEST(AnthropicRequestEncoder, MediaBlocks) {
  Block data_url;
  data_url.type = BlockType::Image;
  data_url.url = "data:image/jpeg;base64,/9j/4AAQ";
  Block plain;
  plain.type = BlockType::Image;
  plain.data = "iVBORw0KGgoAAA";
  Block remote;
  remote.type = BlockType::Image;
  remote.url = "https://x.test/cat.png";
  remote.detail = "high";  // OpenAI's image detail: Anthropic has none
  Block file_only;
  file_only.type = BlockType::Image;
  file_only.file_id = "file-abc";
  Block pdf;
  pdf.type = BlockType::Document;
  pdf.media_type = "application/pdf";
  pdf.data = "JVBERi0xLjQ=";
  Block txt;
  txt.type = BlockType::Document;
  txt.media_type = "text/plain";
  txt.data = "aGVsbG8=";
  Block docx;
  docx.type = BlockType::Document;
  docx.media_type = "application/msword";
  docx.data = "AAAA";
  Request r;
  r.messages = {msg(Role::User, {text("see"), data_url, plain, remote, file_only, pdf, txt, docx})};
  Encoded e = encode(r);
  auto const& c = messages(e)[0].at("content").as_array();
  ASSERT_EQ(c.size(), 6u) << e.text;
  EXPECT_EQ(str(c[1].at("source")),
            R"({"type":"base64","media_type":"image/jpeg","data":"/9j/4AAQ"})");
  EXPECT_EQ(str(c[2].at("source")),
            R"({"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAA"})");
  EXPECT_EQ(str(c[3].at("source")), R"({"type":"url","url":"https://x.test/cat.png"})");
  EXPECT_EQ(str(c[4].at("source")),
            R"({"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjQ="})");
  EXPECT_EQ(str(c[5].at("source")), R"({"type":"text","media_type":"text/plain","data":"hello"})");
  EXPECT_TRUE(has(e.dropped, "file_id"));
  EXPECT_TRUE(has(e.dropped, "image.detail"));
  EXPECT_TRUE(has(e.dropped, "document"));
}

TEST(AnthropicRequestEncoder, MidConversationSystemTurnsAndStructuredOutput) {
  Request r;
  r.messages = {msg(Role::User, {text("a")}), msg(Role::Assistant, {call("c", "f", "{}")}),
                msg(Role::System, {text("reminder")}), msg(Role::User, {result("c", "ok")})};
  r.tools.push_back(ToolSpec{"f", "", "", false});
  r.response_format =
      ResponseFormat{ResponseFormatType::JsonSchema, "answer", R"({"type":"object"})", true};
  r.prompt_cache_key = "k";
  Encoded e = encode(r);
  auto const& m = messages(e);
  ASSERT_EQ(m.size(), 4u);
  // The system turn may not separate a call from its result: it moves after the result.
  EXPECT_EQ(m[2].at("role").as_string(), "user");
  EXPECT_EQ(m[3].at("role").as_string(), "system");
  EXPECT_EQ(str(e.body.at("output_config")),
            R"({"format":{"type":"json_schema","schema":{"type":"object"}}})");
  EXPECT_TRUE(has(e.dropped, "prompt_cache_key"));
  EXPECT_TRUE(has(e.dropped, "response_format.name"));
  EXPECT_TRUE(has(e.dropped, "response_format.strict"));
}

TEST(AnthropicRequestEncoder, AtMostFourCacheBreakpointsTheLastOnesKept) {
  Request r;
  for (int i = 0; i < 3; ++i) {
    Block s = text("system " + std::to_string(i));
    s.cache_marker = true;
    r.system.push_back(s);
  }
  Block u1 = text("u1");
  u1.cache_marker = true;
  Block u2 = text("u2");
  u2.cache_marker = true;
  r.messages = {msg(Role::User, {u1, u2})};
  Encoded e = encode(r);
  std::size_t count = 0;
  for (std::size_t at = e.text.find("cache_control"); at != std::string::npos;
       at = e.text.find("cache_control", at + 1)) {
    ++count;
  }
  EXPECT_EQ(count, 4u);
  EXPECT_FALSE(e.body.at("system").as_array()[0].as_object().contains("cache_control"));
  EXPECT_TRUE(e.body.at("system").as_array()[1].as_object().contains("cache_control"));
}

TEST(AnthropicRequestEncoder, NothingSendableIsAnError) {
  Request r;
  r.messages = {msg(Role::Assistant, {thinking("x", "", std::nullopt)})};
  std::vector<std::string> dropped;
  auto body = encodeRequestReporting(r, "m", dropped);
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().kind, ErrorKind::InvalidRequest);
}

}  // namespace
}  // namespace llmux::translate::anthropic
