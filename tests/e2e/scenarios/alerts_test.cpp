// SLOs and alerts end to end (docs/operations.md, "SLOs and alerts"): a gateway whose upstream
// (the mock provider, a 503 fault in the channel's headers) fails burns its error budget; the
// alert loop, on a short interval, delivers the alert once to a webhook receiver on loopback
// (a generic webhook and a signed DingTalk robot), then the resolve once the failures have left
// the window. Three gateways sharing one private Redis (or, without Redis, one private
// PostgreSQL) deliver one alert, not three. Without a webhook the alert is an error log line; a gateway key near its budget fires `budget`, with and
// without Redis; slow first tokens of successful streams fire `first_token_p95`; a reload
// applies new thresholds and targets.
//
// A missing redis-server or PostgreSQL fails the replica test (never a skip).
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <regex>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/llmux_processes.h"
#include "e2e/support/recording_upstream.h"
#include "support/postgres_server.h"
#include "support/redis_server.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using test_support::RedisServer;
using Labels = std::vector<std::pair<std::string, std::string>>;

constexpr char kFlaky[] = "flaky";    // served by a channel whose upstream answers 503
constexpr char kSteady[] = "steady";  // served by a healthy channel

/// The webhook receiver: accepts everything as the robots do.
std::unique_ptr<RecordingUpstream> startReceiver() {
  return std::make_unique<RecordingUpstream>([](RecordedRequest const&) {
    return RecordingUpstream::jsonResponse("{\"errcode\":0,\"errmsg\":\"ok\"}");
  });
}

/// The receiver's requests to `path` (the request line's target, query included).
std::vector<RecordedRequest> requestsTo(RecordingUpstream const& receiver, std::string_view path) {
  std::vector<RecordedRequest> out;
  for (auto const& request : receiver.requests()) {
    if (request.request_line.rfind("POST " + std::string(path), 0) == 0) out.push_back(request);
  }
  return out;
}

/// The generic webhook bodies received at /hook, parsed.
std::vector<boost::json::object> genericMessages(RecordingUpstream const& receiver) {
  std::vector<boost::json::object> out;
  for (auto const& request : requestsTo(receiver, "/hook ")) {
    out.push_back(boost::json::parse(request.body).as_object());
  }
  return out;
}

/// Polls until `done` or `timeout`; whether `done` came true.
template <class Done>
bool waitFor(Done done, std::chrono::milliseconds timeout = std::chrono::milliseconds(15'000)) {
  auto until = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return done();
}

class Alerts : public E2eTest {
 protected:
  /// Two channels on `mock`: one failing (503 on every request, no breaker: each request reaches
  /// it), one healthy; alerts every 300 ms over a 2 s window, five samples, a long cooldown.
  GatewayConfig config(Server const& mock, RecordingUpstream const* receiver, bool dingtalk) const {
    auto bad = channel("bad", Protocol::OpenAiChat, mock.baseUrl(), {"k-bad"});
    bad.models = {kFlaky};
    bad.headers = {{"x-mock-fault", "503"}};
    bad.extra_yaml = "breaker: off\n";
    auto good = channel("good", Protocol::OpenAiChat, mock.baseUrl(), {"k-good"});
    good.models = {kSteady};
    GatewayConfig c;
    c.gateway_keys = {{"team", kGatewayKey, "sequential"}};
    c.channels = {bad, good};
    c.extra_yaml =
        "slo: {success_rate: 0.99, first_token_p95_ms: 3000}\n"
        "alerts:\n  interval_ms: 300\n  window_ms: 2000\n  cooldown_ms: 600000\n"
        "  min_samples: 5\n  burn_rate: 10\n";
    if (receiver == nullptr) return c;  // no webhook: error log lines
    c.extra_yaml +=
        "  webhooks:\n    - {kind: webhook, url: " + yamlQuote(receiver->baseUrl() + "/hook") +
        "}\n";
    if (dingtalk) {
      c.extra_yaml += "    - {kind: dingtalk, url: " +
                      yamlQuote(receiver->baseUrl() + "/robot/send?access_token=t0k") +
                      ", secret_env: ALERT_SECRET}\n";
    }
    return c;
  }

  /// `n` requests for `model`, each answered with `status`.
  static void send(std::uint16_t port, std::string_view model, int n, int status) {
    for (int i = 0; i < n; ++i) {
      auto response = callGateway(port, clientCall(Protocol::OpenAiChat, false, model));
      ASSERT_TRUE(response.ok()) << response.error().message;
      ASSERT_EQ(response->status(), status) << response->body;
    }
  }

  static double metric(std::uint16_t port, std::string_view name, Labels const& labels = {}) {
    auto text = fetchMetrics(port);
    EXPECT_TRUE(text.ok()) << text.error().message;
    return text.ok() ? metricValue(*text, name, labels).value_or(0) : 0;
  }
};

TEST_F(Alerts, FailuresFireOnceThenResolve) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto receiver = startReceiver();
  std::string path = writeTempFile(toYaml(config(*mock, receiver.get(), true)));
  ChildOptions options = gatewayOptions(binary(), path);
  options.env.emplace_back("ALERT_SECRET", "SECtest");
  auto gateway = startServer(std::move(options));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;

  EXPECT_EQ(metric(port, "llmux_slo_target", {{"slo", "success_rate"}}), 0.99);
  EXPECT_EQ(metric(port, "llmux_slo_target", {{"slo", "first_token_p95_seconds"}}), 3);

  send(port, kFlaky, 8, 503);
  ASSERT_TRUE(waitFor([&] { return genericMessages(*receiver).size() >= 1; }))
      << "no alert within 15 s";
  auto fired = genericMessages(*receiver);
  EXPECT_EQ(fired[0].at("alert").as_string(), "error_budget_burn");
  EXPECT_EQ(fired[0].at("state").as_string(), "firing");
  EXPECT_EQ(fired[0].at("source").as_string(), "llmux");
  EXPECT_DOUBLE_EQ(fired[0].at("threshold").to_number<double>(), 10);
  EXPECT_NEAR(fired[0].at("value").to_number<double>(), 100, 1e-6);  // all failed: 1 / 0.01
  EXPECT_EQ(metric(port, "llmux_client_requests_total", {{"outcome", "failed"}}), 8);
  EXPECT_GE(metric(port, "llmux_slo_error_budget_burn_rate"), 10);
  EXPECT_EQ(metric(port, "llmux_alert_active", {{"alert", "error_budget_burn"}}), 1);

  // The DingTalk robot got the same alert, signed in its query, in its own text shape.
  auto robot = requestsTo(*receiver, "/robot/send?access_token=t0k&timestamp=");
  ASSERT_EQ(robot.size(), 1u);
  EXPECT_NE(robot[0].request_line.find("&sign="), std::string::npos) << robot[0].request_line;
  auto robot_body = boost::json::parse(robot[0].body).as_object();
  EXPECT_EQ(robot_body.at("msgtype").as_string(), "text");
  std::string content(robot_body.at("text").at("content").as_string());
  EXPECT_EQ(content.rfind("[FIRING] llmux ", 0), 0u) << content;

  // Still failing for a few more evaluations: the cooldown holds the second message back.
  send(port, kFlaky, 5, 503);
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  EXPECT_EQ(genericMessages(*receiver).size(), 1u);

  // The healthy model answers; once the failures have left the 2 s window the alert clears.
  for (int round = 0; round < 8; ++round) {
    send(port, kSteady, 3, 200);
    if (genericMessages(*receiver).size() >= 2) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  ASSERT_TRUE(waitFor([&] { return genericMessages(*receiver).size() >= 2; },
                      std::chrono::milliseconds(5000)))
      << "no resolve";
  auto all = genericMessages(*receiver);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[1].at("alert").as_string(), "error_budget_burn");
  EXPECT_EQ(all[1].at("state").as_string(), "resolved");
  EXPECT_EQ(requestsTo(*receiver, "/robot/send").size(), 2u);
  EXPECT_EQ(metric(port, "llmux_alert_messages_total",
                   {{"alert", "error_budget_burn"}, {"state", "firing"}, {"result", "sent"}}),
            2);  // one message, two webhooks
  EXPECT_EQ(metric(port, "llmux_alert_active", {{"alert", "error_budget_burn"}}), 0);
}

/// Three replicas sharing a lease: in Redis, or (without Redis) PostgreSQL's advisory lock.
class AlertReplicas : public Alerts, public ::testing::WithParamInterface<bool> {};

TEST_P(AlertReplicas, ThreeReplicasSendOneAlert) {
  bool const with_redis = GetParam();
  std::string error;
  std::unique_ptr<RedisServer> redis;
  std::unique_ptr<test_support::PostgresServer> pg;
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto receiver = startReceiver();
  GatewayConfig c = config(*mock, receiver.get(), false);
  std::string database_url;
  if (with_redis) {
    redis = RedisServer::start({}, error);
    ASSERT_NE(redis, nullptr) << error;
    c.redis =
        RedisSpec{.url = "redis://127.0.0.1:" + std::to_string(redis->port()), .timeout_ms = 1000};
  } else {
    pg = test_support::PostgresServer::start(error);
    ASSERT_TRUE(pg) << "cannot start PostgreSQL: " << error;  // never skipped
    ASSERT_TRUE(pg->createDatabase("llmux", error)) << error;
    database_url = pg->url("llmux");
    c.extra_yaml += "database: {url_env: LLMUX_DATABASE_URL}\n";
  }
  std::string path = writeTempFile(toYaml(c));
  std::vector<Server> replicas;
  for (int i = 0; i < 3; ++i) {
    ChildOptions options = gatewayOptions(binary(), path);
    std::string home = temp().path() + "/replica-" + std::to_string(i);
    std::filesystem::create_directories(home);
    options.env.emplace_back("LLMUX_HOME", home);
    if (!with_redis) options.env.emplace_back("LLMUX_DATABASE_URL", database_url);
    auto server = startServer(std::move(options));
    ASSERT_TRUE(server.ok()) << "replica " << i << ": " << server.error().message;
    replicas.push_back(*server);
  }

  // Every replica sees the outage.
  for (auto const& replica : replicas) send(replica.port, kFlaky, 8, 503);
  ASSERT_TRUE(waitFor([&] { return genericMessages(*receiver).size() >= 1; }))
      << "no alert within 15 s";
  // Give the other replicas several evaluations to (wrongly) send theirs.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto messages = genericMessages(*receiver);
  ASSERT_EQ(messages.size(), 1u) << "one alert, not one per replica";
  EXPECT_EQ(messages[0].at("state").as_string(), "firing");
  double firing = 0;
  double skipped = 0;
  for (auto const& replica : replicas) {
    EXPECT_EQ(metric(replica.port, "llmux_alert_active", {{"alert", "error_budget_burn"}}), 1);
    firing += metric(replica.port, "llmux_alert_messages_total",
                     {{"alert", "error_budget_burn"}, {"state", "firing"}, {"result", "sent"}});
    skipped += metric(replica.port, "llmux_alert_messages_total",
                      {{"alert", "error_budget_burn"}, {"state", "firing"}, {"result", "skipped"}});
  }
  EXPECT_EQ(firing, 1);
  EXPECT_EQ(skipped, 2);

  // The outage ends everywhere: one resolve, from the lease's holder.
  for (int round = 0; round < 8 && genericMessages(*receiver).size() < 2; ++round) {
    for (auto const& replica : replicas) send(replica.port, kSteady, 2, 200);
    std::this_thread::sleep_for(std::chrono::milliseconds(400));
  }
  ASSERT_TRUE(waitFor([&] { return genericMessages(*receiver).size() >= 2; },
                      std::chrono::milliseconds(5000)))
      << "no resolve";
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  messages = genericMessages(*receiver);
  ASSERT_EQ(messages.size(), 2u);
  EXPECT_EQ(messages[1].at("state").as_string(), "resolved");
  EXPECT_EQ(messages[1].at("instance"), messages[0].at("instance")) << "the same sender";
}

INSTANTIATE_TEST_SUITE_P(Lease, AlertReplicas, ::testing::Bool(),
                         [](auto const& info) { return info.param ? "Redis" : "PostgreSQL"; });

TEST_F(Alerts, WithoutAWebhookAnErrorLine) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(config(*mock, nullptr, false));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  send(gateway->port, kFlaky, 6, 503);
  auto line = gateway->process->waitForLineMatching(
      std::regex(".* ERROR +alert: \\[FIRING\\] llmux \\S+:[0-9]+ error_budget_burn: error budget "
                 "burning 100x: 6 of 6 requests failed over the last 2 s .*"),
      Millis(15'000), Stream::Stderr);
  EXPECT_TRUE(line.ok()) << line.error().message;
  EXPECT_EQ(metric(gateway->port, "llmux_alert_messages_total",
                   {{"alert", "error_budget_burn"}, {"state", "firing"}, {"result", "logged"}}),
            1);
}

TEST_F(Alerts, SlowFirstTokensFireFirstTokenP95) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto receiver = startReceiver();
  GatewayConfig c = config(*mock, receiver.get(), false);
  // The healthy channel's streams hold their first content back 800 ms; the target is 300 ms.
  c.channels[1].headers = {{"x-mock-fault", "slow-first-token=800"}};
  c.extra_yaml.replace(c.extra_yaml.find("first_token_p95_ms: 3000"), 24,
                       "first_token_p95_ms: 300");
  auto gateway = startGateway(c);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  std::vector<std::thread> clients;
  for (int i = 0; i < 6; ++i) {
    clients.emplace_back([port = gateway->port] {
      auto response = callGateway(port, clientCall(Protocol::OpenAiChat, true, kSteady));
      EXPECT_TRUE(response.ok() && response->status() == 200);
    });
  }
  for (auto& client : clients) client.join();
  ASSERT_TRUE(waitFor([&] { return genericMessages(*receiver).size() >= 1; }))
      << "no alert within 15 s";
  auto message = genericMessages(*receiver)[0];
  EXPECT_EQ(message.at("alert").as_string(), "first_token_p95");
  EXPECT_EQ(message.at("state").as_string(), "firing");
  EXPECT_DOUBLE_EQ(message.at("threshold").to_number<double>(), 0.3);
  double p95 = message.at("value").to_number<double>();
  EXPECT_GT(p95, 0.75) << "the client waited for the first content, not the stream's head";
  EXPECT_LE(p95, 1.0);  // interpolated inside the (0.75, 1] bucket
  EXPECT_EQ(metric(gateway->port, "llmux_client_first_token_seconds_count"), 6);
}

TEST_F(Alerts, AReloadAppliesNewThresholdsAndTargets) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto receiver = startReceiver();
  GatewayConfig c = config(*mock, receiver.get(), false);
  std::string const relaxed = "burn_rate: 1000";  // 100x, every request failing, is under it
  c.extra_yaml.replace(c.extra_yaml.find("burn_rate: 10"), 13, relaxed);
  std::string path = writeTempFile(toYaml(c));
  auto gateway = startServer(gatewayOptions(binary(), path));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  send(gateway->port, kFlaky, 8, 503);
  std::this_thread::sleep_for(std::chrono::milliseconds(900));
  EXPECT_EQ(genericMessages(*receiver).size(), 0u);

  c.extra_yaml.replace(c.extra_yaml.find(relaxed), relaxed.size(), "burn_rate: 10");
  c.extra_yaml.replace(c.extra_yaml.find("success_rate: 0.99"), 18, "success_rate: 0.95");
  std::ofstream(path, std::ios::trunc) << toYaml(c);
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  ASSERT_TRUE(gateway->process
                  ->waitForLineMatching(std::regex(".*configuration reloaded.*"), Millis(5000),
                                        Stream::Stderr)
                  .ok());
  send(gateway->port, kFlaky, 2, 503);  // still within the window
  ASSERT_TRUE(waitFor([&] { return genericMessages(*receiver).size() >= 1; }))
      << "no alert after the reload";
  auto message = genericMessages(*receiver)[0];
  EXPECT_EQ(message.at("alert").as_string(), "error_budget_burn");
  EXPECT_NEAR(message.at("value").to_number<double>(), 20, 1e-6);  // 1 / (1 - 0.95)
  EXPECT_EQ(metric(gateway->port, "llmux_slo_target", {{"slo", "success_rate"}}), 0.95);
}

/// A gateway key at 80 % of its daily token budget fires `budget`, read from this process's own
/// windows or, with Redis, from Redis where the replicas keep the spending.
class BudgetAlerts : public Alerts, public ::testing::WithParamInterface<bool> {};

TEST_P(BudgetAlerts, AKeyNearItsBudget) {
  bool const with_redis = GetParam();
  std::unique_ptr<RedisServer> redis;
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto receiver = startReceiver();
  GatewayConfig c = config(*mock, receiver.get(), false);
  ClientLimitsSpec limits;
  limits.daily_tokens = 100;  // each answer of the mock uses 34 tokens
  c.gateway_keys[0].limits = limits;
  if (with_redis) {
    std::string error;
    redis = RedisServer::start({}, error);
    ASSERT_NE(redis, nullptr) << error;
    c.redis =
        RedisSpec{.url = "redis://127.0.0.1:" + std::to_string(redis->port()), .timeout_ms = 1000};
  }
  auto gateway = startGateway(c);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  send(gateway->port, kSteady, 2, 200);  // 68 %: nothing
  std::this_thread::sleep_for(std::chrono::milliseconds(700));
  EXPECT_EQ(genericMessages(*receiver).size(), 0u);
  send(gateway->port, kSteady, 1, 200);  // 102 %
  ASSERT_TRUE(waitFor([&] { return genericMessages(*receiver).size() >= 1; }))
      << "no budget alert within 15 s";
  auto message = genericMessages(*receiver)[0];
  EXPECT_EQ(message.at("alert").as_string(), "budget");
  EXPECT_EQ(message.at("subject").as_string(), "team/daily_tokens");
  EXPECT_EQ(message.at("state").as_string(), "firing");
  EXPECT_NEAR(message.at("value").to_number<double>(), 1.02, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(Alerts, BudgetAlerts, ::testing::Values(false, true),
                         [](auto const& info) { return info.param ? "Redis" : "Local"; });

}  // namespace
}  // namespace llmux::e2e
