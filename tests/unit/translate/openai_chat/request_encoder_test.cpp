#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "openai_chat/chat_test_support.h"
#include "translate/openai_chat/codec.h"
#include "validators/openai_chat_validator.h"

namespace llmux::translate::openai_chat {
namespace {

namespace json = boost::json;
namespace v = validators::openai_chat;
using testing::askMock;
using testing::readChatFixture;

json::object encoded(Request const& request, std::string_view model = "gpt-upstream") {
  auto body = encodeRequest(request, model);
  EXPECT_TRUE(body.ok()) << (body.ok() ? "" : body.error().message);
  if (!body.ok()) return {};
  boost::system::error_code ec;
  json::value value = json::parse(*body, ec);
  EXPECT_FALSE(ec) << *body;
  return value.is_object() ? value.as_object() : json::object{};
}

std::string text(json::value const& v) { return json::serialize(v); }

Block textBlock(std::string t) { return Block{.type = BlockType::Text, .text = std::move(t)}; }

Block toolCall(std::string id, std::string name, std::string arguments) {
  return Block{.type = BlockType::ToolCall, .id = std::move(id), .name = std::move(name),
               .arguments = std::move(arguments)};
}

Block toolResult(std::string id, std::string name, std::vector<Block> content, bool error = false) {
  Block b{.type = BlockType::ToolResult, .id = std::move(id), .name = std::move(name)};
  b.content = std::move(content);
  b.is_error = error;
  return b;
}

/// What an Anthropic client with thinking, images, a PDF and a tool round trip sends.
Request anthropicStyleRequest() {
  Request r;
  r.model = "claude-sonnet-4-5";
  r.stream = true;
  r.system = {textBlock("You are helpful."), textBlock("Be brief.")};
  Block png{.type = BlockType::Image, .media_type = "image/png", .data = "iVBORw0KGgo="};
  Block remote{.type = BlockType::Image, .url = "https://example.com/a.jpg"};
  Block pdf{.type = BlockType::Document, .media_type = "application/pdf", .data = "JVBERi0="};
  Block cached = textBlock("What is in these?");
  cached.cache_marker = true;
  r.messages.push_back(Message{Role::User, {cached, png, remote, pdf}});
  Block thinking{.type = BlockType::Thinking, .text = "Let me look."};
  thinking.signature = "EqQBCkYIBxgCKkB";
  thinking.signature_origin = Protocol::Anthropic;
  Block redacted{.type = BlockType::RedactedThinking, .signature = "opaque-redacted"};
  redacted.signature_origin = Protocol::Anthropic;
  r.messages.push_back(Message{Role::Assistant,
                               {thinking, redacted, textBlock("Checking."),
                                toolCall("toolu_01", "get_weather", R"({"city":"Paris"})"),
                                toolCall("toolu_02", "get_time", "{}")}});
  Block shot{.type = BlockType::Image, .media_type = "image/jpeg", .data = "/9j/4AAQ"};
  r.messages.push_back(Message{
      Role::User,
      {toolResult("toolu_01", "get_weather", {textBlock("18C"), shot}),
       toolResult("toolu_02", "get_time", {textBlock("no clock")}, true), textBlock("Thanks")}});
  r.tools.push_back(ToolSpec{.name = "get_weather", .description = "Weather",
                             .parameters = R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})"});
  r.tools.push_back(ToolSpec{.name = "get_time", .parameters = ""});
  r.tool_choice = ToolChoice{ToolChoiceMode::Named, "get_weather"};
  r.parallel_tool_calls = false;
  r.max_output_tokens = 32000;
  r.temperature = 0.7;
  r.top_p = 0.95;
  r.top_k = 40;
  r.stop = {"a", "b", "c", "d", "e"};
  r.reasoning = Reasoning{.enabled = true, .budget_tokens = 5000, .include_thoughts = true};
  r.user = "user-123";
  return r;
}

TEST(ChatRequestEncoder, AnthropicStyleConversation) {
  Request request = anthropicStyleRequest();
  json::object body = encoded(request);
  EXPECT_EQ(body["model"], "gpt-upstream");
  EXPECT_EQ(body["max_completion_tokens"], 32000);
  EXPECT_FALSE(body.contains("max_tokens")) << "reasoning models refuse max_tokens";
  EXPECT_FALSE(body.contains("top_k")) << "OpenAI has no top_k";
  EXPECT_EQ(body["temperature"].as_double(), 0.7);
  EXPECT_EQ(body["stop"].as_array().size(), 4u) << "OpenAI accepts at most four";
  EXPECT_EQ(body["reasoning_effort"], "high") << "budget 5000 through the shared table";
  EXPECT_EQ(body["user"], "user-123");
  EXPECT_EQ(text(body["stream_options"]), R"({"include_usage":true})");
  EXPECT_EQ(text(body["tool_choice"]), R"({"type":"function","function":{"name":"get_weather"}})");
  EXPECT_EQ(body["parallel_tool_calls"], false);
  EXPECT_EQ(text(body["tools"].as_array()[0].as_object()["function"].as_object()["parameters"]),
            R"({"type":"object","properties":{"city":{"type":"string"}},"required":["city"],"additionalProperties":false})");
  EXPECT_FALSE(body["tools"].as_array()[1].as_object()["function"].as_object().contains("parameters"));

  auto const& messages = body["messages"].as_array();
  std::vector<std::string> roles;
  for (auto const& m : messages) roles.emplace_back(m.as_object().at("role").as_string());
  EXPECT_EQ(roles, (std::vector<std::string>{"system", "user", "assistant", "tool", "tool", "user"}));
  EXPECT_EQ(text(messages[0].as_object().at("content")),
            R"([{"type":"text","text":"You are helpful."},{"type":"text","text":"Be brief."}])");
  EXPECT_EQ(text(messages[1].as_object().at("content")),
            R"([{"type":"text","text":"What is in these?"},)"
            R"({"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}},)"
            R"({"type":"image_url","image_url":{"url":"https://example.com/a.jpg"}},)"
            R"({"type":"file","file":{"filename":"document.pdf","file_data":"data:application/pdf;base64,JVBERi0="}}])");
  auto const& assistant = messages[2].as_object();
  EXPECT_EQ(assistant.at("content"), "Checking.");
  EXPECT_FALSE(assistant.contains("reasoning_content")) << "no standard Chat field for reasoning";
  EXPECT_EQ(text(assistant.at("tool_calls")),
            R"([{"id":"toolu_01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},)"
            R"({"id":"toolu_02","type":"function","function":{"name":"get_time","arguments":"{}"}}])");
  EXPECT_EQ(text(messages[3]), R"({"role":"tool","tool_call_id":"toolu_01","content":"18C"})");
  EXPECT_EQ(text(messages[4]), R"({"role":"tool","tool_call_id":"toolu_02","content":"Error: no clock"})");
  EXPECT_EQ(text(messages[5].as_object().at("content")),
            R"([{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4AAQ"}},{"type":"text","text":"Thanks"}])")
      << "a tool result's image follows the tool messages in a user message";
  std::string raw = *encodeRequest(request, "gpt-upstream");
  EXPECT_EQ(raw.find("EqQBCkYIBxgCKkB"), std::string::npos) << "an Anthropic signature never crosses";
  EXPECT_EQ(raw.find("opaque-redacted"), std::string::npos);
  EXPECT_EQ(raw.find("cache_control"), std::string::npos);

  auto reply = askMock(raw);
  EXPECT_EQ(reply.status, 200) << reply.body();
}

TEST(ChatRequestEncoder, TheMockAcceptsTheConversationAndItsAnswerTranslatesBack) {
  Request request = anthropicStyleRequest();
  request.tool_choice = ToolChoice{ToolChoiceMode::Auto, {}};
  request.messages.push_back(Message{Role::Assistant, {textBlock("It is 18C.")}});
  request.messages.push_back(Message{Role::User, {textBlock("And tomorrow?")}});
  for (bool stream : {false, true}) {
    request.stream = stream;
    auto body = encodeRequest(request, "gpt-5");
    ASSERT_TRUE(body.ok());
    auto reply = askMock(*body);
    ASSERT_EQ(reply.status, 200) << reply.body();
    if (!stream) {
      auto response = decodeResponse(reply.body());
      ASSERT_TRUE(response.ok()) << response.error().message;
      EXPECT_FALSE(response->content.empty());
      std::string client = encodeResponse(*response, EncodeOptions{.model = "alias"});
      EXPECT_TRUE(v::validateResponse(client).empty()) << client;
    } else {
      auto events = testing::decodeStream(reply.body(), testing::byteByByte);
      ASSERT_FALSE(events.empty());
      EXPECT_EQ(events.back().type, EventType::MessageStop) << testing::dump(events);
      std::string client = testing::encodeStream(events, EncodeOptions{.include_usage = true});
      auto problems = v::validateStream(client);
      EXPECT_TRUE(problems.empty()) << problems.front() << "\n" << client;
      EXPECT_TRUE(v::summarizeStream(client).has_usage);
    }
  }
}

TEST(ChatRequestEncoder, RunsOfSameRoleTurnsAreMerged) {
  Request r;
  r.model = "m";
  r.messages.push_back(Message{Role::User, {textBlock("q")}});
  r.messages.push_back(Message{Role::Assistant, {toolCall("c1", "f", "{}")}});
  r.messages.push_back(Message{Role::Assistant, {toolCall("c2", "g", R"({"x":1})")}});
  r.messages.push_back(Message{Role::User, {textBlock("also this")}});
  r.messages.push_back(Message{Role::User, {toolResult("c1", "f", {}), toolResult("c2", "g", {textBlock("a"), textBlock("b")})}});
  r.tools = {ToolSpec{.name = "f"}, ToolSpec{.name = "g"}};
  json::object body = encoded(r);
  auto const& m = body["messages"].as_array();
  ASSERT_EQ(m.size(), 5u) << text(body);
  EXPECT_EQ(m[1].as_object().at("tool_calls").as_array().size(), 2u) << "one assistant message";
  EXPECT_TRUE(m[1].as_object().at("content").is_null());
  EXPECT_EQ(text(m[2]), R"({"role":"tool","tool_call_id":"c1","content":""})");
  EXPECT_EQ(text(m[3]), R"({"role":"tool","tool_call_id":"c2","content":"a\nb"})");
  EXPECT_EQ(text(m[4]), R"({"role":"user","content":"also this"})")
      << "user text waits until every tool message is out";
  EXPECT_EQ(askMock(*encodeRequest(r, "m")).status, 200);
}

TEST(ChatRequestEncoder, ReasoningSettings) {
  struct Case {
    std::optional<Reasoning> reasoning;
    std::string_view effort;  ///< "" = no reasoning_effort
  };
  std::vector<Case> cases = {
      {std::nullopt, ""},
      {Reasoning{.enabled = false}, ""},
      {Reasoning{.enabled = true}, ""},  // on, but no level said: the model's default
      {Reasoning{.effort = "minimal"}, "minimal"},
      {Reasoning{.effort = "max"}, "max"},
      {Reasoning{.effort = "extreme"}, "medium"},
      {Reasoning{.budget_tokens = 1024}, "low"},
      {Reasoning{.budget_tokens = 2048}, "medium"},
      {Reasoning{.budget_tokens = 20000}, "max"},
      {Reasoning{.budget_tokens = 100}, "minimal"},
  };
  for (auto const& c : cases) {
    Request r;
    r.model = "m";
    r.messages.push_back(Message{Role::User, {textBlock("q")}});
    r.reasoning = c.reasoning;
    json::object body = encoded(r);
    if (c.effort.empty()) {
      EXPECT_FALSE(body.contains("reasoning_effort")) << text(body);
    } else {
      EXPECT_EQ(body["reasoning_effort"], json::value(c.effort)) << text(body);
    }
  }
}

TEST(ChatRequestEncoder, AUserIdLongerThanOpenAiTakesIsLeftOut) {
  Request r;
  r.model = "m";
  r.messages.push_back(Message{Role::User, {textBlock("q")}});
  r.user = std::string(150, 'u');  // Claude Code's metadata.user_id is this long
  std::vector<std::string> dropped;
  auto body = encodeRequestReporting(r, "m", dropped);
  ASSERT_TRUE(body.ok());
  EXPECT_FALSE(json::parse(*body).as_object().contains("user")) << *body;
  EXPECT_EQ(dropped, std::vector<std::string>{"user"});
  r.user = std::string(64, 'u');
  EXPECT_EQ(encoded(r).at("user"), json::value(r.user)) << "64 characters are fine";
}

TEST(ChatRequestEncoder, TheMockJudgesLikeOpenAi) {
  // The judge is real: a call left without its tool message is refused, as OpenAI does...
  auto refused = askMock(R"({"model":"m","messages":[{"role":"user","content":"q"},)"
                         R"({"role":"assistant","content":null,"tool_calls":[{"id":"c1",)"
                         R"("type":"function","function":{"name":"f","arguments":"{}"}}]},)"
                         R"({"role":"user","content":"never mind"}],)"
                         R"("tools":[{"type":"function","function":{"name":"f"}}]})");
  EXPECT_EQ(refused.status, 400) << refused.body();
  // ... so the encoder answers such a call itself.
  Request r;
  r.model = "m";
  r.messages.push_back(Message{Role::User, {textBlock("q")}});
  r.messages.push_back(Message{Role::Assistant, {toolCall("c1", "f", "{}")}});
  r.messages.push_back(Message{Role::User, {textBlock("never mind")}});
  r.tools.push_back(ToolSpec{.name = "f"});
  auto reply = askMock(*encodeRequest(r, "m"));
  EXPECT_EQ(reply.status, 200) << reply.body();
  r.temperature = 3.0;
  r.messages.resize(1);
  EXPECT_EQ(askMock(*encodeRequest(r, "m")).status, 400);
}

TEST(ChatRequestEncoder, ToolOptionsOnlyWithTools) {
  Request r;
  r.model = "m";
  r.messages.push_back(Message{Role::User, {textBlock("q")}});
  r.tool_choice = ToolChoice{ToolChoiceMode::Required, {}};
  r.parallel_tool_calls = true;
  json::object body = encoded(r);
  EXPECT_FALSE(body.contains("tool_choice")) << "OpenAI refuses tool_choice without tools";
  EXPECT_FALSE(body.contains("parallel_tool_calls"));
  EXPECT_FALSE(body.contains("stream"));
  EXPECT_FALSE(body.contains("stream_options"));
}

TEST(ChatRequestEncoder, ResponseFormats) {
  Request r;
  r.model = "m";
  r.messages.push_back(Message{Role::User, {textBlock("q")}});
  r.response_format = ResponseFormat{ResponseFormatType::JsonSchema, "my schema!", R"({"type":"object"})", true};
  EXPECT_EQ(text(encoded(r)["response_format"]),
            R"({"type":"json_schema","json_schema":{"name":"my_schema_","schema":{"type":"object"},"strict":true}})");
  r.response_format = ResponseFormat{ResponseFormatType::JsonObject};
  EXPECT_EQ(text(encoded(r)["response_format"]), R"({"type":"json_object"})");
  r.response_format = ResponseFormat{ResponseFormatType::Text};
  EXPECT_FALSE(encoded(r).contains("response_format"));
}

TEST(ChatRequestEncoder, AConversationWithNothingChatCanTakeIsRefused) {
  Request r;
  r.model = "m";
  Block thinking{.type = BlockType::Thinking, .text = "only reasoning"};
  r.messages.push_back(Message{Role::Assistant, {thinking}});
  auto body = encodeRequest(r, "m");
  ASSERT_FALSE(body.ok()) << *body;
  EXPECT_EQ(body.error().kind, ErrorKind::InvalidRequest);
  r.system.push_back(textBlock("a system prompt alone is a conversation"));
  EXPECT_TRUE(encodeRequest(r, "m").ok());
}

TEST(ChatRequestEncoder, InvalidSchemaTextIsRefused) {
  Request r;
  r.model = "m";
  r.messages.push_back(Message{Role::User, {textBlock("q")}});
  r.tools.push_back(ToolSpec{.name = "f", .parameters = "{not json"});
  auto body = encodeRequest(r, "m");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.error().kind, ErrorKind::InvalidRequest);
}

TEST(ChatRequestEncoder, SignaturesAndFileIdsNeverCross) {
  Request r;
  r.model = "m";
  Block gemini_call = toolCall("c1", "f", "{}");
  gemini_call.signature = "gemini-thought-signature";
  gemini_call.signature_origin = Protocol::Gemini;
  Block reasoning{.type = BlockType::Thinking};
  reasoning.signature = "gAAAAencrypted";
  reasoning.signature_origin = Protocol::OpenAiResponses;
  Block file{.type = BlockType::Document, .file_id = "file-123"};
  r.messages.push_back(Message{Role::User, {textBlock("q"), file}});
  r.messages.push_back(Message{Role::Assistant, {reasoning, gemini_call}});
  r.messages.push_back(Message{Role::User, {toolResult("c1", "f", {textBlock("ok")})}});
  r.tools.push_back(ToolSpec{.name = "f"});
  std::string body = *encodeRequest(r, "m");
  EXPECT_EQ(body.find("gemini-thought-signature"), std::string::npos);
  EXPECT_EQ(body.find("gAAAAencrypted"), std::string::npos);
  EXPECT_EQ(body.find("file-123"), std::string::npos);
  EXPECT_EQ(askMock(body).status, 200) << body;
}

TEST(ChatRequestEncoder, PlainTextDocumentsGoAsText) {
  Request r;
  r.model = "m";
  Block base64{.type = BlockType::Document, .media_type = "text/plain", .data = "aGVsbG8gd29ybGQ="};
  Block inline_text{.type = BlockType::Document, .text = "notes"};
  Block remote{.type = BlockType::Document, .url = "https://example.com/a.pdf"};
  r.messages.push_back(Message{Role::User, {textBlock("read"), base64, inline_text, remote}});
  json::object body = encoded(r);
  EXPECT_EQ(text(body["messages"].as_array()[0].as_object().at("content")),
            R"([{"type":"text","text":"read"},{"type":"text","text":"hello world"},{"type":"text","text":"notes"}])")
      << "a document by URL has no Chat form";
}

/// The neutral request in words, to compare two decodings.
std::string describe(Request const& r) {
  std::string out = r.model + (r.stream ? " stream" : "") + "\nsystem:";
  for (auto const& b : r.system) out += " [" + b.text + "]";
  for (auto const& m : r.messages) {
    out += "\n" + std::to_string(static_cast<int>(m.role)) + ":";
    for (auto const& b : m.blocks) {
      out += " {" + std::to_string(static_cast<int>(b.type)) + " " + b.text + b.media_type + b.data +
             b.url + b.id + b.name + b.arguments;
      for (auto const& c : b.content) out += " <" + c.text + ">";
      out += "}";
    }
  }
  for (auto const& t : r.tools) out += "\ntool " + t.name + " " + t.parameters;
  if (r.tool_choice) out += "\nchoice " + std::to_string(static_cast<int>(r.tool_choice->mode));
  if (r.max_output_tokens) out += "\nmax " + std::to_string(*r.max_output_tokens);
  if (r.temperature) out += "\ntemperature " + std::to_string(*r.temperature);
  if (r.reasoning) out += "\nreasoning " + r.reasoning->effort;
  return out;
}

TEST(ChatRequestEncoder, RecordedRequestsSurviveARoundTripAndTheMockAcceptsThem) {
  for (std::string_view name : {"envoy-aigw--chat-detailed-usage.request.json",
                                "envoy-aigw--chat-image-to-text.request.json",
                                "envoy-aigw--chat-parallel-tools.request.json",
                                "envoy-aigw--chat-reasoning.request.json",
                                "envoy-aigw--chat-streaming-detailed-usage.request.json",
                                "envoy-aigw--chat-streaming.request.json",
                                "pydantic-ai--chat_stream_parallel_tool_calls.i0.request.json",
                                "pydantic-ai--chat_stream_parallel_tool_calls.i1.request.json",
                                "pydantic-ai--deepseek_reasoning_content_stream.request.json",
                                "pydantic-ai--openrouter_429.request.json"}) {
    auto first = decodeRequest(readChatFixture(name));
    ASSERT_TRUE(first.ok()) << name;
    auto body = encodeRequest(*first, first->model);
    ASSERT_TRUE(body.ok()) << name;
    auto second = decodeRequest(*body);
    ASSERT_TRUE(second.ok()) << name << ": " << second.error().message;
    EXPECT_EQ(describe(*second), describe(*first)) << name;
    auto reply = askMock(*body);
    EXPECT_EQ(reply.status, 200) << name << "\n" << *body << "\n" << reply.body();
  }
}

}  // namespace
}  // namespace llmux::translate::openai_chat
