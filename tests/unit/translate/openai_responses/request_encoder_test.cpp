#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "translate/openai_responses/codec.h"

namespace llmux::translate::openai_responses {
namespace {

namespace json = boost::json;

json::object encodeOk(Request const& r, std::string_view model = "gpt-5") {
  auto body = encodeRequest(r, model);
  EXPECT_TRUE(body.ok());
  if (!body.ok()) return {};
  boost::system::error_code ec;
  json::value v = json::parse(*body, ec);
  EXPECT_FALSE(ec) << *body;
  return v.is_object() ? v.as_object() : json::object{};
}

Block text(std::string t) {
  return Block{.type = BlockType::Text, .text = std::move(t)};
}

Request basic() {
  Request r;
  r.model = "client-model";
  r.messages.push_back(Message{.role = Role::User, .blocks = {text("hello")}});
  return r;
}

std::string dump(json::value const& v) {
  return json::serialize(v);
}

TEST(ResponsesRequestEncoder, SystemBecomesInstructionsAndSamplingIsKept) {
  Request r = basic();
  r.system = {text("You are terse."), text("Answer in French.")};
  r.max_output_tokens = 500;
  r.temperature = 0.7;
  r.top_p = 0.9;
  r.top_k = 40;
  r.stop = {"END"};
  r.stream = true;
  r.user = "u-42";
  r.prompt_cache_key = "pk";
  json::object o = encodeOk(r);
  EXPECT_EQ(o.at("model"), "gpt-5") << "the upstream model wins";
  EXPECT_EQ(o.at("instructions"), "You are terse.\n\nAnswer in French.");
  EXPECT_EQ(
      dump(o.at("input")),
      R"([{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}])");
  EXPECT_EQ(o.at("max_output_tokens"), 500);
  EXPECT_EQ(o.at("temperature").as_double(), 0.7);
  EXPECT_EQ(o.at("top_p").as_double(), 0.9);
  EXPECT_EQ(o.at("stream"), true);
  EXPECT_EQ(o.at("user"), "u-42");
  EXPECT_EQ(o.at("prompt_cache_key"), "pk");
  EXPECT_EQ(o.at("store"), false) << "a translated history is stateless (REFERENCE §9.5)";
  for (std::string_view absent : {"stop", "top_k", "include", "reasoning", "tools"}) {
    EXPECT_FALSE(o.contains(absent)) << absent << " must not be sent";
  }
}

TEST(ResponsesRequestEncoder, LimitsOpenAiEnforces) {
  Request r = basic();
  r.max_output_tokens = 5;
  r.user = std::string(150, 'u');  // Claude Code's metadata.user_id is this long
  json::object o = encodeOk(r);
  EXPECT_EQ(o.at("max_output_tokens"), 16) << "OpenAI's minimum";
  EXPECT_FALSE(o.contains("user")) << "longer than OpenAI's 64 characters";
  std::vector<std::string> dropped;
  ASSERT_TRUE(encodeRequestReporting(r, "gpt-5", dropped).ok());
  EXPECT_EQ(dropped, std::vector<std::string>{"user"});
  r.model = "fallback";
  EXPECT_EQ(encodeOk(r, "").at("model"), "fallback");
}

TEST(ResponsesRequestEncoder, ToolsAndChoices) {
  Request r = basic();
  r.tools.push_back(
      ToolSpec{.name = "get_weather",
               .description = "Weather",
               .parameters = R"({"type":"object","properties":{"city":{"type":"string"}}})"});
  r.tools.push_back(ToolSpec{.name = "noargs"});
  r.parallel_tool_calls = false;
  struct Case {
    ToolChoice choice;
    std::string json;
  };
  for (auto const& c : std::vector<Case>{
           {{ToolChoiceMode::Auto, ""}, R"("auto")"},
           {{ToolChoiceMode::None, ""}, R"("none")"},
           {{ToolChoiceMode::Required, ""}, R"("required")"},
           {{ToolChoiceMode::Named, "get_weather"}, R"({"type":"function","name":"get_weather"})"},
       }) {
    r.tool_choice = c.choice;
    json::object o = encodeOk(r);
    EXPECT_EQ(dump(o.at("tool_choice")), c.json);
    EXPECT_EQ(
        dump(o.at("tools")),
        R"([{"type":"function","name":"get_weather","description":"Weather",)"
        R"("parameters":{"type":"object","properties":{"city":{"type":"string"}}},"strict":false},)"
        R"({"type":"function","name":"noargs","parameters":{"type":"object","properties":{}},"strict":false}])");
    EXPECT_EQ(o.at("parallel_tool_calls"), false);
  }
  Request no_tools = basic();
  no_tools.tool_choice = ToolChoice{.mode = ToolChoiceMode::Required};
  EXPECT_FALSE(encodeOk(no_tools).contains("tool_choice")) << "a choice without tools is a 400";
}

TEST(ResponsesRequestEncoder, ToolCallsAndResultsBecomeItemsWithCallIds) {
  Request r = basic();
  r.messages.push_back(Message{
      .role = Role::Assistant,
      .blocks = {
          text("Checking."),
          Block{.type = BlockType::ToolCall,
                .id = "toolu_1",
                .name = "w",
                .arguments = R"({"city":"Paris"})"},
          Block{.type = BlockType::ToolCall, .id = "toolu_2", .name = "w", .arguments = ""}}});
  Block ok{.type = BlockType::ToolResult, .id = "toolu_1", .name = "w"};
  ok.content = {text("sunny")};
  Block failed{.type = BlockType::ToolResult, .id = "toolu_2", .name = "w", .is_error = true};
  failed.content = {text("timeout")};
  r.messages.push_back(Message{.role = Role::User, .blocks = {ok, failed, text("and?")}});
  json::object o = encodeOk(r);
  EXPECT_EQ(
      dump(o.at("input")),
      R"([{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]},)"
      R"({"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking.","annotations":[]}]},)"
      R"({"type":"function_call","call_id":"toolu_1","name":"w","arguments":"{\"city\":\"Paris\"}"},)"
      R"({"type":"function_call","call_id":"toolu_2","name":"w","arguments":"{}"},)"
      R"({"type":"function_call_output","call_id":"toolu_1","output":"sunny"},)"
      R"({"type":"function_call_output","call_id":"toolu_2","output":"Error: timeout"},)"
      R"({"type":"message","role":"user","content":[{"type":"input_text","text":"and?"}]}])");
}

TEST(ResponsesRequestEncoder, OrphanResultsAndUnnamedCallsStayValid) {
  Request r = basic();
  Block orphan{.type = BlockType::ToolResult, .id = "gone", .name = "search"};
  orphan.content = {text("42")};
  r.messages.push_back(Message{.role = Role::Assistant, .blocks = {text("ok")}});
  r.messages.push_back(Message{.role = Role::User, .blocks = {orphan}});
  // A Gemini-style history without ids: calls and results pair by name.
  r.messages.push_back(
      Message{.role = Role::Assistant,
              .blocks = {Block{.type = BlockType::ToolCall, .name = "lookup", .arguments = "{}"}}});
  Block unnamed{.type = BlockType::ToolResult, .name = "lookup"};
  unnamed.content = {text("found")};
  r.messages.push_back(Message{.role = Role::User, .blocks = {unnamed}});
  json::array input = encodeOk(r).at("input").as_array();
  ASSERT_EQ(input.size(), 5u);
  EXPECT_EQ(
      dump(input[2]),
      R"({"type":"message","role":"user","content":[{"type":"input_text","text":"Result of tool search:\n42"}]})")
      << "OpenAI rejects an output without its call";
  EXPECT_EQ(input[3].at("call_id"), input[4].at("call_id"));
  EXPECT_EQ(input[4].at("type"), "function_call_output");
}

TEST(ResponsesRequestEncoder, MediaParts) {
  Request r;
  r.messages.push_back(Message{
      .role = Role::User,
      .blocks = {
          Block{.type = BlockType::Image, .media_type = "image/png", .data = "iVBO"},
          Block{.type = BlockType::Image, .url = "https://x/cat.jpg", .detail = "low"},
          Block{.type = BlockType::Document, .media_type = "application/pdf", .data = "JVBE"},
          Block{.type = BlockType::Document, .url = "https://x/a.pdf"}}});
  EXPECT_EQ(
      dump(encodeOk(r).at("input").at(0).at("content")),
      R"([{"type":"input_image","image_url":"data:image/png;base64,iVBO","detail":"auto"},)"
      R"({"type":"input_image","image_url":"https://x/cat.jpg","detail":"low"},)"
      R"({"type":"input_file","filename":"document.pdf","file_data":"data:application/pdf;base64,JVBE"},)"
      R"({"type":"input_file","file_url":"https://x/a.pdf"}])");
}

TEST(ResponsesRequestEncoder, ReasoningTable) {
  struct Case {
    std::optional<Reasoning> reasoning;
    std::string json;  ///< "" = no reasoning member
  };
  for (auto const& c : std::vector<Case>{
           {std::nullopt, ""},
           {Reasoning{.enabled = false, .effort = "high"}, ""},
           {Reasoning{.effort = "low"}, R"({"effort":"low"})"},
           {Reasoning{.effort = "max"}, R"({"effort":"xhigh"})"},
           {Reasoning{.budget_tokens = 4096}, R"({"effort":"high"})"},
           {Reasoning{.budget_tokens = 10000, .include_thoughts = true},
            R"({"effort":"xhigh","summary":"auto"})"},
           {Reasoning{.budget_tokens = 0}, ""},
           {Reasoning{.budget_tokens = -1}, ""},
           {Reasoning{.include_thoughts = true}, R"({"summary":"auto"})"},
           {Reasoning{}, ""},
       }) {
    Request r = basic();
    r.reasoning = c.reasoning;
    json::object o = encodeOk(r);
    if (c.json.empty()) {
      EXPECT_FALSE(o.contains("reasoning")) << dump(o);
    } else {
      ASSERT_TRUE(o.contains("reasoning")) << c.json;
      EXPECT_EQ(dump(o.at("reasoning")), c.json);
    }
  }
}

TEST(ResponsesRequestEncoder, ResponseFormats) {
  Request r = basic();
  r.response_format = ResponseFormat{.type = ResponseFormatType::JsonSchema,
                                     .name = "my schema!",
                                     .schema = R"({"type":"object"})",
                                     .strict = true};
  EXPECT_EQ(
      dump(encodeOk(r).at("text")),
      R"({"format":{"type":"json_schema","name":"my_schema_","schema":{"type":"object"},"strict":true}})");
  r.response_format = ResponseFormat{.type = ResponseFormatType::JsonObject};
  EXPECT_EQ(dump(encodeOk(r).at("text")), R"({"format":{"type":"json_object"}})");
  r.response_format = ResponseFormat{.type = ResponseFormatType::Text};
  EXPECT_FALSE(encodeOk(r).contains("text"));
}

TEST(ResponsesRequestEncoder, OnlyOwnEncryptedReasoningGoesBack) {
  Block own{.type = BlockType::Thinking,
            .text = "plan",
            .signature = "gAAAA",
            .signature_origin = Protocol::OpenAiResponses,
            .item_id = "rs_9"};
  Block anthropic{.type = BlockType::Thinking,
                  .text = "thought",
                  .signature = "EqQB",
                  .signature_origin = Protocol::Anthropic};
  Block redacted{.type = BlockType::RedactedThinking,
                 .signature = "opaque",
                 .signature_origin = Protocol::Anthropic};
  Block stateful{.type = BlockType::Thinking,
                 .signature_origin = Protocol::OpenAiResponses,
                 .item_id = "rs_stored"};
  Block call{.type = BlockType::ToolCall,
             .id = "call_1",
             .name = "f",
             .arguments = "{}",
             .item_id = "fc_1"};
  Block answer{.type = BlockType::ToolResult, .id = "call_1"};
  answer.content = {text("r")};

  Request foreign = basic();
  foreign.messages.push_back(
      Message{.role = Role::Assistant, .blocks = {anthropic, redacted, stateful, call}});
  foreign.messages.push_back(Message{.role = Role::User, .blocks = {answer}});
  json::array in = encodeOk(foreign).at("input").as_array();
  ASSERT_EQ(in.size(), 3u) << dump(in);
  EXPECT_EQ(dump(in[1]),
            R"({"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"})")
      << "no reasoning went out, so no item ids either";

  Request own_turn = basic();
  own_turn.messages.push_back(Message{.role = Role::Assistant, .blocks = {own, call}});
  own_turn.messages.push_back(Message{.role = Role::User, .blocks = {answer}});
  in = encodeOk(own_turn).at("input").as_array();
  ASSERT_EQ(in.size(), 4u);
  EXPECT_EQ(
      dump(in[1]),
      R"({"type":"reasoning","id":"rs_9","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAAA"})");
  EXPECT_EQ(in[2].at("id"), "fc_1") << "the call keeps the id its reasoning pairs with";
}

TEST(ResponsesRequestEncoder, EncryptedReasoningIsAskedForWithReasoningOnly) {
  // Stateless history (REFERENCE §9.5): with reasoning on, its encrypted content comes back so a
  // later turn can return it; a model without reasoning refuses `include` (400 "Encrypted content
  // is not supported with this model"), so without reasoning it is not asked for.
  Request r = basic();
  r.reasoning = Reasoning{.effort = "high"};
  json::object o = encodeOk(r);
  EXPECT_EQ(o.at("store"), false);
  EXPECT_EQ(dump(o.at("include")), R"(["reasoning.encrypted_content"])");
  r.reasoning = Reasoning{.enabled = false};
  EXPECT_FALSE(encodeOk(r).contains("include"));

  // Responses reasoning an Anthropic client carried back (tagged, so with no item id) goes back
  // by its encrypted content alone, and asks for the next one.
  Request back = basic();
  back.messages.push_back(Message{
      .role = Role::Assistant,
      .blocks = {Block{.type = BlockType::Thinking,
                       .text = "plan",
                       .signature = "gAAAA",
                       .signature_origin = Protocol::OpenAiResponses},
                 text("done")}});
  back.messages.push_back(Message{.role = Role::User, .blocks = {text("more")}});
  o = encodeOk(back);
  EXPECT_EQ(
      dump(o.at("input").at(1)),
      R"({"type":"reasoning","summary":[{"type":"summary_text","text":"plan"}],"encrypted_content":"gAAAA"})");
  EXPECT_FALSE(o.at("input").at(2).as_object().contains("id")) << "no reasoning id to pair with";
  EXPECT_EQ(dump(o.at("include")), R"(["reasoning.encrypted_content"])");
}

TEST(ResponsesRequestEncoder, MidConversationSystemTurn) {
  Request r = basic();
  r.messages.push_back(Message{.role = Role::System, .blocks = {text("Now be formal.")}});
  EXPECT_EQ(
      dump(encodeOk(r).at("input").at(1)),
      R"({"type":"message","role":"system","content":[{"type":"input_text","text":"Now be formal."}]})");
}

TEST(ResponsesRequestEncoder, DecodedRequestsReencodeToTheSameMeaning) {
  // decode -> encode -> decode keeps everything the neutral model holds.
  std::string body = R"({"model":"gpt-5","instructions":"sys","input":[
      {"role":"user","content":[{"type":"input_text","text":"q"},{"type":"input_image","image_url":"https://x/i.png","detail":"high"}]},
      {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"s"}],"encrypted_content":"enc"},
      {"type":"function_call","id":"fc_1","call_id":"c1","name":"f","arguments":"{\"a\":1}"},
      {"type":"function_call_output","call_id":"c1","output":"done"}],
    "tools":[{"type":"function","name":"f","parameters":{"type":"object","properties":{"a":{"type":"integer"}}},"strict":true}],
    "tool_choice":"required","parallel_tool_calls":true,"max_output_tokens":1000,
    "reasoning":{"effort":"medium","summary":"auto"},"text":{"format":{"type":"json_object"}},"stream":true})";
  auto first = decodeRequest(body);
  ASSERT_TRUE(first.ok());
  auto encoded = encodeRequest(*first, "gpt-5");
  ASSERT_TRUE(encoded.ok());
  auto second = decodeRequest(*encoded);
  ASSERT_TRUE(second.ok()) << *encoded;
  EXPECT_EQ(*encodeRequest(*second, "gpt-5"), *encoded) << "stable after one round";
  Request const& a = *first;
  Request const& b = *second;
  EXPECT_EQ(b.system.at(0).text, a.system.at(0).text);
  ASSERT_EQ(b.messages.size(), a.messages.size());
  for (std::size_t i = 0; i < a.messages.size(); ++i) {
    ASSERT_EQ(b.messages[i].blocks.size(), a.messages[i].blocks.size()) << i;
    for (std::size_t j = 0; j < a.messages[i].blocks.size(); ++j) {
      Block const& x = a.messages[i].blocks[j];
      Block const& y = b.messages[i].blocks[j];
      EXPECT_EQ(y.type, x.type);
      EXPECT_EQ(y.text, x.text);
      EXPECT_EQ(y.url, x.url);
      EXPECT_EQ(y.detail, x.detail);
      EXPECT_EQ(y.id, x.id);
      EXPECT_EQ(y.arguments, x.arguments);
      EXPECT_EQ(y.signature, x.signature);
      EXPECT_EQ(y.item_id, x.item_id);
    }
  }
  EXPECT_EQ(b.tools.at(0).parameters, a.tools.at(0).parameters);
  EXPECT_EQ(b.tools.at(0).strict, true);
  EXPECT_EQ(b.tool_choice->mode, ToolChoiceMode::Required);
  EXPECT_EQ(b.max_output_tokens, 1000);
  EXPECT_EQ(b.reasoning->effort, "medium");
  EXPECT_TRUE(b.reasoning->include_thoughts);
  EXPECT_EQ(b.response_format->type, ResponseFormatType::JsonObject);
}

}  // namespace
}  // namespace llmux::translate::openai_responses
