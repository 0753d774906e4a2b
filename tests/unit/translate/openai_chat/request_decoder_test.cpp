#include <gtest/gtest.h>

#include <algorithm>

#include "openai_chat/chat_test_support.h"
#include "translate/openai_chat/codec.h"

namespace llmux::translate::openai_chat {
namespace {

using testing::readChatFixture;

Request decoded(std::string_view body) {
  auto r = decodeRequest(body);
  EXPECT_TRUE(r.ok()) << (r.ok() ? "" : r.error().message) << "\n" << body;
  return r.ok() ? std::move(r).value() : Request{};
}

bool dropped(Request const& r, std::string_view name) {
  return std::find(r.dropped.begin(), r.dropped.end(), name) != r.dropped.end();
}

TEST(ChatRequestDecoder, SystemAndDeveloperLeadTheConversation) {
  Request r = decoded(R"({"model":"gpt-5","messages":[
      {"role":"system","content":"Be brief."},
      {"role":"developer","content":[{"type":"text","text":"Use French."}]},
      {"role":"user","content":"Hi"},
      {"role":"system","content":"Mid-conversation note"},
      {"role":"assistant","content":"Bonjour"}]})");
  ASSERT_EQ(r.system.size(), 2u);
  EXPECT_EQ(r.system[0].text, "Be brief.");
  EXPECT_EQ(r.system[1].text, "Use French.");
  ASSERT_EQ(r.messages.size(), 3u);
  EXPECT_EQ(r.messages[0].role, Role::User);
  EXPECT_EQ(r.messages[0].blocks[0].text, "Hi");
  EXPECT_EQ(r.messages[1].role, Role::System) << "a later system message stays in place";
  EXPECT_EQ(r.messages[2].role, Role::Assistant);
  EXPECT_EQ(r.model, "gpt-5");
  EXPECT_FALSE(r.stream);
}

TEST(ChatRequestDecoder, ImagesByUrlAndBase64AndDocuments) {
  Request r = decoded(readChatFixture("envoy-aigw--chat-image-to-text.request.json"));
  ASSERT_EQ(r.messages.size(), 1u);
  auto const& blocks = r.messages[0].blocks;
  ASSERT_EQ(blocks.size(), 2u);
  EXPECT_EQ(blocks[0].type, BlockType::Text);
  EXPECT_EQ(blocks[1].type, BlockType::Image);
  EXPECT_EQ(blocks[1].media_type, "image/png");
  EXPECT_TRUE(blocks[1].data.starts_with("iVBORw0KGgo"));
  EXPECT_TRUE(blocks[1].url.empty());

  Request more = decoded(R"({"model":"m","messages":[{"role":"user","content":[
      {"type":"image_url","image_url":{"url":"https://example.com/cat.JPG?x=1","detail":"low"}},
      {"type":"file","file":{"filename":"a.pdf","file_data":"data:application/pdf;base64,JVBERi0="}},
      {"type":"file","file":{"file_id":"file-abc"}},
      {"type":"input_audio","input_audio":{"data":"AAA=","format":"wav"}}]}]})");
  auto const& b = more.messages.at(0).blocks;
  ASSERT_EQ(b.size(), 3u);
  EXPECT_EQ(b[0].url, "https://example.com/cat.JPG?x=1");
  EXPECT_EQ(b[0].media_type, "image/jpeg");
  EXPECT_EQ(b[0].detail, "low");
  EXPECT_EQ(b[1].type, BlockType::Document);
  EXPECT_EQ(b[1].media_type, "application/pdf");
  EXPECT_EQ(b[1].data, "JVBERi0=");
  EXPECT_EQ(b[2].file_id, "file-abc");
  EXPECT_TRUE(dropped(more, "messages[].content[].input_audio"));
  EXPECT_TRUE(dropped(more, "messages[].content[].file.filename"));
}

TEST(ChatRequestDecoder, ToolRoundTripPairsIdsAndNames) {
  Request r = decoded(readChatFixture("pydantic-ai--chat_stream_parallel_tool_calls.i1.request.json"));
  // user, assistant(tool calls), user(tool results)
  auto it = std::find_if(r.messages.begin(), r.messages.end(),
                         [](Message const& m) { return m.role == Role::Assistant; });
  ASSERT_NE(it, r.messages.end());
  std::vector<Block const*> calls;
  for (auto const& b : it->blocks) {
    if (b.type == BlockType::ToolCall) calls.push_back(&b);
  }
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0]->name, "get_country");
  ASSERT_NE(std::next(it), r.messages.end());
  Message const& results = *std::next(it);
  EXPECT_EQ(results.role, Role::User);
  ASSERT_EQ(results.blocks.size(), 2u) << "both tool messages answer one turn";
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(results.blocks[i].type, BlockType::ToolResult);
    EXPECT_EQ(results.blocks[i].id, calls[i]->id);
    EXPECT_EQ(results.blocks[i].name, calls[i]->name) << "the result learns its tool's name";
    ASSERT_FALSE(results.blocks[i].content.empty());
  }
  EXPECT_TRUE(r.stream);
  EXPECT_TRUE(r.include_usage);
  ASSERT_FALSE(r.tools.empty());
  EXPECT_FALSE(r.tools[0].parameters.empty());
}

TEST(ChatRequestDecoder, AssistantReasoningRefusalAndEmptyArguments) {
  Request r = decoded(R"({"model":"m","messages":[{"role":"user","content":"q"},
      {"role":"assistant","reasoning_content":"mulling","content":[{"type":"text","text":"a"},
       {"type":"refusal","refusal":"no"}],"tool_calls":[{"id":"call_1","type":"function",
       "function":{"name":"f","arguments":""}}]}]})");
  auto const& b = r.messages.at(1).blocks;
  ASSERT_EQ(b.size(), 4u);
  EXPECT_EQ(b[0].type, BlockType::Thinking);
  EXPECT_EQ(b[0].text, "mulling");
  EXPECT_EQ(b[1].text, "a");
  EXPECT_EQ(b[2].text, "no");
  EXPECT_EQ(b[3].arguments, "{}");
}

TEST(ChatRequestDecoder, CacheControlOnPartsIsACacheMarker) {
  Request r = decoded(R"({"model":"m","messages":[
      {"role":"system","content":[{"type":"text","text":"long prompt","cache_control":{"type":"ephemeral"}}]},
      {"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":"b","cache_control":{"type":"ephemeral"}}]}]})");
  ASSERT_EQ(r.system.size(), 1u);
  EXPECT_TRUE(r.system[0].cache_marker);
  ASSERT_EQ(r.messages.at(0).blocks.size(), 2u);
  EXPECT_FALSE(r.messages[0].blocks[0].cache_marker);
  EXPECT_TRUE(r.messages[0].blocks[1].cache_marker);
  EXPECT_TRUE(r.dropped.empty()) << r.dropped.front();
}

TEST(ChatRequestDecoder, LegacyFunctionsAndFunctionMessages) {
  Request r = decoded(R"({"model":"m","functions":[{"name":"f","parameters":{"type":"object"}}],
      "function_call":{"name":"f"},"messages":[{"role":"user","content":"q"},
      {"role":"assistant","content":null,"function_call":{"name":"f","arguments":"{\"a\":1}"}},
      {"role":"function","name":"f","content":"42"}]})");
  ASSERT_EQ(r.tools.size(), 1u);
  ASSERT_TRUE(r.tool_choice);
  EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Named);
  auto const& call = r.messages.at(1).blocks.at(0);
  auto const& result = r.messages.at(2).blocks.at(0);
  EXPECT_EQ(call.arguments, R"({"a":1})");
  EXPECT_EQ(result.id, call.id);
  EXPECT_EQ(result.content.at(0).text, "42");
}

struct OptionCase {
  std::string_view what;
  std::string fields;  ///< members added to a minimal body
  std::function<void(Request const&)> check;
};

class ChatRequestOptions : public ::testing::TestWithParam<OptionCase> {};

TEST_P(ChatRequestOptions, Decode) {
  std::string body = R"({"model":"m","messages":[{"role":"user","content":"q"}],)" +
                     GetParam().fields + "}";
  Request r = decoded(body);
  GetParam().check(r);
}

INSTANTIATE_TEST_SUITE_P(
    All, ChatRequestOptions,
    ::testing::Values(
        OptionCase{"max_completion_tokens wins", R"("max_tokens":10,"max_completion_tokens":20)",
                   [](Request const& r) { EXPECT_EQ(r.max_output_tokens, 20); }},
        OptionCase{"max_tokens", R"("max_tokens":10)",
                   [](Request const& r) { EXPECT_EQ(r.max_output_tokens, 10); }},
        OptionCase{"sampling", R"("temperature":0.5,"top_p":0.9,"top_k":40)",
                   [](Request const& r) {
                     EXPECT_EQ(r.temperature, 0.5);
                     EXPECT_EQ(r.top_p, 0.9);
                     EXPECT_EQ(r.top_k, 40);
                   }},
        OptionCase{"stop string", R"("stop":"END")",
                   [](Request const& r) { EXPECT_EQ(r.stop, std::vector<std::string>{"END"}); }},
        OptionCase{"stop array", R"("stop":["a","b"])",
                   [](Request const& r) { EXPECT_EQ(r.stop, (std::vector<std::string>{"a", "b"})); }},
        OptionCase{"tool_choice required", R"("tool_choice":"required")",
                   [](Request const& r) { EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Required); }},
        OptionCase{"tool_choice none", R"("tool_choice":"none")",
                   [](Request const& r) { EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::None); }},
        OptionCase{"tool_choice named", R"("tool_choice":{"type":"function","function":{"name":"f"}})",
                   [](Request const& r) {
                     EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Named);
                     EXPECT_EQ(r.tool_choice->name, "f");
                   }},
        OptionCase{"allowed_tools keeps the mode", R"("tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[]}})",
                   [](Request const& r) {
                     EXPECT_EQ(r.tool_choice->mode, ToolChoiceMode::Required);
                     EXPECT_TRUE(dropped(r, "tool_choice.allowed_tools"));
                   }},
        OptionCase{"parallel tool calls", R"("parallel_tool_calls":false)",
                   [](Request const& r) { EXPECT_EQ(r.parallel_tool_calls, false); }},
        OptionCase{"tools", R"("tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{}},"strict":true}},{"type":"custom","custom":{"name":"g"}}])",
                   [](Request const& r) {
                     ASSERT_EQ(r.tools.size(), 1u);
                     EXPECT_EQ(r.tools[0].description, "d");
                     EXPECT_EQ(r.tools[0].parameters, R"({"type":"object","properties":{}})");
                     EXPECT_TRUE(r.tools[0].strict);
                     EXPECT_TRUE(dropped(r, "tools[].custom"));
                   }},
        OptionCase{"json schema", R"("response_format":{"type":"json_schema","json_schema":{"name":"out","schema":{"type":"object"},"strict":true}})",
                   [](Request const& r) {
                     ASSERT_TRUE(r.response_format);
                     EXPECT_EQ(r.response_format->type, ResponseFormatType::JsonSchema);
                     EXPECT_EQ(r.response_format->name, "out");
                     EXPECT_EQ(r.response_format->schema, R"({"type":"object"})");
                     EXPECT_TRUE(r.response_format->strict);
                   }},
        OptionCase{"json object", R"("response_format":{"type":"json_object"})",
                   [](Request const& r) { EXPECT_EQ(r.response_format->type, ResponseFormatType::JsonObject); }},
        OptionCase{"reasoning effort", R"("reasoning_effort":"high")",
                   [](Request const& r) {
                     ASSERT_TRUE(r.reasoning);
                     EXPECT_TRUE(r.reasoning->enabled);
                     EXPECT_EQ(r.reasoning->effort, "high");
                     EXPECT_TRUE(r.reasoning->include_thoughts);
                   }},
        OptionCase{"reasoning off", R"("reasoning_effort":"none")",
                   [](Request const& r) {
                     ASSERT_TRUE(r.reasoning);
                     EXPECT_FALSE(r.reasoning->enabled);
                   }},
        OptionCase{"no reasoning said", R"("n":1)",
                   [](Request const& r) {
                     EXPECT_FALSE(r.reasoning);
                     EXPECT_TRUE(r.dropped.empty()) << "n=1 is the default, nothing lost";
                   }},
        OptionCase{"openrouter reasoning", R"("reasoning":{"max_tokens":3000,"exclude":true})",
                   [](Request const& r) {
                     ASSERT_TRUE(r.reasoning);
                     EXPECT_EQ(r.reasoning->budget_tokens, 3000);
                     EXPECT_FALSE(r.reasoning->include_thoughts);
                   }},
        OptionCase{"user and cache key", R"("user":"u1","prompt_cache_key":"k","safety_identifier":"s")",
                   [](Request const& r) {
                     EXPECT_EQ(r.user, "u1");
                     EXPECT_EQ(r.prompt_cache_key, "k");
                     EXPECT_TRUE(dropped(r, "safety_identifier"));
                   }},
        OptionCase{"safety identifier alone is the user", R"("safety_identifier":"s")",
                   [](Request const& r) { EXPECT_EQ(r.user, "s"); }},
        OptionCase{"stream options", R"("stream":true,"stream_options":{"include_usage":true,"include_obfuscation":false})",
                   [](Request const& r) {
                     EXPECT_TRUE(r.stream);
                     EXPECT_TRUE(r.include_usage);
                     EXPECT_TRUE(dropped(r, "stream_options.include_obfuscation"));
                   }},
        OptionCase{"what the neutral model lacks is dropped by name",
                   R"("seed":1,"logprobs":true,"metadata":{"a":"b"},"store":true,"service_tier":"flex","presence_penalty":0.1,"logit_bias":{})",
                   [](Request const& r) {
                     for (std::string_view f : {"seed", "logprobs", "metadata", "store",
                                                "service_tier", "presence_penalty", "logit_bias"}) {
                       EXPECT_TRUE(dropped(r, f)) << f;
                     }
                   }}));

TEST(ChatRequestDecoder, MalformedInputIsAClearInvalidRequest) {
  struct Case {
    std::string body;
    std::string_view message;
  };
  std::vector<Case> cases = {
      {"not json", "not valid JSON"},
      {"[1]", "must be a JSON object"},
      {R"({"messages":[]})", "'model'"},
      {R"({"model":"m"})", "'messages' is required"},
      {R"({"model":"m","messages":{}})", "'messages' must be an array"},
      {R"({"model":"m","messages":[]})", "must not be empty"},
      {R"({"model":"m","messages":[1]})", "'messages[0]' must be an object"},
      {R"({"model":"m","messages":[{"content":"x"}]})", "'messages[0].role' is required"},
      {R"({"model":"m","messages":[{"role":"robot","content":"x"}]})", "must be one of"},
      {R"({"model":"m","messages":[{"role":"user","content":null}]})", "'messages[0].content' is required"},
      {R"({"model":"m","messages":[{"role":"user","content":5}]})", "must be a string or an array"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"text":"x"}]}]})", "'messages[0].content[0].type'"},
      {R"({"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]})", "image_url.url"},
      {R"({"model":"m","messages":[{"role":"tool","content":"x"}]})", "'messages[0].tool_call_id' is required"},
      {R"({"model":"m","messages":[{"role":"assistant","tool_calls":[{"type":"function","function":{"name":"f"}}]}]})", "tool_calls[0].id"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"temperature":"hot"})", "'temperature' must be a number"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"max_tokens":1.5})", "'max_tokens' must be an integer"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"stop":[1]})", "'stop'"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"tools":{}})", "'tools' must be an array"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{}}]})", "'tools[0].function.name'"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"tool_choice":"sometimes"})", "'tool_choice'"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"response_format":{"type":"xml"}})", "response_format.type"},
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"stream":"yes"})", "'stream' must be a boolean"},
      // No other protocol gives several choices: one answer where n asked for three is wrong.
      {R"({"model":"m","messages":[{"role":"user","content":"x"}],"n":3})", "'n' must be 1"},
  };
  for (auto const& c : cases) {
    auto r = decodeRequest(c.body);
    ASSERT_FALSE(r.ok()) << c.body;
    EXPECT_EQ(r.error().kind, ErrorKind::InvalidRequest) << c.body;
    EXPECT_NE(r.error().message.find(c.message), std::string::npos)
        << c.body << " -> " << r.error().message;
  }
}

TEST(ChatRequestDecoder, EveryRecordedRequestDecodes) {
  for (std::string_view name : {"envoy-aigw--chat-detailed-usage.request.json",
                                "envoy-aigw--chat-image-to-text.request.json",
                                "envoy-aigw--chat-parallel-tools.request.json",
                                "envoy-aigw--chat-reasoning.request.json",
                                "envoy-aigw--chat-streaming-detailed-usage.request.json",
                                "envoy-aigw--chat-streaming.request.json",
                                "envoy-aigw--chat-unknown-model.request.json",
                                "pydantic-ai--chat_stream_parallel_tool_calls.i0.request.json",
                                "pydantic-ai--chat_stream_parallel_tool_calls.i1.request.json",
                                "pydantic-ai--deepseek_reasoning_content_stream.request.json",
                                "pydantic-ai--openrouter_429.request.json"}) {
    auto r = decodeRequest(readChatFixture(name));
    EXPECT_TRUE(r.ok()) << name << ": " << (r.ok() ? "" : r.error().message);
  }
  // OpenAI itself refuses this one (content null): so does the decoder, with the same reason.
  auto bad = decodeRequest(readChatFixture("envoy-aigw--chat-bad-request.request.json"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().message.find("content"), std::string::npos);
}

}  // namespace
}  // namespace llmux::translate::openai_chat
