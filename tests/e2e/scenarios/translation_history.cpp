// What a conversation carries from one turn to the next when its turns are served by different
// protocols, end to end.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"

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
