// Tool names across protocols, end to end: a Gemini client's `github.search_issues` reaches an
// OpenAI upstream (the mock) under a name OpenAI accepts, and the client gets its own name back
// on the call, whole or streamed (translate/tool_names.h, proxy/translation.cpp).
#include <gtest/gtest.h>

#include <regex>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;
namespace json = boost::json;

constexpr char kToolName[] = "github.search_issues";

class TranslatedToolNames : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }
};

/// A Gemini CLI-like request that must call `github.search_issues`.
ClientCall forcedCall(bool stream) {
  ClientCall call = clientCall(Protocol::Gemini, stream);
  call.body = std::string(R"({"contents":[{"role":"user","parts":[{"text":"find the bug"}]}],)") +
              R"("tools":[{"functionDeclarations":[{"name":")" + kToolName +
              R"(","parametersJsonSchema":{"type":"object","properties":{"q":{"type":"string"}}}}]}],)" +
              R"("toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":[")" +
              kToolName + R"("]}}})";
  return call;
}

/// The function name the upstream was given, checked against OpenAI's rule.
void expectOpenAiName(std::uint16_t mock_port) {
  auto journal = waitForJournal(mock_port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  auto body = parseObject(journal->back().body);
  ASSERT_TRUE(body.ok()) << journal->back().body;
  std::string sent(body->at("tools").at(0).at("function").at("name").as_string());
  EXPECT_TRUE(std::regex_match(sent, std::regex("^[a-zA-Z0-9_-]{1,64}$"))) << sent;
  EXPECT_NE(sent, kToolName);
  EXPECT_EQ(body->at("tool_choice").at("function").at("name").as_string(), sent);
}

TEST_F(TranslatedToolNames, AGeminiToolNameIsRenamedForOpenAiAndRestoredInTheAnswer) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = startGateway(
      gatewayConfig({channel("chat", Protocol::OpenAiChat, mock->baseUrl(), {"k"})}, accessLog()));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  auto response = callGateway(gw->port, forcedCall(false));
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  auto answer = parseObject(response->body);
  ASSERT_TRUE(answer.ok()) << response->body;
  json::array const& parts = answer->at("candidates").at(0).at("content").at("parts").as_array();
  bool called = false;
  for (auto const& part : parts) {
    if (!part.as_object().contains("functionCall")) continue;
    EXPECT_EQ(part.at("functionCall").at("name").as_string(), kToolName);
    called = true;
  }
  EXPECT_TRUE(called) << response->body;
  expectOpenAiName(mock->port);
}

TEST_F(TranslatedToolNames, AStreamedCallCarriesTheClientsName) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gw = startGateway(gatewayConfig(
      {channel("responses", Protocol::OpenAiResponses, mock->baseUrl(), {"k"})}, accessLog()));
  ASSERT_TRUE(gw.ok()) << gw.error().message;

  auto response = callGateway(gw->port, forcedCall(true));
  ASSERT_TRUE(response.ok()) << response.error().message;
  ASSERT_EQ(response->status(), 200) << response->body;
  EXPECT_NE(response->body.find(std::string(R"("name":")") + kToolName + "\""), std::string::npos)
      << response->body;
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  auto body = parseObject(journal->back().body);
  ASSERT_TRUE(body.ok()) << journal->back().body;
  std::string sent(body->at("tools").at(0).at("name").as_string());
  EXPECT_TRUE(std::regex_match(sent, std::regex("^[a-zA-Z0-9_-]{1,64}$"))) << sent;
  EXPECT_EQ(response->body.find(sent), std::string::npos) << "the upstream's name stays behind";
}

}  // namespace
}  // namespace llmux::e2e
