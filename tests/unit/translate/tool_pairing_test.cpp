// Tool calls and results paired for OpenAI targets (translate/tool_pairing.h), and what the Chat
// and Responses encoders make of it.
#include "translate/tool_pairing.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "translate/codec.h"

namespace llmux::translate {
namespace {

namespace json = boost::json;

Block text(std::string t) {
  return Block{.type = BlockType::Text, .text = std::move(t)};
}

Block call(std::string id, std::string name) {
  return Block{
      .type = BlockType::ToolCall, .id = std::move(id), .name = std::move(name), .arguments = "{}"};
}

Block result(std::string id, std::string name, std::string words) {
  Block b{.type = BlockType::ToolResult, .id = std::move(id), .name = std::move(name)};
  b.content.push_back(text(std::move(words)));
  return b;
}

/// Two calls, one answered: what a client cut off mid-run sends.
Request twoCallsOneResult() {
  Request r;
  r.model = "m";
  r.tools = {ToolSpec{.name = "f"}, ToolSpec{.name = "g"}};
  r.messages = {Message{Role::User, {text("q")}},
                Message{Role::Assistant, {call("c1", "f"), call("c2", "g")}},
                Message{Role::User, {result("c1", "f", "one"), text("go on")}}};
  return r;
}

bool named(std::vector<std::string> const& dropped, std::string_view name) {
  return std::find(dropped.begin(), dropped.end(), name) != dropped.end();
}

TEST(ToolPairing, APairedHistoryIsLeftAloneWithoutACopy) {
  Request r = twoCallsOneResult();
  r.messages[2].blocks.insert(r.messages[2].blocks.begin() + 1, result("c2", "g", "two"));
  std::vector<std::string> dropped;
  EXPECT_FALSE(pairToolCalls(r, 64, dropped).has_value());
  EXPECT_TRUE(dropped.empty());
}

TEST(ToolPairing, AMissingResultIsMadeUpAtTheStartOfTheNextUserTurn) {
  std::vector<std::string> dropped;
  auto paired = pairToolCalls(twoCallsOneResult(), 64, dropped);
  ASSERT_TRUE(paired);
  auto const& user = paired->messages[2].blocks;
  ASSERT_EQ(user.size(), 3u);
  EXPECT_EQ(user[0].type, BlockType::ToolResult);
  EXPECT_EQ(user[0].id, "c2");
  EXPECT_EQ(user[0].name, "g");
  EXPECT_TRUE(user[0].is_error);
  EXPECT_EQ(user[0].content.at(0).text, "No result was provided for this tool call.");
  EXPECT_EQ(user[1].id, "c1");
  EXPECT_EQ(user[2].text, "go on");
  EXPECT_TRUE(named(dropped, "tool_result.missing"));

  // A history that ends on the calls gets a user turn of its own.
  Request ending = twoCallsOneResult();
  ending.messages.pop_back();
  paired = pairToolCalls(ending, 64, dropped);
  ASSERT_TRUE(paired);
  ASSERT_EQ(paired->messages.size(), 3u);
  EXPECT_EQ(paired->messages[2].role, Role::User);
  EXPECT_EQ(paired->messages[2].blocks.size(), 2u);
}

TEST(ToolPairing, OrphansAndMisplacedCallsBecomeText) {
  Request r;
  Block with_image = result("gone", "search", "42");
  with_image.is_error = true;
  with_image.content.push_back(
      Block{.type = BlockType::Image, .media_type = "image/png", .data = "iVBO"});
  r.messages = {Message{Role::User, {text("q"), call("x", "lookup")}},
                Message{Role::Assistant, {text("ok")}}, Message{Role::User, {with_image}}};
  std::vector<std::string> dropped;
  auto paired = pairToolCalls(r, 64, dropped);
  ASSERT_TRUE(paired);
  EXPECT_EQ(paired->messages[0].blocks[1].text, "[call to lookup: {}]");
  auto const& answer = paired->messages[2].blocks;
  ASSERT_EQ(answer.size(), 2u);
  EXPECT_EQ(answer[0].text, "Result of tool search:\nError: 42");
  EXPECT_EQ(answer[1].type, BlockType::Image) << "the result's media stays with its words";
  EXPECT_TRUE(named(dropped, "tool_result.unmatched"));
  EXPECT_TRUE(named(dropped, "tool_call"));
}

TEST(ToolPairing, IdsAreMadeUpDeduplicatedAndShortenedAlikeForCallAndResult) {
  std::string long_id = "toolu_vrtx_" + std::string(60, 'x');
  Request r;
  r.messages = {
      Message{Role::User, {text("q")}},
      Message{Role::Assistant,
              {call("", "lookup"), call("dup", "f"), call("dup", "f"), call(long_id, "g")}},
      Message{Role::User,
              {result("", "lookup", "a"), result("dup", "f", "b"), result("dup", "f", "c"),
               result(long_id, "g", "d")}}};
  std::vector<std::string> dropped;
  auto paired = pairToolCalls(r, 40, dropped);
  ASSERT_TRUE(paired);
  auto const& calls = paired->messages[1].blocks;
  auto const& results = paired->messages[2].blocks;
  EXPECT_EQ(calls[0].id, "call_llmux_1");
  EXPECT_EQ(calls[1].id, "dup");
  EXPECT_EQ(calls[2].id, "dup_2");
  EXPECT_EQ(calls[3].id.size(), 40u);
  EXPECT_TRUE(calls[3].id.starts_with("toolu_vrtx_xxx"));
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(results[i].id, calls[i].id) << i;
  EXPECT_TRUE(named(dropped, "tool_call.id"));

  std::vector<std::string> again;
  EXPECT_EQ(pairToolCalls(r, 40, again)->messages[1].blocks[3].id, calls[3].id) << "deterministic";
}

TEST(ToolPairing, ResponsesGetAnOutputForEveryFunctionCall) {
  auto body = encodeRequestReporting(Protocol::OpenAiResponses, twoCallsOneResult(), "gpt-5");
  ASSERT_TRUE(body.ok());
  json::array input = json::parse(body->body).at("input").as_array();
  std::vector<std::string> calls, outputs;
  for (auto const& item : input) {
    if (item.at("type") == "function_call") calls.emplace_back(item.at("call_id").as_string());
    if (item.at("type") == "function_call_output") {
      outputs.emplace_back(item.at("call_id").as_string());
    }
  }
  EXPECT_EQ(calls, (std::vector<std::string>{"c1", "c2"}));
  EXPECT_EQ(outputs, (std::vector<std::string>{"c2", "c1"})) << json::serialize(input);
  EXPECT_TRUE(named(body->dropped, "tool_result.missing"));
}

TEST(ToolPairing, ChatAnswersEveryToolCallRightAfterItsMessage) {
  Request r = twoCallsOneResult();
  std::string long_id = "call_" + std::string(60, '7');
  r.messages[1].blocks[0].id = long_id;
  r.messages[2].blocks[0].id = long_id;
  auto body = encodeRequestReporting(Protocol::OpenAiChat, r, "gpt-5");
  ASSERT_TRUE(body.ok());
  json::array messages = json::parse(body->body).at("messages").as_array();
  ASSERT_EQ(messages.size(), 5u) << json::serialize(messages);
  json::array const& tool_calls = messages[1].at("tool_calls").as_array();
  std::string first(tool_calls[0].at("id").as_string());
  EXPECT_LE(first.size(), 40u) << "OpenAI has refused longer tool call ids";
  EXPECT_EQ(messages[2].at("role"), "tool");
  EXPECT_EQ(messages[2].at("tool_call_id"), tool_calls[1].at("id"));
  EXPECT_EQ(messages[3].at("role"), "tool");
  EXPECT_EQ(messages[3].at("tool_call_id").as_string(), first);
  EXPECT_EQ(messages[4].at("content"), "go on");
}

}  // namespace
}  // namespace llmux::translate
