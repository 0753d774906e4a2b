// Freeze rules end to end: a 403 freezes the key until the end of the UTC day, the freeze survives
// a restart (SQLite), the admin API lists and lifts it, and a lifted key is tried again at once.
#include <gtest/gtest.h>

#include <chrono>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

class RoutingFreezes : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  GatewayConfig config(std::string const& mock_url) {
    // The mock answers 403 to a key containing "forbidden".
    auto banned = channel("banned", Protocol::OpenAiChat, mock_url, {"k-forbidden"}, 10);
    auto live = channel("live", Protocol::OpenAiChat, mock_url, {"k-live"}, 0);
    GatewayConfig c = gatewayConfig({banned, live}, accessLog());
    c.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
    return c;
  }

  /// GET /admin/freezes → the list.
  boost::json::array freezes(std::uint16_t port) {
    auto answer = callGateway(port, adminCall("GET", "/admin/freezes"));
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    if (!answer.ok()) return {};
    EXPECT_EQ(answer->status(), 200) << answer->body;
    auto doc = parseObject(answer->body);
    EXPECT_TRUE(doc.ok()) << answer->body;
    if (!doc.ok()) return {};
    return doc->at("freezes").as_array();
  }
};

/// 00:00 UTC after `now`, in milliseconds since the epoch.
double nextUtcMidnightMs(double now_ms) {
  constexpr double kDayMs = 86'400'000.0;
  return (std::floor(now_ms / kDayMs) + 1) * kDayMs;
}

TEST_F(RoutingFreezes, ForbiddenKeyIsFrozenUntilTheEndOfTheDaySurvivesARestartAndIsLifted) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(config(mock->baseUrl()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto call = clientCall(Protocol::OpenAiChat, false);

  auto first = callGateway(gateway->port, call, "frz-1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 200);
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-forbidden", "k-live"}));
  ASSERT_TRUE(clearJournal(mock->port).ok());

  auto listed = freezes(gateway->port);
  ASSERT_EQ(listed.size(), 1u);
  auto const& freeze = listed[0].as_object();
  EXPECT_EQ(freeze.at("object").as_string(), "key");
  EXPECT_EQ(freeze.at("period").as_string(), "today");
  EXPECT_EQ(freeze.at("channel").as_string(), "banned");
  EXPECT_EQ(freeze.at("key").as_string(), "banned#0");
  EXPECT_EQ(freeze.at("rule").as_string(), "forbidden");
  // Never the secret, anywhere in the admin answer.
  EXPECT_EQ(boost::json::serialize(listed).find("k-forbidden"), std::string::npos);
  std::string id(freeze.at("id").as_string());
  std::string until(freeze.at("until").as_string());
  // "YYYY-MM-DDT00:00:00Z" of the next UTC day.
  auto midnight = static_cast<std::time_t>(nextUtcMidnightMs(wallNowMs()) / 1000);
  std::tm tm{};
  gmtime_r(&midnight, &tm);
  char expected[32];
  std::strftime(expected, sizeof expected, "%Y-%m-%dT00:00:00", &tm);
  EXPECT_EQ(until.substr(0, 19), expected) << until;

  // Frozen: not tried again.
  auto second = callGateway(gateway->port, call, "frz-2");
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(second->status(), 200);
  journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), std::vector<std::string>{"k-live"});
  ASSERT_TRUE(clearJournal(mock->port).ok());
  auto metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metricValue(*metrics, "llmux_freezes_active", {{"object", "key"}, {"period", "today"}}), 1.0);

  // A restart keeps the freeze.
  gateway->process->kill();
  auto restarted = startGateway(config(mock->baseUrl()));
  ASSERT_TRUE(restarted.ok()) << restarted.error().message;
  auto third = callGateway(restarted->port, call, "frz-3");
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third->status(), 200);
  journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), std::vector<std::string>{"k-live"});
  ASSERT_TRUE(clearJournal(mock->port).ok());
  ASSERT_EQ(freezes(restarted->port).size(), 1u);

  // Lifted: gone from the list, and the key is tried first again at once (no pause lingers).
  auto lifted = callGateway(restarted->port, adminCall("DELETE", "/admin/freezes/" + id));
  ASSERT_TRUE(lifted.ok()) << lifted.error().message;
  EXPECT_EQ(lifted->status(), 204) << lifted->body;
  EXPECT_TRUE(freezes(restarted->port).empty());
  auto again = callGateway(restarted->port, adminCall("DELETE", "/admin/freezes/" + id));
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status(), 404);
  auto fourth = callGateway(restarted->port, call, "frz-4");
  ASSERT_TRUE(fourth.ok()) << fourth.error().message;
  journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-forbidden", "k-live"}));
}

TEST_F(RoutingFreezes, AdminRoutesNeedTheAdminTokenNeverAGatewayKey) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(config(mock->baseUrl()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto missing = callGateway(gateway->port, adminCall("GET", "/admin/freezes", "", ""));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status(), 401) << missing->body;
  auto with_gateway_key = callGateway(gateway->port, adminCall("GET", "/admin/freezes", "", kGatewayKey));
  ASSERT_TRUE(with_gateway_key.ok());
  EXPECT_EQ(with_gateway_key->status(), 403) << with_gateway_key->body;
  auto ok = callGateway(gateway->port, adminCall("GET", "/admin/freezes"));
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->status(), 200) << ok->body;
}

TEST_F(RoutingFreezes, AdminApiIsOffWithoutAnAdminToken) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(gatewayConfig(
      {channel("live", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"})}, accessLog()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (auto const& token : {std::string(kAdminToken), std::string(kGatewayKey)}) {
    auto answer = callGateway(gateway->port, adminCall("GET", "/admin/freezes", "", token));
    ASSERT_TRUE(answer.ok());
    EXPECT_EQ(answer->status(), 404) << answer->body;
  }
}

}  // namespace
}  // namespace llmux::e2e
