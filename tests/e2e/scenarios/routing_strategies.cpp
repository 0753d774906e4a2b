// The default strategy (intelligent) end to end: a failing key loses the lead to a healthy one
// of the same priority after its first failure, and a lower priority is never used while a
// higher one can serve.
#include <gtest/gtest.h>

#include <map>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;

class RoutingStrategies : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }
};

TEST_F(RoutingStrategies, IntelligentMovesAwayFromAFailingKeyAndKeepsPriorities) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto sick = channel("sick", Protocol::OpenAiChat, mock->baseUrl(), {"k-sick"}, 0);
  sick.headers = {{"x-mock-fault", "500"}};
  auto fine = channel("fine", Protocol::OpenAiChat, mock->baseUrl(), {"k-fine"}, 0);
  auto backup = channel("backup", Protocol::OpenAiChat, mock->baseUrl(), {"k-backup"}, -1);
  GatewayConfig config = gatewayConfig({sick, fine, backup}, accessLog());
  config.gateway_keys[0].strategy = "";  // the default: intelligent
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::OpenAiChat, false);
  for (int i = 0; i < 10; ++i) {
    auto answer = callGateway(gateway->port, call, "intel-" + std::to_string(i));
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status(), 200) << answer->body;
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::map<std::string, int> tries;
  for (auto const& key : keysOf(*journal)) ++tries[key];
  EXPECT_EQ(tries["k-fine"], 10);
  // Led at most once (a coin toss between equals), then scored below the healthy key.
  EXPECT_LE(tries["k-sick"], 1);
  EXPECT_EQ(tries["k-backup"], 0);
  auto line = waitForAccessLine(accessLog(), "intel-9");
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto const& first = line->at("attempt_list").as_array()[0].as_object();
  EXPECT_EQ(first.at("strategy").as_string(), "intelligent");
  EXPECT_GT(first.at("score").to_number<double>(), 0.0);
  EXPECT_NE(std::string(first.at("factors").as_string()).find("failures="), std::string::npos);
}

}  // namespace
}  // namespace llmux::e2e
