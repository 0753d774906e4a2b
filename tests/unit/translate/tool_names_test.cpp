// Tool names each target accepts, and the renames that make a request valid for it
// (translate/tool_names.h).
#include "translate/tool_names.h"

#include <gtest/gtest.h>

#include <string>

#include "translate/codec.h"

namespace llmux::translate {
namespace {

Block call(std::string id, std::string name) {
  return Block{
      .type = BlockType::ToolCall, .id = std::move(id), .name = std::move(name), .arguments = "{}"};
}

Block result(std::string id, std::string name) {
  Block b{.type = BlockType::ToolResult, .id = std::move(id), .name = std::move(name)};
  b.content.push_back(Block{.type = BlockType::Text, .text = "ok"});
  return b;
}

/// A conversation that names `name` everywhere a request can: tools, tool_choice, a call and its
/// result, plus a tool whose name every protocol accepts.
Request naming(std::string const& name) {
  Request r;
  r.model = "m";
  r.tools = {ToolSpec{.name = name}, ToolSpec{.name = "read_file"}};
  r.tool_choice = ToolChoice{ToolChoiceMode::Named, name};
  r.messages = {Message{Role::User, {Block{.type = BlockType::Text, .text = "go"}}},
                Message{Role::Assistant, {call("c1", name), call("c2", "read_file")}},
                Message{Role::User, {result("c1", name), result("c2", "read_file")}}};
  return r;
}

TEST(ToolNames, WhatEachProtocolAccepts) {
  struct Case {
    std::string name;
    bool openai, anthropic, gemini;
  };
  std::string long65(65, 'a');
  std::string long129(129, 'a');
  for (auto const& c : std::vector<Case>{
           {"read_file", true, true, true},
           {"mcp-server_tool-2", true, true, true},
           {"github.search_issues", false, false, true},
           {"ns:tool", false, false, true},
           {"9lives", true, true, false},  // Gemini names start with a letter or '_'
           {"-dash", true, true, false},
           {"_private", true, true, true},
           {"has space", false, false, false},
           {"ünï", false, false, false},
           {"", false, false, false},
           {std::string(64, 'a'), true, true, true},
           {long65, false, true, false},
           {long129, false, false, false},
       }) {
    EXPECT_EQ(validToolName(c.name, Protocol::OpenAiChat), c.openai) << c.name;
    EXPECT_EQ(validToolName(c.name, Protocol::OpenAiResponses), c.openai) << c.name;
    EXPECT_EQ(validToolName(c.name, Protocol::Anthropic), c.anthropic) << c.name;
    EXPECT_EQ(validToolName(c.name, Protocol::Gemini), c.gemini) << c.name;
  }
}

TEST(ToolNames, AGeminiDottedNameIsRenamedEverywhereForOpenAiAndRestored) {
  Request r = naming("github.search_issues");
  ToolNameMap map = rewriteToolNames(r, Protocol::OpenAiChat);
  ASSERT_EQ(map.size(), 1u);
  std::string sent(map.upstream("github.search_issues"));
  EXPECT_TRUE(sent.starts_with("github_search_issues_")) << sent;
  EXPECT_EQ(sent.size(), std::string("github_search_issues_").size() + 8) << "prefix + 8 hex";
  EXPECT_TRUE(validToolName(sent, Protocol::OpenAiChat));
  EXPECT_EQ(r.tools[0].name, sent);
  EXPECT_EQ(r.tools[1].name, "read_file") << "valid names are left alone";
  EXPECT_EQ(r.tool_choice->name, sent);
  EXPECT_EQ(r.messages[1].blocks[0].name, sent);
  EXPECT_EQ(r.messages[1].blocks[1].name, "read_file");
  EXPECT_EQ(r.messages[2].blocks[0].name, sent);

  Request again = naming("github.search_issues");
  EXPECT_EQ(planToolNames(again, Protocol::OpenAiResponses).upstream("github.search_issues"), sent)
      << "deterministic: every attempt and every turn gets the same name";

  Response answer;
  answer.content = {call("up_1", sent), call("up_2", "read_file")};
  restoreToolNames(answer, map);
  EXPECT_EQ(answer.content[0].name, "github.search_issues");
  EXPECT_EQ(answer.content[1].name, "read_file");

  Event start;
  start.type = EventType::BlockStart;
  start.block = call("up_3", sent);
  restoreToolNames(start, map);
  EXPECT_EQ(start.block.name, "github.search_issues");
  Event text;
  text.type = EventType::TextDelta;
  text.text = sent;
  restoreToolNames(text, map);
  EXPECT_EQ(text.text, sent) << "only tool call names are names";

  // Gemini itself takes the dotted name: nothing to rename.
  EXPECT_TRUE(planToolNames(naming("github.search_issues"), Protocol::Gemini).empty());
}

TEST(ToolNames, AClaudeCodeMcpNameLongerThan64IsShortenedForOpenAiOnly) {
  std::string name = "mcp__claude_ai_Atlassian_Rovo__getConfluencePageFooterCommentsWithReplies";
  ASSERT_GT(name.size(), 64u);
  Request r = naming(name);
  EXPECT_TRUE(planToolNames(r, Protocol::Anthropic).empty()) << "Anthropic takes 128 characters";
  ToolNameMap map = rewriteToolNames(r, Protocol::OpenAiResponses);
  std::string sent(map.upstream(name));
  EXPECT_EQ(sent.size(), 64u);
  EXPECT_TRUE(sent.starts_with(name.substr(0, 55) + "_")) << sent;
  EXPECT_TRUE(validToolName(sent, Protocol::OpenAiResponses));
  EXPECT_EQ(map.original(sent), name);

  // For Gemini the name also must not start with a digit.
  Request digit = naming("1password.get-item");
  std::string gemini(planToolNames(digit, Protocol::Gemini).upstream("1password.get-item"));
  EXPECT_TRUE(gemini.starts_with("_1password.get-item_")) << gemini;
  EXPECT_TRUE(validToolName(gemini, Protocol::Gemini));
}

TEST(ToolNames, NewNamesNeverCollide) {
  // Two names that sanitise alike, and a valid tool that already has the name one of them would
  // get: all three end up distinct.
  Request r;
  r.tools = {ToolSpec{.name = "a.b"}, ToolSpec{.name = "a:b"}};
  ToolNameMap first = planToolNames(r, Protocol::OpenAiChat);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_NE(first.upstream("a.b"), first.upstream("a:b"));
  std::string taken(first.upstream("a.b"));
  r.tools.push_back(ToolSpec{.name = taken});
  ToolNameMap second = planToolNames(r, Protocol::OpenAiChat);
  EXPECT_NE(second.upstream("a.b"), taken) << "the client's own tool keeps its name";
  EXPECT_NE(second.upstream("a.b"), second.upstream("a:b"));
  EXPECT_TRUE(validToolName(second.upstream("a.b"), Protocol::OpenAiChat));
  applyToolNames(r, second);
  EXPECT_EQ(r.tools[2].name, taken);
}

TEST(ToolNames, TheRenamedRequestEncodesWithTheNewNamesOnly) {
  // A Gemini CLI request: its tool names go to a Chat upstream renamed, and the answer's call
  // comes back under the client's name.
  auto decoded = decodeRequest(Protocol::Gemini, R"({
      "contents":[{"role":"user","parts":[{"text":"find bugs"}]},
        {"role":"model","parts":[{"functionCall":{"name":"github.search_issues","args":{"q":"bug"}}}]},
        {"role":"user","parts":[{"functionResponse":{"name":"github.search_issues","response":{"result":"none"}}}]}],
      "tools":[{"functionDeclarations":[{"name":"github.search_issues","parametersJsonSchema":{"type":"object"}}]}]})",
                               "gemini-2.5-pro", false);
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  ToolNameMap map = rewriteToolNames(*decoded, Protocol::OpenAiChat);
  auto body = encodeRequest(Protocol::OpenAiChat, *decoded, "gpt-5");
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->find("github.search_issues"), std::string::npos) << *body;
  EXPECT_NE(body->find(std::string(map.upstream("github.search_issues"))), std::string::npos);

  auto answer = decodeResponse(
      Protocol::OpenAiChat,
      R"({"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-5","choices":[{"index":0,)"
      R"("message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function",)"
      R"("function":{"name":")" +
          std::string(map.upstream("github.search_issues")) +
          R"(","arguments":"{}"}}]},"finish_reason":"tool_calls"}]})");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  restoreToolNames(*answer, map);
  std::string client = encodeResponse(Protocol::Gemini, *answer, EncodeOptions{.model = "g"});
  EXPECT_NE(client.find(R"("name":"github.search_issues")"), std::string::npos) << client;
}

}  // namespace
}  // namespace llmux::translate
