// Reasoning llmux made up, taken out of a body that goes to an upstream of the client's own
// protocol (translate/history_cleaner.h).
#include "translate/history_cleaner.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <fstream>
#include <sstream>

#include "translate/anthropic/wire.h"
#include "translate/codec.h"

namespace llmux::translate {
namespace {

namespace json = boost::json;

std::string readFile(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

/// A recorded request's body (tests/data/fixtures/clients).
json::object clientBody(std::string_view name) {
  json::value capture = json::parse(
      readFile(std::string(LLMUX_TEST_DATA_DIR) + "/fixtures/clients/" + std::string(name)));
  return capture.at("body").as_object();
}

/// Claude Code's recorded request with a tool loop of `assistant` blocks appended: the assistant
/// turn and the user's tool_result after it.
json::object claudeCodeTurn(json::array assistant) {
  json::object body = clientBody("claude-cli.request.json");
  json::array& messages = body.at("messages").as_array();
  messages.push_back(json::object{{"role", "assistant"}, {"content", std::move(assistant)}});
  messages.push_back(json::parse(R"({"role":"user","content":[{"type":"tool_result",
      "tool_use_id":"toolu_01","content":"file.txt","is_error":false}]})"));
  return body;
}

json::value toolUse() {
  return json::parse(
      R"({"type":"tool_use","id":"toolu_01","name":"Bash","input":{"command":"ls"}})");
}

json::value thinking(std::string signature) {
  return json::object{{"type", "thinking"}, {"thinking", "Let me list."}, {"signature", signature}};
}

TEST(HistoryCleaner, AnOrdinaryBodyIsLeftAsItIs) {
  for (auto const& [protocol, name] : std::vector<std::pair<Protocol, std::string_view>>{
           {Protocol::Anthropic, "claude-cli.request.json"},
           {Protocol::OpenAiResponses, "codex-cli.request.json"},
           {Protocol::Gemini, "gemini-cli.request.json"}}) {
    std::string body = json::serialize(clientBody(name));
    EXPECT_FALSE(cleanForeignReasoning(protocol, body).has_value()) << name;
  }
  // Anthropic's own signed thinking stays.
  std::string own = json::serialize(claudeCodeTurn({thinking("EqQBCkYIBxgCKkA"), toolUse()}));
  EXPECT_FALSE(cleanForeignReasoning(Protocol::Anthropic, own).has_value());
  // A mention of the tag in plain text is not a signature.
  json::object mention = clientBody("claude-cli.request.json");
  mention.at("messages")
      .as_array()
      .push_back(json::parse(R"({"role":"user","content":"what does \"llmux: ok\" mean?"})"));
  EXPECT_FALSE(cleanForeignReasoning(Protocol::Anthropic, json::serialize(mention)).has_value());
}

TEST(HistoryCleaner, AnthropicThinkingLlmuxSignedIsRemovedAndThinkingTurnedOffWhenRequired) {
  // Claude Code's turn after a Gemini-served answer: its thinking carries llmux's tag.
  std::string tagged = anthropic::clientSignature("CpUBAdHtim", Protocol::Gemini);
  ASSERT_TRUE(tagged.starts_with("llmux:"));
  json::object body = claudeCodeTurn({thinking(tagged), toolUse()});
  auto cleaned = cleanForeignReasoning(Protocol::Anthropic, json::serialize(body));
  ASSERT_TRUE(cleaned.has_value());
  json::object out = json::parse(*cleaned).as_object();
  json::array const& messages = out.at("messages").as_array();
  json::array const& assistant = messages[messages.size() - 2].at("content").as_array();
  ASSERT_EQ(assistant.size(), 1u);
  EXPECT_EQ(assistant[0].at("type"), "tool_use");
  // The tool turn no longer starts with thinking: Anthropic would answer 400 with thinking on.
  EXPECT_FALSE(out.contains("thinking"));
  EXPECT_FALSE(out.contains("context_management")) << "its only edit clears thinking";
  // Everything else is as it was.
  for (std::string_view key :
       {"model", "metadata", "max_tokens", "output_config", "stream", "system", "tools"}) {
    EXPECT_EQ(out.at(key), body.at(key)) << key;
  }
  EXPECT_EQ(messages.size(), body.at("messages").as_array().size());
}

TEST(HistoryCleaner, AnthropicKeepsThinkingOnWhenTheToolTurnStillStartsWithSignedThinking) {
  // An older turn with an empty signature (a Chat upstream gave none), the latest one Anthropic's.
  json::object body = claudeCodeTurn({thinking("EqQBCkYIBxgCKkA"), toolUse()});
  json::array& messages = body.at("messages").as_array();
  messages.insert(messages.end() - 2,
                  json::parse(R"({"role":"assistant","content":[{"type":"thinking","thinking":"t",
                      "signature":""},{"type":"text","text":"Hi"}]})"));
  messages.insert(messages.end() - 2,
                  json::parse(R"({"role":"assistant","content":[{"type":"redacted_thinking",
                      "data":"llmux:openai-responses:gAAAA"}]})"));
  messages.insert(messages.end() - 2, json::parse(R"({"role":"user","content":"next"})"));
  auto cleaned = cleanForeignReasoning(Protocol::Anthropic, json::serialize(body));
  ASSERT_TRUE(cleaned.has_value());
  json::object out = json::parse(*cleaned).as_object();
  EXPECT_EQ(out.at("thinking"), body.at("thinking"));
  EXPECT_EQ(out.at("context_management"), body.at("context_management"));
  json::array const& kept = out.at("messages").as_array();
  ASSERT_EQ(kept.size(), messages.size() - 1) << "the message left empty is gone";
  EXPECT_EQ(json::serialize(kept[kept.size() - 4]),
            R"({"role":"assistant","content":[{"type":"text","text":"Hi"}]})");
}

TEST(HistoryCleaner, ResponsesReasoningLlmuxMadeUpIsRemoved) {
  // A Codex turn after an Anthropic-served answer: the reasoning item llmux minted comes back.
  Response answer;
  answer.id = "msg_01";
  answer.content = {Block{.type = BlockType::Thinking,
                          .text = "plan",
                          .signature = "EqQB",
                          .signature_origin = Protocol::Anthropic},
                    Block{.type = BlockType::Text, .text = "done"}};
  json::object shown =
      json::parse(encodeResponse(Protocol::OpenAiResponses, answer, {})).as_object();
  json::array output = shown.at("output").as_array();
  ASSERT_EQ(output[0].at("type"), "reasoning");
  ASSERT_TRUE(output[0].at("id").as_string().starts_with("rs_llmux_"));

  json::object body = clientBody("codex-cli.request.json");
  json::array& input = body.at("input").as_array();
  std::size_t before = input.size();
  for (auto& item : output) input.push_back(item);
  json::object stored = json::parse(R"({"type":"reasoning","id":"rs_llmux_x_1","summary":[],
      "encrypted_content":"gAAAABreal"})")
                            .as_object();
  input.push_back(stored);
  auto cleaned = cleanForeignReasoning(Protocol::OpenAiResponses, json::serialize(body));
  ASSERT_TRUE(cleaned.has_value());
  json::object out = json::parse(*cleaned).as_object();
  json::array const& items = out.at("input").as_array();
  ASSERT_EQ(items.size(), before + 2);
  EXPECT_EQ(items[before].at("type"), "message");
  EXPECT_EQ(json::serialize(items[before + 1]),
            R"({"type":"reasoning","summary":[],"encrypted_content":"gAAAABreal"})")
      << "encrypted content is OpenAI's own: only the made-up id goes";
  for (auto const& [key, value] : body) {
    if (key == "input") continue;
    EXPECT_EQ(out.at(key), value) << key;
  }
}

}  // namespace
}  // namespace llmux::translate
