// Resilience end to end, gateway-key limits (docs/resilience.md): refused with a 429 in the
// client's shape before any upstream is touched.
#include <gtest/gtest.h>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/resilience_fixture.h"
#include "e2e/scenarios/resilience_support.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace resilience;
using namespace resilience_scenarios;
using routing_scenarios::adminCall;
using routing_scenarios::kAdminToken;
using Labels = std::vector<std::pair<std::string, std::string>>;

// ---------------------------------------------------------------------------------------------
// 6. Gateway-key limits: refused with a 429 in the client's shape before any upstream is
// touched.

GatewayConfig withLimits(GatewayConfig config, ClientLimitsSpec limits) {
  config.gateway_keys = {{"team", kGatewayKey, "sequential", limits}};
  return config;
}

TEST_F(Resilience, GatewayKeyRpmRefusesTheFourthRequestInEveryProtocol) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto only = channel("only", Protocol::OpenAiChat, mock->baseUrl(), {"k-o"}, 0);
  auto gateway = startGateway(withLimits(config({only}), {.rpm = 3}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto call = clientCall(Protocol::OpenAiChat, false);
  for (int i = 1; i <= 3; ++i) expectServed(gateway->port, call, "rpm-" + std::to_string(i));
  for (Protocol protocol : kAllProtocols) {
    SCOPED_TRACE(shortName(protocol));
    auto response = callGateway(gateway->port, clientCall(protocol, false));
    ASSERT_TRUE(response.ok()) << response.error().message;
    EXPECT_EQ(response->status(), 429) << response->body;
    auto seconds = retryAfterSeconds(*response);
    ASSERT_TRUE(seconds.has_value()) << "retry-after: '" << response->header("retry-after") << "'";
    EXPECT_GE(*seconds, 1);
    EXPECT_LE(*seconds, 60);
    auto message = errorMessageOf(protocol, 429, response->body);
    ASSERT_TRUE(message.ok()) << message.error().message;
    auto doc = parseObject(response->body);
    ASSERT_TRUE(doc.ok());
    auto const& error = doc->at("error").as_object();
    if (protocol == Protocol::Anthropic) {
      EXPECT_EQ(error.at("type").as_string(), "rate_limit_error");
    } else if (protocol == Protocol::Gemini) {
      EXPECT_EQ(error.at("status").as_string(), "RESOURCE_EXHAUSTED");
    }
  }
  auto journal = fetchJournal(mock->port);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->size(), 3u) << "a refused request reached the upstream";
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_limit_rejections_total",
                          {{"key", "team"}, {"limit", "rpm"}}, 4),
            4);
}

// An OpenAI Chat stream without stream_options.include_usage reports no usage: the key's token
// budget is charged an estimate (prompt estimate + the content relayed), marked as estimated, so
// a tenant with a budget cannot stream for free.
TEST_F(Resilience, GatewayKeyTokenBudgetIsChargedForStreamsWithoutUsage) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto only = channel("only", Protocol::OpenAiChat, mock->baseUrl(), {"k-o"}, 0);
  auto gateway = startGateway(withLimits(config({only}), {.daily_tokens = 60}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, true);
  ASSERT_EQ(call.body.find("include_usage"), std::string::npos);

  int served = 0;
  std::optional<Response> refused;
  for (int i = 1; i <= 10 && !refused; ++i) {
    auto response = callGateway(gateway->port, call, "budget-" + std::to_string(i));
    ASSERT_TRUE(response.ok()) << response.error().message;
    if (response->status() == 429) {
      refused = std::move(*response);
    } else {
      EXPECT_EQ(response->status(), 200) << response->body;
      EXPECT_EQ(response->body.find("\"usage\":{"), std::string::npos) << "the upstream sent usage";
      ++served;
    }
  }
  ASSERT_TRUE(refused.has_value()) << "ten streams without usage did not use up 60 tokens";
  EXPECT_GE(served, 1);
  EXPECT_LE(served, 4);
  auto message = errorMessageOf(Protocol::OpenAiChat, 429, refused->body);
  ASSERT_TRUE(message.ok()) << message.error().message;
  EXPECT_NE(message->find("daily_tokens"), std::string::npos) << *message;

  auto line = waitForAccessLine(accessLog(), "budget-1");
  ASSERT_TRUE(line.ok()) << line.error().message;
  ASSERT_TRUE(line->at("usage").is_object()) << boost::json::serialize(*line);
  auto const& usage = line->at("usage").as_object();
  EXPECT_TRUE(usage.at("estimated").as_bool());
  EXPECT_EQ(usage.at("input").to_number<std::int64_t>(),
            static_cast<std::int64_t>(call.body.size() / 4))
      << "the prompt estimate";
  EXPECT_GT(usage.at("output").to_number<std::int64_t>(), 0) << "the content relayed";
  EXPECT_EQ(journalSize(mock->port, static_cast<std::size_t>(served)),
            static_cast<std::size_t>(served));
}

TEST_F(Resilience, GatewayKeyConcurrencyRefusesTheSecondRequestInFlight) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto only = channel("only", Protocol::OpenAiChat, mock->baseUrl(), {"k-o"}, 0);
  only.headers = {{"x-mock-fault", "slow-first-byte=500"}};
  auto gateway = startGateway(withLimits(config({only}), {.concurrency = 1}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::Anthropic, false);

  // Two requests at once: whichever the gateway admits first holds the only slot for 500 ms.
  Result<Response> first = makeError(ErrorKind::Internal, "not run");
  std::thread in_flight([&] { first = callGateway(gateway->port, call, "conc-1"); });
  std::this_thread::sleep_for(Millis(150));
  auto second = callGateway(gateway->port, call, "conc-2");
  in_flight.join();
  ASSERT_TRUE(first.ok()) << first.error().message;
  ASSERT_TRUE(second.ok()) << second.error().message;
  std::multiset<int> statuses = {first->status(), second->status()};
  ASSERT_EQ(statuses, (std::multiset<int>{200, 429})) << first->body << "\n" << second->body;
  Response const& refused = first->status() == 429 ? *first : *second;
  EXPECT_TRUE(retryAfterSeconds(refused).has_value())
      << "retry-after: '" << refused.header("retry-after") << "'";
  auto message = errorMessageOf(Protocol::Anthropic, 429, refused.body);
  EXPECT_TRUE(message.ok()) << message.error().message;
  EXPECT_EQ(journalSize(mock->port, 1), 1u);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_limit_rejections_total",
                          {{"key", "team"}, {"limit", "concurrency"}}, 1),
            1);
  // The slot is given back when the first request ends.
  expectServed(gateway->port, call, "conc-3");
  EXPECT_EQ(journalSize(mock->port, 2), 2u);
}

}  // namespace
}  // namespace llmux::e2e
