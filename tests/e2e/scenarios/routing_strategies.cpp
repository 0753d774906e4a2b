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

/// The value of one factor in an attempt's factor text ("score=… performance=0.83 …").
double factorOf(std::string_view factors, std::string_view name) {
  auto at = factors.find(std::string(name) + "=");
  if (at == std::string_view::npos) return -1;
  return std::stod(std::string(factors.substr(at + name.size() + 1)));
}

// A stream is as fast as its first content: an upstream that sends its head at once and its
// first content 400 ms later is learned as a 400 ms upstream (the latency factor halves at 2 s:
// 1 / (1 + 400 / 2000) = 0.83), not as a 2 ms one (0.999).
class StreamLatency : public RoutingStrategies, public ::testing::WithParamInterface<Protocol> {};

TEST_P(StreamLatency, TheRouterLearnsTheTimeToTheFirstContent) {
  Protocol upstream = GetParam();
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto slow = channel("slow", upstream, mock->baseUrl(), {"k-slow"}, 0);
  slow.headers = {{"x-mock-fault", "slow-first-token=400"}};
  GatewayConfig config = gatewayConfig({slow}, accessLog());
  config.gateway_keys[0].strategy = "";  // the default: intelligent
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::OpenAiChat, true);
  auto answer = callGateway(gateway->port, call, "lat-1");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 200) << answer->body;
  // The router learns when the attempt ends, a moment after the client has read the last byte
  // (on another worker, the next request could be planned before that): the second request goes
  // once the first is accounted.
  auto first = waitForAccessLine(accessLog(), "lat-1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  answer = callGateway(gateway->port, call, "lat-2");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 200) << answer->body;
  auto const& attempt = first->at("attempt_list").as_array()[0].as_object();
  EXPECT_LT(attempt.at("first_byte_ms").to_number<double>(), 300) << "the head came at once";
  EXPECT_GE(attempt.at("first_token_ms").to_number<double>(), 390);
  EXPECT_DOUBLE_EQ(factorOf(std::string(attempt.at("factors").as_string()), "performance"), 1)
      << "nothing learned yet";

  // The second request was planned with what the first taught.
  auto second = waitForAccessLine(accessLog(), "lat-2");
  ASSERT_TRUE(second.ok()) << second.error().message;
  std::string factors(second->at("attempt_list").as_array()[0].at("factors").as_string());
  double performance = factorOf(factors, "performance");
  EXPECT_LE(performance, 1 / (1 + 390.0 / 2000)) << factors;
  EXPECT_GT(performance, 0.5) << factors;
}

INSTANTIATE_TEST_SUITE_P(PassthroughAndTranslated, StreamLatency,
                         ::testing::Values(Protocol::OpenAiChat, Protocol::Anthropic),
                         [](auto const& info) { return shortName(info.param); });

}  // namespace
}  // namespace llmux::e2e
