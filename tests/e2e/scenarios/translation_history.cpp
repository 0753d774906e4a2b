// What a conversation carries from one turn to the next when its turns are served by different
// protocols, end to end.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/sse_reader.h"

namespace llmux::e2e {
namespace {

using namespace failover;

class History : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }
};

// Turn 1 of a Claude Code session was served by a Gemini channel: the thinking block it got back
// carries llmux's tag instead of an Anthropic signature. Turn 2 goes to an Anthropic channel by
// passthrough: the made-up block is taken out (Anthropic would refuse its signature), everything
// else arrives as the client wrote it.
TEST_F(History, ReasoningMadeUpByATranslationIsNotSentToTheRealProvider) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = startGateway(
      gatewayConfig({channel("claude", Protocol::Anthropic, mock->baseUrl(), {"k"})}, accessLog()));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  ClientCall call = clientCall(Protocol::Anthropic, false);
  call.body = std::string(R"({"model":")") + kModel + R"(","max_tokens":256,"messages":[)" +
              R"({"role":"user","content":"What is 2+2?"},)" +
              R"({"role":"assistant","content":[{"type":"thinking","thinking":"Simple sum.",)" +
              R"("signature":"llmux:gemini:c2lnbmF0dXJl"},{"type":"text","text":"4"}]},)" +
              R"({"role":"user","content":"And 3+3?"}]})";
  auto response = callGateway(gw->port, call);
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::string const& sent = journal->back().body;
  EXPECT_EQ(sent.find("llmux:"), std::string::npos) << sent;
  auto doc = parseObject(sent);
  ASSERT_TRUE(doc.ok()) << sent;
  auto const& messages = doc->at("messages").as_array();
  ASSERT_EQ(messages.size(), 3u);
  auto const& assistant = messages[1].at("content").as_array();
  ASSERT_EQ(assistant.size(), 1u);
  EXPECT_EQ(assistant[0].at("text").as_string(), "4");
  EXPECT_EQ(messages[2].at("content").as_string(), "And 3+3?");

  // A body without such blocks goes through byte for byte.
  ASSERT_TRUE(clearJournal(mock->port).ok());
  ClientCall plain = clientCall(Protocol::Anthropic, false);
  auto again = callGateway(gw->port, plain);
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto second = waitForJournal(mock->port, 1);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->back().body, plain.body);
}

/// The content blocks an Anthropic SDK builds from a streamed answer.
boost::json::array streamedContent(std::string_view body) {
  boost::json::array blocks;
  std::string input;
  for (auto const& frame : sseEventsOf(body)) {
    boost::json::object data = boost::json::parse(frame.data).as_object();
    std::string_view type = data.at("type").as_string();
    if (type == "content_block_start") {
      blocks.push_back(data.at("content_block"));
      input.clear();
    } else if (type == "content_block_delta") {
      auto& block = blocks.back().as_object();
      auto const& delta = data.at("delta").as_object();
      std::string_view kind = delta.at("type").as_string();
      auto append = [&](std::string_view key, std::string_view from) {
        block[key] = std::string(block[key].as_string()) + std::string(delta.at(from).as_string());
      };
      if (kind == "text_delta") append("text", "text");
      if (kind == "thinking_delta") append("thinking", "thinking");
      if (kind == "signature_delta") append("signature", "signature");
      if (kind == "input_json_delta") input += delta.at("partial_json").as_string();
    } else if (type == "content_block_stop" && !input.empty()) {
      blocks.back().as_object()["input"] = boost::json::parse(input);
    }
  }
  return blocks;
}

/// The thoughtSignature of the first functionCall part of a Gemini answer (whole or SSE).
std::string signedCallOf(std::string_view gemini_answer, bool stream) {
  std::vector<std::string> chunks;
  if (stream) {
    for (auto const& frame : sseEventsOf(gemini_answer)) chunks.push_back(frame.data);
  } else {
    chunks.emplace_back(gemini_answer);
  }
  for (auto const& chunk : chunks) {
    boost::json::value answer = boost::json::parse(chunk);
    for (auto const& part : answer.at("candidates").at(0).at("content").at("parts").as_array()) {
      auto const& o = part.as_object();
      if (o.contains("functionCall") && o.contains("thoughtSignature")) {
        return std::string(o.at("thoughtSignature").as_string());
      }
    }
  }
  return {};
}

class GeminiThinkingHistory : public History, public ::testing::WithParamInterface<bool> {};

// A Claude Code turn served by Gemini, which thinks and calls a tool with its thoughtSignature on
// the functionCall part: the client's thinking block carries that signature (the SDK would refuse
// one without), and the next turn gives it back to Gemini on the call it came with.
TEST_P(GeminiThinkingHistory, TheThoughtSignatureGoesBackOnTheCallItCameWith) {
  bool stream = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = startGateway(
      gatewayConfig({channel("gemini", Protocol::Gemini, mock->baseUrl(), {"k"})}, accessLog()));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  std::string head = std::string(R"({"model":")") + kModel +
                     R"(","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},)" +
                     (stream ? R"("stream":true,)" : "") +
                     R"("tools":[{"name":"get_weather","input_schema":{"type":"object",)"
                     R"("properties":{"city":{"type":"string"}},"required":["city"]}}],)"
                     R"("messages":[)"
                     R"({"role":"user","content":"Weather in Paris?"})";
  ClientCall call = clientCall(Protocol::Anthropic, stream);
  call.body = head + "]}";
  auto first = callGateway(gw->port, call);
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_EQ(first->status(), 200) << first->body;
  boost::json::array content =
      stream ? streamedContent(first->body)
             : boost::json::parse(first->body).at("content").as_array();
  ASSERT_GE(content.size(), 2u) << first->body;
  ASSERT_EQ(content[0].at("type"), "thinking") << first->body;
  ASSERT_EQ(content.back().at("type"), "tool_use") << first->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::string signature = signedCallOf(journal->back().response_body, stream);
  ASSERT_FALSE(signature.empty()) << journal->back().response_body;
  EXPECT_EQ(std::string(content[0].at("signature").as_string()), "llmux:gemini:next:" + signature)
      << first->body;

  ASSERT_TRUE(clearJournal(mock->port).ok());
  std::string call_id(content.back().at("id").as_string());
  call.body = head + R"(,{"role":"assistant","content":)" + boost::json::serialize(content) +
              R"(},{"role":"user","content":[{"type":"tool_result","tool_use_id":")" + call_id +
              R"(","content":"sunny"}]}]})";
  auto second = callGateway(gw->port, call);
  ASSERT_TRUE(second.ok()) << second.error().message;
  ASSERT_EQ(second->status(), 200) << second->body;
  auto sent = waitForJournal(mock->port, 1);
  ASSERT_TRUE(sent.ok()) << sent.error().message;
  auto doc = parseObject(sent->back().body);
  ASSERT_TRUE(doc.ok()) << sent->back().body;
  auto const& model = doc->at("contents").at(1);
  ASSERT_EQ(model.at("role"), "model") << sent->back().body;
  auto const& parts = model.at("parts").as_array();
  ASSERT_EQ(parts.size(), 2u) << sent->back().body;
  EXPECT_EQ(parts[0].at("thought"), true);
  EXPECT_FALSE(parts[0].as_object().contains("thoughtSignature")) << sent->back().body;
  EXPECT_EQ(std::string(parts[1].at("thoughtSignature").as_string()), signature)
      << sent->back().body;
  EXPECT_EQ(sent->back().body.find("llmux:"), std::string::npos) << sent->back().body;
}

INSTANTIATE_TEST_SUITE_P(Delivery, GeminiThinkingHistory, ::testing::Bool(),
                         [](::testing::TestParamInfo<bool> const& info) {
                           return std::string(info.param ? "Stream" : "Whole");
                         });

// A request one protocol cannot carry (an OpenAI file id means nothing to Gemini, and it is all
// the request holds) skips that channel for one that can; when none can, the client gets a 400
// saying why.
TEST_F(History, AChannelThatCannotCarryTheRequestIsSkipped) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string body = std::string(R"({"model":")") + kModel +
                     R"(","input":[{"role":"user","content":[{"type":"input_file","file_id":"file-abc123"}]}]})";
  ClientCall call = clientCall(Protocol::OpenAiResponses, false);
  call.body = body;

  auto both = startGateway(gatewayConfig(
      {channel("gemini", Protocol::Gemini, mock->baseUrl(), {"k1"}, 10),
       channel("chat", Protocol::OpenAiChat, mock->baseUrl(), {"k2"}, 0)},
      accessLog()));
  ASSERT_TRUE(both.ok()) << both.error().message;
  auto served = callGateway(both->port, call, "hist-skip");
  ASSERT_TRUE(served.ok()) << served.error().message;
  EXPECT_EQ(served->status(), 200) << served->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u) << "nothing was sent to the channel that cannot carry it";
  EXPECT_EQ(journal->back().path, "/v1/chat/completions");
  EXPECT_NE(journal->back().body.find("file-abc123"), std::string::npos)
      << "OpenAI file ids cross between the two OpenAI protocols";
  auto line = waitForAccessLine(accessLog(), "hist-skip");
  ASSERT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(line->at("attempt_list").as_array()[0].at("outcome").as_string(),
            "failover:untranslatable");

  auto gemini_only = startGateway(gatewayConfig(
      {channel("gemini", Protocol::Gemini, mock->baseUrl(), {"k1"})}, temp().path() + "/a2.log"));
  ASSERT_TRUE(gemini_only.ok()) << gemini_only.error().message;
  auto refused = callGateway(gemini_only->port, call);
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_EQ(refused->status(), 400) << refused->body;
  auto message = errorMessageOf(Protocol::OpenAiResponses, 400, refused->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_FALSE(message->empty());
}

}  // namespace
}  // namespace llmux::e2e
