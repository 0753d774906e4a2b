#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "anthropic/support.h"
#include "translate/anthropic/codec.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;

std::string claudeCodeBody() {
  std::ifstream in(std::filesystem::path(LLMUX_TEST_DATA_DIR) / "fixtures" / "clients" /
                   "claude-cli.request.json");
  std::ostringstream s;
  s << in.rdbuf();
  json::value capture = json::parse(s.str());
  json::value const& body = capture.at("body");
  return body.is_string() ? std::string(body.as_string()) : json::serialize(body);
}

/// The request bodies recorded from Anthropic clients (and Claude Code's own).
std::vector<std::pair<std::string, std::string>> recordedRequests() {
  std::vector<std::pair<std::string, std::string>> out;
  for (auto const& name : testing::fixturesEnding(".request.json")) {
    out.emplace_back(name, testing::readFixture(name));
  }
  out.emplace_back("clients/claude-cli.request.json", claudeCodeBody());
  return out;
}

void expectSameConversation(Request const& a, Request const& b, std::string const& where) {
  ASSERT_EQ(a.messages.size(), b.messages.size()) << where;
  for (std::size_t i = 0; i < a.messages.size(); ++i) {
    EXPECT_EQ(a.messages[i].role, b.messages[i].role) << where << " message " << i;
    ASSERT_EQ(a.messages[i].blocks.size(), b.messages[i].blocks.size())
        << where << " message " << i;
    for (std::size_t k = 0; k < a.messages[i].blocks.size(); ++k) {
      Block const& x = a.messages[i].blocks[k];
      Block const& y = b.messages[i].blocks[k];
      EXPECT_EQ(x.type, y.type) << where << " " << i << "." << k;
      EXPECT_EQ(x.text, y.text) << where << " " << i << "." << k;
      EXPECT_EQ(x.signature, y.signature) << where << " " << i << "." << k;
      EXPECT_EQ(x.id, y.id) << where << " " << i << "." << k;
      EXPECT_EQ(x.is_error, y.is_error) << where << " " << i << "." << k;
      EXPECT_EQ(x.cache_marker, y.cache_marker) << where << " " << i << "." << k;
      if (x.type == BlockType::ToolCall) {
        EXPECT_EQ(json::parse(x.arguments), json::parse(y.arguments)) << where;
      }
    }
  }
  ASSERT_EQ(a.tools.size(), b.tools.size()) << where;
  for (std::size_t i = 0; i < a.tools.size(); ++i) {
    EXPECT_EQ(a.tools[i].name, b.tools[i].name) << where;
    EXPECT_EQ(a.tools[i].description, b.tools[i].description) << where;
    if (!a.tools[i].parameters.empty()) {
      EXPECT_EQ(json::parse(a.tools[i].parameters), json::parse(b.tools[i].parameters)) << where;
    }
  }
  ASSERT_EQ(a.system.size(), b.system.size()) << where;
  for (std::size_t i = 0; i < a.system.size(); ++i) {
    EXPECT_EQ(a.system[i].text, b.system[i].text) << where;
  }
  EXPECT_EQ(a.stop, b.stop) << where;
  EXPECT_EQ(a.user, b.user) << where;
  EXPECT_EQ(a.stream, b.stream) << where;
}

TEST(AnthropicFixtureRequests, RecordedRequestsDecodeReencodeAndAreAccepted) {
  auto requests = recordedRequests();
  ASSERT_GE(requests.size(), 19u);
  for (auto const& [name, body] : requests) {
    auto decoded = decodeRequest(body);
    ASSERT_TRUE(decoded.ok()) << name << ": " << decoded.error().message;
    auto encoded = encodeRequest(*decoded, "claude-sonnet-4-5");
    ASSERT_TRUE(encoded.ok()) << name << ": " << encoded.error().message;
    auto answer = testing::askMock(*encoded);
    EXPECT_EQ(answer.status, 200) << name << "\n" << *encoded << "\n-> " << answer.body;
    auto again = decodeRequest(*encoded);
    ASSERT_TRUE(again.ok()) << name;
    EXPECT_EQ(again->model, "claude-sonnet-4-5");
    expectSameConversation(*decoded, *again, name);
  }
}

TEST(AnthropicFixtureRequests, AThinkingToolLoopKeepsItsSignedThinking) {
  auto r = decodeRequest(
      testing::readFixture("llm-anthropic--stream_thinking_signature_tool_use.i1.request.json"));
  ASSERT_TRUE(r.ok());
  ASSERT_TRUE(r->reasoning && r->reasoning->budget_tokens);
  EXPECT_EQ(*r->reasoning->budget_tokens, 1024);
  auto body = encodeRequest(*r, "claude-haiku-4-5");
  ASSERT_TRUE(body.ok());
  auto o = json::parse(*body).as_object();
  EXPECT_EQ(json::serialize(o.at("thinking")), R"({"type":"enabled","budget_tokens":1024})");
  EXPECT_EQ(o.at("max_tokens").as_int64(), 64000);
  EXPECT_EQ(o.at("temperature").to_number<double>(), 1.0);
  auto const& assistant = o.at("messages").as_array()[1].at("content").as_array();
  EXPECT_EQ(assistant[0].at("type").as_string(), "thinking");
  EXPECT_TRUE(assistant[0].at("signature").as_string().starts_with("EoQDCm0IDhgCKkCDzGs2"));
  EXPECT_EQ(assistant[1].at("type").as_string(), "tool_use");
}

TEST(AnthropicFixtureRequests, ClaudeCodesRequest) {
  auto r = decodeRequest(claudeCodeBody());
  ASSERT_TRUE(r.ok()) << r.error().message;
  EXPECT_TRUE(r->stream);
  EXPECT_EQ(r->max_output_tokens, 32000);
  EXPECT_EQ(r->system.size(), 3u);
  EXPECT_TRUE(r->system[1].cache_marker);
  EXPECT_EQ(r->tools.size(), 12u);
  ASSERT_TRUE(r->reasoning);
  EXPECT_TRUE(r->reasoning->enabled);
  EXPECT_EQ(r->reasoning->effort, "high");
  EXPECT_FALSE(r->reasoning->include_thoughts);  // display: omitted
  EXPECT_NE(r->user.find("device_id"), std::string::npos);
  for (std::string_view name : {"context_management", "tools.defer_loading"}) {
    EXPECT_NE(std::find(r->dropped.begin(), r->dropped.end(), name), r->dropped.end()) << name;
  }
  bool system_turn = std::any_of(r->messages.begin(), r->messages.end(),
                                 [](Message const& m) { return m.role == Role::System; });
  EXPECT_TRUE(system_turn);
}

}  // namespace
}  // namespace llmux::translate::anthropic
