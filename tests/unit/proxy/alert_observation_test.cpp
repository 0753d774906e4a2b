#include "proxy/alert_observation.h"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>

#include "config/loader.h"
#include "racing/racing_state.h"
#include "routing/breakers.h"
#include "routing/freezes.h"
#include "routing/router_state.h"
#include "shared_state/shared_limits.h"
#include "telemetry/access_log.h"
#include "telemetry/metrics.h"
#include "telemetry/request_metrics.h"

namespace llmux::proxy {
namespace {

// Model m is served by channels a and b; model solo by a alone. Key team has budgets.
constexpr char kYaml[] = R"(
gateway_keys:
  - {name: team, key: gw-1, limits: {daily_tokens: 1000, monthly_cost_usd: 10}}
  - {name: free, key: gw-2}
channels:
  - {name: a, protocol: openai-chat, base_url: "https://a.example", keys: [ka], models: [m, solo]}
  - {name: b, protocol: openai-chat, base_url: "https://b.example", keys: [kb], models: [m]}
)";

config::SettingsPtr settingsOf(std::string_view yaml) {
  auto outcome = config::parseSettings(yaml, [](std::string_view) { return std::nullopt; });
  EXPECT_TRUE(outcome.ok()) << config::formatIssues(outcome.issues);
  return outcome.settings;
}

std::unique_ptr<telemetry::AccessLog> offLog() {
  auto log = telemetry::AccessLog::open("off");
  EXPECT_TRUE(log.ok());
  return std::move(*log);
}

/// The services observeGateway reads, over real tables and a manual clock.
struct Gateway {
  ManualTimeSource clock;
  telemetry::MetricsRegistry registry;
  telemetry::RequestMetrics metrics{registry};
  std::unique_ptr<telemetry::AccessLog> access_log = offLog();
  routing::KeyHealth key_health{clock};
  routing::Rotation rotation;
  routing::RouterState router_state{clock};
  routing::FreezeTable freezes{clock};
  routing::BreakerBoard breakers;
  shared_state::SharedLimits limits{clock, std::nullopt};
  ConfigHolder config{std::make_shared<const routing::Catalog>(settingsOf(kYaml))};
  std::atomic<bool> draining{false};
  AuthFailureLimiter auth_failures{clock};
  racing::RacingState racing{config::RacingSettings{}};
  routing::VideoJobTable video_jobs{clock};
  GatewayServices services{config,   key_health, rotation, router_state,  freezes,
                           breakers, limits,     registry, metrics,       *access_log,
                           nullptr,  clock,      draining, auth_failures, ListenerPlan{},
                           racing,   video_jobs};

  void openBreaker(std::string_view channel, std::string_view model) {
    for (int i = 0; i < 5; ++i) {
      breakers.record(channel, model, config::BreakerSettings{},
                      routing::AttemptSignal::CountedFailure, false, clock.now());
    }
  }
};

/// One admitted request of `key` that used `tokens` and cost `cost`.
net::Task<void> spend(shared_state::SharedLimits& limits, std::string key,
                      config::ClientLimits client_limits, std::int64_t tokens, double cost) {
  auto ticket = co_await limits.admitClient(key, client_limits, 0);
  co_await limits.finishClient(key, client_limits, std::move(ticket), 0, tokens, cost);
}

RequestRecord answered(int status, std::string model = "m") {
  RequestRecord r;
  r.route = "/v1/chat/completions";
  r.client_protocol = "openai-chat";
  r.model = std::move(model);
  r.status = status;
  return r;
}

TEST(AlertObservation, CountsFromTheRegistry) {
  Gateway g;
  RequestRecord fast = answered(200);
  fast.stream = true;
  fast.first_byte_ms = 800;
  g.metrics.observe(fast);
  g.metrics.observe(answered(503));
  g.metrics.observe(answered(429));
  RequestRecord health;  // not a model route: in no count
  health.route = "/healthz";
  health.status = 200;
  g.metrics.observe(health);

  alerts::Observation o = observeGateway(g.services);
  EXPECT_EQ(o.counts.success, 1u);
  EXPECT_EQ(o.counts.failed, 2u);  // the 503, and a 429 not from the key's own limits
  EXPECT_EQ(o.counts.answers, 3u);
  EXPECT_EQ(o.counts.answers_429, 1u);
  ASSERT_EQ(o.counts.first_token.size(), telemetry::kClientSecondsBuckets.size() + 1);
  EXPECT_EQ(o.counts.first_token[4], 1u);  // (0.75, 1]
  EXPECT_EQ(o.counts.records_lost, 0u);
  EXPECT_FALSE(o.redis_configured);
}

TEST(AlertObservation, AModelIsDownWhenEveryChannelServingItIs) {
  Gateway g;
  EXPECT_TRUE(observeGateway(g.services).models_down.empty());
  g.openBreaker("a", "m");
  alerts::Observation o = observeGateway(g.services);
  EXPECT_EQ(o.breakers_not_closed, std::vector<std::string>{"a/m"});
  EXPECT_TRUE(o.models_down.empty()) << "b still serves m";
  g.openBreaker("b", "m");
  g.openBreaker("a", "solo");
  o = observeGateway(g.services);
  EXPECT_EQ(o.breakers_not_closed, (std::vector<std::string>{"a/m", "a/solo", "b/m"}));
  EXPECT_EQ(o.models_down, (std::vector<std::string>{"m", "solo"}));
}

TEST(AlertObservation, BudgetsFromThisProcessWithoutRedis) {
  Gateway g;
  auto const& team = g.config.current()->settings().gateway_keys[0];
  boost::asio::io_context io;
  boost::asio::co_spawn(io, spend(g.limits, team.name, team.limits, 850, 2.5),
                        boost::asio::detached);
  io.run();
  alerts::Observation o = observeGateway(g.services);
  ASSERT_TRUE(o.budgets);
  ASSERT_EQ(o.budgets->size(), 2u);  // team's two budgets; free has none
  EXPECT_EQ((*o.budgets)[0].key, "team");
  EXPECT_EQ((*o.budgets)[0].budget, "daily_tokens");
  EXPECT_DOUBLE_EQ((*o.budgets)[0].limit, 1000);
  EXPECT_DOUBLE_EQ((*o.budgets)[0].used, 850);
  EXPECT_EQ((*o.budgets)[1].budget, "monthly_cost_usd");
  EXPECT_DOUBLE_EQ((*o.budgets)[1].limit, 10);
  EXPECT_DOUBLE_EQ((*o.budgets)[1].used, 2.5);
  EXPECT_TRUE(o.budgets_in_redis.empty());
}

}  // namespace
}  // namespace llmux::proxy
