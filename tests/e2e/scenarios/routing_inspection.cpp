// Scheduled inspection end to end (docs/operations.md, "Model lists and balances"): a model-list
// change is detected (admin API, log, metrics) across an upstream's pages; auto_update makes a
// newly listed model routable and a dropped one not, without losing a freeze; balances from an
// OpenAI-style relay and a JSON pointer become gauges, a failing endpoint reports its error; the
// admin token is required.
#include <gtest/gtest.h>

#include <boost/json/serialize.hpp>
#include <chrono>
#include <csignal>
#include <fstream>
#include <regex>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/llmux_processes.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;
using Names = std::vector<std::string>;

class RoutingInspection : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  GatewayConfig config(std::vector<ChannelSpec> channels) {
    GatewayConfig c = gatewayConfig(std::move(channels), accessLog());
    c.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
    return c;
  }

  /// PUT on one of the mock's controls (/mock/models, /mock/balance).
  void setMock(std::uint16_t mock_port, std::string path, std::string body) {
    ClientCall call{"PUT", std::move(path), {}, std::move(body)};
    call.headers.add("Content-Type", "application/json");
    auto answer = callGateway(mock_port, call);
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    ASSERT_EQ(answer->status(), 200) << answer->body;
  }

  /// POST /admin/inspection/run for `channel` → its result.
  boost::json::object run(std::uint16_t port, std::string const& channel) {
    return adminJson(port, "POST", "/admin/inspection/run", "{\"channel\":\"" + channel + "\"}",
                     Millis(10'000));
  }

  /// Whether the gateway's log shows `text` within 3 s.
  static bool logged(Server const& gateway, std::string_view text) {
    auto const until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    while (std::chrono::steady_clock::now() < until) {
      if (gateway.process->output(Stream::Stderr).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  static Names names(boost::json::value const& list) {
    Names out;
    for (auto const& item : list.as_array()) out.emplace_back(item.as_string());
    return out;
  }
};

TEST_F(RoutingInspection, AModelListChangeIsDetected) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // An Anthropic upstream whose list comes in pages of one model: three pages to follow.
  setMock(mock->port, "/mock/models",
          R"({"models":["m-fail","m-new","m-newer"],"page_size":1})");
  auto relay = channel("relay", Protocol::Anthropic, mock->baseUrl(), {"k-relay"});
  relay.models = {kModel, "m-old"};
  relay.extra_yaml = "inspection: {models: {interval: \"off\"}}\n";
  auto gateway = startGateway(config({relay}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  boost::json::object result = run(gateway->port, "relay");
  ASSERT_TRUE(result.contains("models")) << boost::json::serialize(result);
  auto const& models = result.at("models").as_object();
  EXPECT_TRUE(models.at("error").is_null()) << boost::json::serialize(models);
  EXPECT_EQ(names(models.at("upstream")), (Names{"m-fail", "m-new", "m-newer"}));
  EXPECT_EQ(names(models.at("served")), (Names{"m-fail", "m-old"}));
  EXPECT_EQ(names(models.at("added")), (Names{"m-new", "m-newer"}));
  EXPECT_EQ(names(models.at("dropped")), (Names{"m-old"}));
  EXPECT_FALSE(models.at("auto_updated").as_bool());

  // The admin list shows the same; the log has one line per change; the metrics count them.
  auto listed = callGateway(gateway->port, adminCall("GET", "/admin/inspection"));
  ASSERT_TRUE(listed.ok()) << listed.error().message;
  ASSERT_EQ(listed->status(), 200) << listed->body;
  auto doc = parseObject(listed->body);
  ASSERT_TRUE(doc.ok()) << listed->body;
  auto const& channels = doc->at("channels").as_array();
  ASSERT_EQ(channels.size(), 1u);
  EXPECT_EQ(names(channels[0].at("models").at("added")), (Names{"m-new", "m-newer"}));
  for (std::string line : {"channel relay: the upstream added model m-new",
                           "channel relay: the upstream added model m-newer",
                           "channel relay: the upstream dropped model m-old"}) {
    EXPECT_TRUE(logged(*gateway, line)) << line;
  }
  auto metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metricValue(*metrics, "llmux_channel_models", {{"channel", "relay"}}), 3.0);
  EXPECT_EQ(metricValue(*metrics, "llmux_model_list_changes_total",
                        {{"channel", "relay"}, {"change", "added"}}),
            2.0);
  EXPECT_EQ(metricValue(*metrics, "llmux_model_list_changes_total",
                        {{"channel", "relay"}, {"change", "dropped"}}),
            1.0);

  // The upstream drops another model: only that is news.
  setMock(mock->port, "/mock/models", R"({"models":["m-fail","m-new"]})");
  result = run(gateway->port, "relay");
  EXPECT_EQ(names(result.at("models").at("dropped")), (Names{"m-old"}));
  EXPECT_EQ(names(result.at("models").at("added")), (Names{"m-new"}));
  metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metricValue(*metrics, "llmux_model_list_changes_total",
                        {{"channel", "relay"}, {"change", "added"}}),
            2.0);
  EXPECT_EQ(metricValue(*metrics, "llmux_channel_models", {{"channel", "relay"}}), 2.0);

  // The admin token is required, and only channels with inspection can be run.
  auto missing = callGateway(gateway->port, adminCall("GET", "/admin/inspection", {}, ""));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status(), 401);
  auto wrong = callGateway(gateway->port,
                           adminCall("POST", "/admin/inspection/run", R"({"channel":"relay"})",
                                     "not-the-token"));
  ASSERT_TRUE(wrong.ok());
  EXPECT_EQ(wrong->status(), 403);
  auto unknown = callGateway(gateway->port,
                             adminCall("POST", "/admin/inspection/run", R"({"channel":"nope"})"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->status(), 404) << unknown->body;
  auto bad = callGateway(gateway->port, adminCall("POST", "/admin/inspection/run", "relay"));
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(bad->status(), 400) << bad->body;
}

TEST_F(RoutingInspection, AutoUpdateRoutesTheUpstreamsListAndKeepsFreezes) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  setMock(mock->port, "/mock/models", R"({"models":["m-fail","m-new"]})");
  // The mock answers 403 to a key containing "forbidden": that key is frozen for the day.
  auto banned = channel("banned", Protocol::OpenAiChat, mock->baseUrl(), {"k-forbidden"}, 10);
  auto relay = channel("relay", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"});
  relay.models = {kModel, "m-old"};
  relay.extra_yaml = "inspection: {models: {interval: \"off\", auto_update: true}}\n";
  auto gateway = startGateway(config({banned, relay}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto first = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false), "insp-1");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 200) << first->body;
  auto frozen = callGateway(gateway->port, adminCall("GET", "/admin/freezes"));
  ASSERT_TRUE(frozen.ok());
  ASSERT_NE(frozen->body.find("\"banned#0\""), std::string::npos) << frozen->body;
  auto old_before = callGateway(gateway->port,
                                clientCall(Protocol::OpenAiChat, false, "m-old"), "insp-2");
  ASSERT_TRUE(old_before.ok());
  EXPECT_EQ(old_before->status(), 200) << old_before->body;

  boost::json::object result = run(gateway->port, "relay");
  auto const& models = result.at("models").as_object();
  EXPECT_TRUE(models.at("auto_updated").as_bool()) << boost::json::serialize(models);
  EXPECT_EQ(names(models.at("added")), (Names{"m-new"}));
  EXPECT_EQ(names(models.at("dropped")), (Names{"m-old"}));
  EXPECT_TRUE(logged(*gateway, "channel relay: now serves the 2 model(s) its upstream lists"));

  // The new model is routable, the dropped one is not.
  ASSERT_TRUE(clearJournal(mock->port).ok());
  auto added = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, "m-new"),
                           "insp-3");
  ASSERT_TRUE(added.ok()) << added.error().message;
  EXPECT_EQ(added->status(), 200) << added->body;
  auto dropped = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, "m-old"),
                             "insp-4");
  ASSERT_TRUE(dropped.ok()) << dropped.error().message;
  EXPECT_EQ(dropped->status(), 404) << dropped->body;

  // The freeze of the other channel's key outlived the change: that key is not tried.
  frozen = callGateway(gateway->port, adminCall("GET", "/admin/freezes"));
  ASSERT_TRUE(frozen.ok());
  EXPECT_NE(frozen->body.find("\"banned#0\""), std::string::npos) << frozen->body;
  auto again = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false), "insp-5");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->status(), 200);
  auto journal = waitForJournal(mock->port, 2);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (Names{"k-live", "k-live"}));
}

TEST_F(RoutingInspection, BalancesBecomeGaugesAndAFailingEndpointReportsItsError) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  setMock(mock->port, "/mock/balance",
          R"({"hard_limit_usd":50,"total_usage":1250,"balance":42.5})");
  auto billing = channel("billing", Protocol::OpenAiChat, mock->baseUrl() + "/v1", {"k-a", "k-b"});
  billing.extra_yaml = "inspection: {models: \"off\", balance: openai}\n";
  auto custom = channel("custom", Protocol::OpenAiChat, mock->baseUrl(), {"k-c"});
  custom.extra_yaml =
      "inspection: {models: \"off\", balance: {path: /api/balance, pointer: /data/balance, "
      "scale: 2, min: 100}}\n";
  auto broken = channel("broken", Protocol::OpenAiChat, mock->baseUrl(), {"k-d"});
  broken.extra_yaml =
      "inspection: {models: \"off\", balance: {path: /api/missing, pointer: /data/balance}}\n";
  auto gateway = startGateway(config({billing, custom, broken}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto result = run(gateway->port, "billing");
  auto const& balances = result.at("balances").as_array();
  ASSERT_EQ(balances.size(), 2u) << boost::json::serialize(result);
  EXPECT_EQ(balances[0].at("key").as_string(), "billing#0");
  EXPECT_DOUBLE_EQ(balances[0].at("balance").to_number<double>(), 37.5);
  EXPECT_TRUE(balances[1].at("error").is_null());
  run(gateway->port, "custom");
  result = run(gateway->port, "broken");
  auto const& failed = result.at("balances").as_array();
  ASSERT_EQ(failed.size(), 1u);
  EXPECT_TRUE(failed[0].at("balance").is_null());
  EXPECT_EQ(failed[0].at("error").as_string(), "GET /api/missing answered HTTP 404");

  auto metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metricValue(*metrics, "llmux_channel_balance",
                        {{"channel", "billing"}, {"key", "billing#0"}}),
            37.5);
  EXPECT_EQ(metricValue(*metrics, "llmux_channel_balance",
                        {{"channel", "billing"}, {"key", "billing#1"}}),
            37.5);
  EXPECT_EQ(metricValue(*metrics, "llmux_channel_balance", {{"channel", "custom"}, {"key", "custom#0"}}),
            85.0);
  EXPECT_FALSE(metricValue(*metrics, "llmux_channel_balance", {{"channel", "broken"}}));
  for (std::string line : {"channel custom key custom#0: balance 85 is below the minimum 100",
                           "channel broken key broken#0: the balance could not be read: GET "
                           "/api/missing answered HTTP 404"}) {
    EXPECT_TRUE(logged(*gateway, line)) << line;
  }
}

TEST_F(RoutingInspection, AScheduledRefreshAndProbeRunWithoutBeingAsked) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // A Gemini upstream whose list comes in pages of two (the key in the query string).
  setMock(mock->port, "/mock/models", R"({"models":["m-fail","g-2","g-3"],"page_size":2})");
  auto relay = channel("relay", Protocol::Gemini, mock->baseUrl(), {"k-gem"});
  relay.extra_yaml =
      "inspection: {models: {interval: 10s}, balance: {path: /api/balance, pointer: "
      "/data/balance, interval: 10s}}\n";
  auto gateway = startGateway(config({relay}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  // The first runs come 2 to 3 s after start.
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_channel_models", {{"channel", "relay"}}, 3,
                          Millis(8000)),
            3.0);
  EXPECT_EQ(waitForMetric(gateway->port, "llmux_channel_balance",
                          {{"channel", "relay"}, {"key", "relay#0"}}, 42.5, Millis(8000)),
            42.5);
  EXPECT_TRUE(logged(*gateway, "channel relay: the upstream added model g-3"));
}

TEST_F(RoutingInspection, AnAutoUpdatedListOutlivesReloadsUntilAutoUpdateIsTurnedOff) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  setMock(mock->port, "/mock/models", R"({"models":["m-fail","m-new"]})");
  auto relay = channel("relay", Protocol::OpenAiChat, mock->baseUrl(), {"k-live"});
  relay.extra_yaml = "inspection: {models: {interval: \"off\", auto_update: true}}\n";
  GatewayConfig c = config({relay});
  std::string const path = writeTempFile(toYaml(c));
  auto gateway = startServer(gatewayOptions(binary(), path, {}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto status = [&](std::string_view model) {
    auto answer = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, false, model));
    EXPECT_TRUE(answer.ok());
    return answer.ok() ? answer->status() : 0;
  };
  auto reload = [&](GatewayConfig const& next, int nth) {
    std::ofstream(path, std::ios::trunc) << toYaml(next);
    ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
    std::size_t seen = 0;
    auto const until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (std::chrono::steady_clock::now() < until) {
      std::string const log = gateway->process->output(Stream::Stderr);
      seen = 0;
      for (auto at = log.find("configuration reloaded"); at != std::string::npos;
           at = log.find("configuration reloaded", at + 1)) {
        ++seen;
      }
      if (seen >= static_cast<std::size_t>(nth)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_GE(seen, static_cast<std::size_t>(nth));
  };

  EXPECT_EQ(status("m-new"), 404);
  auto result = run(gateway->port, "relay");
  EXPECT_TRUE(result.at("models").at("auto_updated").as_bool());
  EXPECT_EQ(status("m-new"), 200);

  // A reload of the same file keeps serving the upstream's list.
  c.channels[0].priority = 5;
  reload(c, 1);
  EXPECT_EQ(status("m-new"), 200);
  // Turning auto_update off serves the file's models again.
  c.channels[0].extra_yaml = "inspection: {models: {interval: \"off\"}}\n";
  reload(c, 2);
  EXPECT_EQ(status("m-new"), 404);
  EXPECT_EQ(status(kModel), 200);
}

}  // namespace
}  // namespace llmux::e2e
