#include <gtest/gtest.h>

#include <algorithm>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "openai_responses/support.h"
#include "translate/openai_responses/codec.h"

namespace llmux::translate::openai_responses {
namespace {

bool dropped(Request const& r, std::string_view name) {
  return std::find(r.dropped.begin(), r.dropped.end(), name) != r.dropped.end();
}

Request decodeOk(std::string_view body) {
  auto r = decodeRequest(body);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message) << "\n" << body;
  return r.ok() ? std::move(r).value() : Request{};
}

TEST(ResponsesRequestDecoder, StringInputAndInstructions) {
  Request r = decodeOk(R"({"model":"gpt-4o","instructions":"Be brief.","input":"Hi",
                           "stream":true,"max_output_tokens":300,"temperature":0.5,"top_p":0.9,
                           "user":"u-1","prompt_cache_key":"k"})");
  EXPECT_EQ(r.model, "gpt-4o");
  ASSERT_EQ(r.system.size(), 1u);
  EXPECT_EQ(r.system[0].text, "Be brief.");
  ASSERT_EQ(r.messages.size(), 1u);
  EXPECT_EQ(r.messages[0].role, Role::User);
  EXPECT_EQ(r.messages[0].blocks[0].text, "Hi");
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage) << "a Responses stream always ends with its usage";
  EXPECT_EQ(r.max_output_tokens, 300);
  EXPECT_EQ(r.temperature, 0.5);
  EXPECT_EQ(r.top_p, 0.9);
  EXPECT_EQ(r.user, "u-1");
  EXPECT_EQ(r.prompt_cache_key, "k");
  EXPECT_TRUE(r.dropped.empty());
}

TEST(ResponsesRequestDecoder, LeadingDeveloperMessagesAreSystemLaterOnesStayInPlace) {
  Request r = decodeOk(R"({"model":"m","input":[
      {"type":"message","role":"developer","content":[{"type":"input_text","text":"A"},
                                                     {"type":"input_text","text":"B"}]},
      {"role":"system","content":"C"},
      {"role":"user","content":"hello"},
      {"role":"developer","content":"D"},
      {"role":"user","content":[{"type":"input_text","text":"again"}]}]})");
  ASSERT_EQ(r.system.size(), 3u);
  EXPECT_EQ(r.system[0].text, "A");
  EXPECT_EQ(r.system[2].text, "C");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[1].role, Role::System);
  EXPECT_EQ(r.messages[1].blocks[0].text, "D");
  EXPECT_EQ(r.messages[2].blocks[0].text, "again");
}

TEST(ResponsesRequestDecoder, ImagesAndFiles) {
  Request r = decodeOk(R"({"model":"m","input":[{"role":"user","content":[
      {"type":"input_text","text":"look"},
      {"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo=","detail":"high"},
      {"type":"input_image","image_url":"https://example.com/cat.jpg"},
      {"type":"input_image","file_id":"file-123"},
      {"type":"input_file","file_data":"data:application/pdf;base64,JVBERi0=","filename":"a.pdf"},
      {"type":"input_file","file_url":"https://example.com/a.pdf"}]}]})");
  auto const& b = r.messages.at(0).blocks;
  ASSERT_EQ(b.size(), 6u);
  EXPECT_EQ(b[1].type, BlockType::Image);
  EXPECT_EQ(b[1].media_type, "image/png");
  EXPECT_EQ(b[1].data, "iVBORw0KGgo=");
  EXPECT_EQ(b[1].detail, "high");
  EXPECT_EQ(b[2].url, "https://example.com/cat.jpg");
  EXPECT_EQ(b[3].file_id, "file-123");
  EXPECT_EQ(b[4].type, BlockType::Document);
  EXPECT_EQ(b[4].media_type, "application/pdf");
  EXPECT_EQ(b[4].data, "JVBERi0=");
  EXPECT_EQ(b[5].url, "https://example.com/a.pdf");
  EXPECT_TRUE(dropped(r, "input[].content[].filename"));
}

TEST(ResponsesRequestDecoder, ToolRoundTripGroupsTurnsAndPairsNames) {
  Request r = decodeOk(R"({"model":"m","input":[
      {"role":"user","content":"weather in Paris and Rome?"},
      {"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"two cities"}],
       "encrypted_content":"gAAA"},
      {"type":"function_call","id":"fc_1","call_id":"call_a","name":"weather","arguments":"{\"city\":\"Paris\"}"},
      {"type":"function_call","id":"fc_2","call_id":"call_b","name":"weather","arguments":""},
      {"type":"function_call_output","call_id":"call_a","output":"sunny"},
      {"type":"function_call_output","call_id":"call_b","output":[{"type":"input_text","text":"rain"}]},
      {"role":"user","content":"thanks"}]})");
  ASSERT_EQ(r.messages.size(), 3u);
  Message const& a = r.messages[1];
  EXPECT_EQ(a.role, Role::Assistant);
  ASSERT_EQ(a.blocks.size(), 3u) << "reasoning and both calls are one assistant turn";
  EXPECT_EQ(a.blocks[0].type, BlockType::Thinking);
  EXPECT_EQ(a.blocks[0].text, "two cities");
  EXPECT_EQ(a.blocks[0].signature, "gAAA");
  EXPECT_EQ(a.blocks[0].signature_origin, Protocol::OpenAiResponses);
  EXPECT_EQ(a.blocks[0].item_id, "rs_1");
  EXPECT_EQ(a.blocks[1].id, "call_a");
  EXPECT_EQ(a.blocks[1].item_id, "fc_1");
  EXPECT_EQ(a.blocks[1].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(a.blocks[2].arguments, "{}") << "no arguments read as an empty object";
  Message const& u = r.messages[2];
  ASSERT_EQ(u.blocks.size(), 3u) << "both results and the following text are one user turn";
  EXPECT_EQ(u.blocks[0].type, BlockType::ToolResult);
  EXPECT_EQ(u.blocks[0].id, "call_a");
  EXPECT_EQ(u.blocks[0].name, "weather") << "the name comes from the call (Gemini needs it)";
  EXPECT_EQ(u.blocks[0].content.at(0).text, "sunny");
  EXPECT_EQ(u.blocks[1].content.at(0).text, "rain");
  EXPECT_EQ(u.blocks[2].text, "thanks");
}

TEST(ResponsesRequestDecoder, ToolsChoicesFormatsAndReasoning) {
  Request r = decodeOk(R"({"model":"m","input":"x",
      "tools":[{"type":"function","name":"f","description":"d","parameters":{"type":"object"},"strict":true},
               {"type":"web_search"},{"type":"namespace","name":"ns","tools":[]}],
      "tool_choice":{"type":"function","name":"f"},"parallel_tool_calls":false,
      "text":{"format":{"type":"json_schema","name":"out","schema":{"type":"object"},"strict":true},
              "verbosity":"low"},
      "reasoning":{"effort":"high","summary":"auto"},
      "store":false,"include":["reasoning.encrypted_content"],"metadata":{"a":"b"}})");
  ASSERT_EQ(r.tools.size(), 1u);
  EXPECT_EQ(r.tools[0].name, "f");
  EXPECT_EQ(r.tools[0].parameters, R"({"type":"object"})");
  EXPECT_TRUE(r.tools[0].strict);
  EXPECT_TRUE(dropped(r, "tools[].web_search"));
  EXPECT_TRUE(dropped(r, "tools[].namespace"));
  ASSERT_TRUE(r.tool_choice);
  EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Named);
  EXPECT_EQ(r.tool_choice->name, "f");
  EXPECT_EQ(r.parallel_tool_calls, false);
  ASSERT_TRUE(r.response_format);
  EXPECT_EQ(r.response_format->type, ResponseFormatType::JsonSchema);
  EXPECT_EQ(r.response_format->name, "out");
  EXPECT_TRUE(r.response_format->strict);
  ASSERT_TRUE(r.reasoning);
  EXPECT_TRUE(r.reasoning->enabled);
  EXPECT_EQ(r.reasoning->effort, "high");
  EXPECT_TRUE(r.reasoning->include_thoughts);
  for (std::string_view name : {"store", "include", "metadata", "text.verbosity"}) {
    EXPECT_TRUE(dropped(r, name)) << name;
  }
}

struct ChoiceCase {
  std::string json;
  ToolChoiceMode mode;
};

TEST(ResponsesRequestDecoder, ToolChoiceTable) {
  for (auto const& c : std::vector<ChoiceCase>{
           {R"("auto")", ToolChoiceMode::Auto},
           {R"("none")", ToolChoiceMode::None},
           {R"("required")", ToolChoiceMode::Required},
           {R"({"type":"allowed_tools","mode":"required","tools":[]})", ToolChoiceMode::Required},
       }) {
    Request r = decodeOk(R"({"model":"m","input":"x","tool_choice":)" + c.json + "}");
    ASSERT_TRUE(r.tool_choice) << c.json;
    EXPECT_EQ(r.tool_choice->mode, c.mode) << c.json;
  }
}

TEST(ResponsesRequestDecoder, ReasoningTable) {
  Request off = decodeOk(R"({"model":"m","input":"x","reasoning":{"effort":"none"}})");
  ASSERT_TRUE(off.reasoning);
  EXPECT_FALSE(off.reasoning->enabled);
  Request summary_only = decodeOk(R"({"model":"m","input":"x","reasoning":{"summary":"auto"}})");
  ASSERT_TRUE(summary_only.reasoning) << "Codex asks for summaries only";
  EXPECT_TRUE(summary_only.reasoning->enabled);
  EXPECT_EQ(summary_only.reasoning->effort, "");
  EXPECT_TRUE(summary_only.reasoning->include_thoughts);
  Request silent = decodeOk(R"({"model":"m","input":"x","reasoning":{"summary":null}})");
  EXPECT_FALSE(silent.reasoning) << "an object that says nothing";
  Request null_r = decodeOk(R"({"model":"m","input":"x","reasoning":null})");
  EXPECT_FALSE(null_r.reasoning);
}

struct BadCase {
  std::string body;
  std::string message_part;
};

TEST(ResponsesRequestDecoder, MalformedInputIsAnInvalidRequest) {
  for (auto const& c : std::vector<BadCase>{
           {"not json", "not valid JSON"},
           {"[1]", "must be a JSON object"},
           {R"({"input":"x"})", "'model'"},
           {R"({"model":"m"})", "'input'"},
           {R"({"model":"m","input":5})", "'input'"},
           {R"({"model":"m","input":[5]})", "input[0]"},
           {R"({"model":"m","input":[{"role":"robot","content":"x"}]})", "input[0].role"},
           {R"({"model":"m","input":[{"role":"user"}]})", "input[0].content"},
           {R"({"model":"m","input":[{"type":"function_call","name":"f"}]})", "call_id"},
           {R"({"model":"m","input":[{"type":"function_call_output","call_id":"c"}]})", "output"},
           {R"({"model":"m","input":[{"role":"user","content":[{"type":"input_text"}]}]})", "text"},
           {R"({"model":"m","input":"x","tools":[{"type":"function"}]})", "tools[0].name"},
           {R"({"model":"m","input":"x","tool_choice":"sometimes"})", "tool_choice"},
           {R"({"model":"m","input":"x","temperature":"hot"})", "temperature"},
           {R"({"model":"m","input":"x","previous_response_id":"resp_1"})", "previous_response_id"},
           {R"({"model":"m","input":"x","conversation":"conv_1"})", "conversation"},
       }) {
    auto r = decodeRequest(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.error().kind, ErrorKind::InvalidRequest) << c.body;
    EXPECT_NE(r.error().message.find(c.message_part), std::string::npos)
        << c.body << " -> " << r.error().message;
  }
}

TEST(ResponsesRequestDecoder, NullFieldsSayNothing) {
  Request r = decodeOk(R"({"model":"m","input":"x","previous_response_id":null,"user":null,
                           "instructions":null,"tools":null,"reasoning":null,"store":null})");
  EXPECT_TRUE(r.dropped.empty());
  EXPECT_TRUE(r.system.empty());
}

TEST(ResponsesRequestDecoder, CodexCliRequest) {
  // A real Codex CLI request: developer prompts, environment context, namespace and web_search
  // tools, store:false, encrypted reasoning asked for.
  auto capture = boost::json::parse(testing::readFixture("clients", "codex-cli.request.json"));
  Request r = decodeOk(boost::json::serialize(capture.at("body")));
  EXPECT_EQ(r.model, "mock-basic");
  EXPECT_TRUE(r.stream);
  EXPECT_EQ(r.system.size(), 3u) << "the leading developer messages";
  ASSERT_EQ(r.messages.size(), 2u);
  EXPECT_EQ(r.messages.back().blocks.at(0).text, "Reply with the single word pong");
  EXPECT_EQ(r.tools.size(), 7u)
      << "the 7 function tools; namespace and web_search have no neutral form";
  EXPECT_TRUE(dropped(r, "tools[].namespace"));
  EXPECT_TRUE(dropped(r, "tools[].web_search"));
  EXPECT_TRUE(dropped(r, "store"));
  EXPECT_TRUE(dropped(r, "client_metadata"));
  EXPECT_EQ(r.prompt_cache_key, "01a22816-9097-7da3-ad2d-96af1ebc38cc");
  ASSERT_TRUE(r.reasoning);
  EXPECT_TRUE(r.reasoning->include_thoughts);
}

}  // namespace
}  // namespace llmux::translate::openai_responses
