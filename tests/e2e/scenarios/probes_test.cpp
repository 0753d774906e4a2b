// Health probes end to end (docs/operations.md#health-probes): every built-in scenario passes
// against the mock provider in every protocol; a passing probe lifts a 403 freeze (not a
// `forever` one) and routing uses the key again; a failing probe keeps the freeze and says why;
// the scheduler probes by itself; the admin routes need the admin token.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <fstream>
#include <regex>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/llmux_processes.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

/// The model whose every request the mock answers with a 403.
constexpr char kForbiddenModel[] = "fault-403";

class Probes : public E2eTest {
 protected:
  std::string accessLog() { return temp().path() + "/access.log"; }

  /// "flaky" (tried first) and "live"; the client's fault spec makes the first attempt a 403.
  GatewayConfig freezeConfig(std::string const& mock_url, std::string const& extra_yaml = {}) {
    auto flaky = channel("flaky", Protocol::OpenAiChat, mock_url, {"k-flaky"}, 10);
    flaky.models = {kModel, kForbiddenModel};
    auto live = channel("live", Protocol::OpenAiChat, mock_url, {"k-live"}, 0);
    GatewayConfig c = gatewayConfig({flaky, live}, accessLog());
    c.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n" + extra_yaml;
    return c;
  }

  /// POST /admin/probes/run → its status and parsed answer.
  std::pair<int, boost::json::object> runProbe(std::uint16_t port, std::string const& body) {
    auto answer = callGateway(port, adminCall("POST", "/admin/probes/run", body), {}, Millis(15000));
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    if (!answer.ok()) return {0, {}};
    auto doc = parseObject(answer->body);
    EXPECT_TRUE(doc.ok()) << answer->body;
    return {answer->status(), doc.ok() ? *doc : boost::json::object{}};
  }

  boost::json::array listed(std::uint16_t port, std::string const& what) {
    auto answer = callGateway(port, adminCall("GET", "/admin/" + what));
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    if (!answer.ok()) return {};
    EXPECT_EQ(answer->status(), 200) << answer->body;
    auto doc = parseObject(answer->body);
    EXPECT_TRUE(doc.ok()) << answer->body;
    return doc.ok() ? doc->at(what).as_array() : boost::json::array{};
  }

  /// The keys one plain client request is sent with, once the `pending` journal entries of what
  /// came before were recorded (the mock writes an entry as its answer ends) and cleared.
  std::vector<std::string> keysOfNextRequest(std::uint16_t gateway_port, std::uint16_t mock_port,
                                             std::size_t pending, std::string_view request_id) {
    EXPECT_TRUE(waitForJournal(mock_port, pending).ok());
    EXPECT_TRUE(clearJournal(mock_port).ok());
    auto answer = callGateway(gateway_port, clientCall(Protocol::OpenAiChat, false), request_id);
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    if (answer.ok()) EXPECT_EQ(answer->status(), 200) << answer->body;
    auto journal = waitForJournal(mock_port, 1);
    EXPECT_TRUE(journal.ok()) << journal.error().message;
    return journal.ok() ? keysOf(*journal) : std::vector<std::string>{};
  }

  /// A client request whose first upstream attempt gets a 403 (the next succeeds): the first
  /// channel's key is frozen by the 403 rule, the request answered by "live".
  void freezeFlaky(std::uint16_t gateway_port, std::uint16_t mock_port) {
    auto call = clientCall(Protocol::OpenAiChat, false);
    call.headers.add("x-mock-fault", "fail-nth=1:403");
    auto answer = callGateway(gateway_port, call, "probe-freeze");
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status(), 200) << answer->body;
    auto journal = waitForJournal(mock_port, 2);
    ASSERT_TRUE(journal.ok()) << journal.error().message;
    EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-flaky", "k-live"}));
    ASSERT_TRUE(clearJournal(mock_port).ok());
  }
};

TEST_F(Probes, EveryScenarioPassesAgainstTheMockInEveryProtocol) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::vector<ChannelSpec> channels;
  for (Protocol protocol : kAllProtocols) {
    auto spec = channel(shortName(protocol), protocol, mock->baseUrl(), {"k-" + shortName(protocol)});
    if (protocol == Protocol::OpenAiChat) {
      spec.models = {kModel, "gpt-image-1", "sora-2", "tts-1"};
      spec.extra_yaml = "media: {images: true, videos: true, speech: true}\n";
    }
    channels.push_back(std::move(spec));
  }
  GatewayConfig config = gatewayConfig(channels, accessLog());
  config.extra_yaml += std::string("admin_token: ") + kAdminToken + "\nprobes: {max_concurrent: 1}\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  std::size_t probes = 0;
  for (Protocol protocol : kAllProtocols) {
    for (std::string scenario : {"chat", "stream", "tools", "thinking", "multi_turn"}) {
      auto [status, result] = runProbe(gateway->port, R"({"channel":")" + shortName(protocol) +
                                                          R"(","key":0,"scenario":")" + scenario + "\"}");
      ++probes;
      EXPECT_EQ(status, 200);
      EXPECT_TRUE(result["pass"].as_bool()) << shortName(protocol) << " " << scenario << ": "
                                            << boost::json::serialize(result);
      EXPECT_EQ(result["status"].as_int64(), 200);
      EXPECT_EQ(result["key"].as_string(), shortName(protocol) + "#0");
      EXPECT_EQ(result["model"].as_string(), kModel);
    }
  }
  for (auto [scenario, model] : {std::pair{"image", "gpt-image-1"}, {"video", "sora-2"}, {"speech", "tts-1"}}) {
    auto [status, result] = runProbe(gateway->port, std::string(R"({"channel":"chat","key":"chat#0","model":")") +
                                                        model + R"(","scenario":")" + scenario + "\"}");
    ++probes;
    EXPECT_EQ(status, 200);
    EXPECT_TRUE(result["pass"].as_bool()) << scenario << ": " << boost::json::serialize(result);
  }
  // What went upstream is what a client of each protocol sends, to the protocol's own path.
  auto journal = waitForJournal(mock->port, probes);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  std::vector<std::string> paths;
  for (auto const& entry : *journal) paths.push_back(entry.path);
  auto count = [&](std::string_view prefix) {
    return std::count_if(paths.begin(), paths.end(), [&](auto const& p) { return p.starts_with(prefix); });
  };
  EXPECT_EQ(count("/v1/chat/completions"), 5);
  EXPECT_EQ(count("/v1/responses"), 5);
  EXPECT_EQ(count("/v1/messages"), 5);
  EXPECT_EQ(count("/v1beta/models/"), 5);
  EXPECT_EQ(count("/v1/images/generations"), 1);
  EXPECT_EQ(count("/v1/videos"), 1);
  EXPECT_EQ(count("/v1/audio/speech"), 1);

  EXPECT_EQ(listed(gateway->port, "probes").size(), probes);
  auto metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metricValue(*metrics, "llmux_probes_total", {{"result", "pass"}}), double(probes));
  EXPECT_EQ(metricValue(*metrics, "llmux_probes_total", {{"result", "fail"}}), std::nullopt);
  EXPECT_EQ(metricValue(*metrics, "llmux_probe_last_result",
                        {{"channel", "anthropic"}, {"scenario", "thinking"}}),
            1.0);
}

TEST_F(Probes, AProbeIsBuiltLikeRealTrafficWithThePresetAndTheChannelsHeaders) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto spec = channel("codex", Protocol::OpenAiResponses, mock->baseUrl(), {"k-codex"});
  spec.models = {kModel, "gpt-5-codex"};
  spec.model_map = {{"gpt-5-codex", "gpt-5.1-codex"}};
  spec.headers = {{"x-relay-tenant", "team-a"}};
  spec.extra_yaml = "probes: {models: [gpt-5-codex], preset: codex-cli, scenarios: [tools]}\n";
  GatewayConfig config = gatewayConfig({spec}, accessLog());
  config.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto [status, result] = runProbe(gateway->port, R"({"channel":"codex"})");
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(result["pass"].as_bool()) << boost::json::serialize(result);
  EXPECT_EQ(result["model"].as_string(), "gpt-5-codex");
  EXPECT_EQ(result["scenario"].as_string(), "tools");
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u);
  JournalEntry const& sent = journal->front();
  EXPECT_EQ(sent.path, "/v1/responses");
  EXPECT_EQ(sent.header("authorization"), "Bearer k-codex");
  EXPECT_EQ(sent.header("x-relay-tenant"), "team-a");   // the channel's headers
  EXPECT_EQ(sent.header("originator"), "codex_exec");   // the preset's
  EXPECT_TRUE(sent.header("x-request-id").starts_with("probe-")) << sent.header("x-request-id");
  auto body = parseObject(sent.body);
  ASSERT_TRUE(body.ok()) << sent.body;
  EXPECT_EQ(body->at("model").as_string(), "gpt-5.1-codex");  // the model_map's upstream name
}

TEST_F(Probes, CustomScenariosFromAFileAreSentAndJudgedByTheirRule) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string const file = writeTempFile(R"(scenarios:
  - name: text-block
    protocol: anthropic
    body: {max_tokens: 32, messages: [{role: user, content: "Say hi"}], metadata: {user_id: probe}}
    expect: {status: 2xx, pointer: /content/0/type, equals: text}
  - name: wants-a-tool
    protocol: anthropic
    body: {max_tokens: 32, messages: [{role: user, content: "Say hi"}]}
    expect: {pointer: /content/0/type, equals: tool_use}
)");
  auto spec = channel("claude", Protocol::Anthropic, mock->baseUrl(), {"k-claude"});
  spec.extra_yaml = "probes: {scenarios: [text-block, wants-a-tool]}\n";
  GatewayConfig config = gatewayConfig({spec}, accessLog());
  config.extra_yaml += std::string("admin_token: ") + kAdminToken + "\nprobes: {scenarios_file: " +
                       yamlQuote(file) + "}\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto [status, passed] = runProbe(gateway->port, R"({"channel":"claude","scenario":"text-block"})");
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(passed["pass"].as_bool()) << boost::json::serialize(passed);
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(journal->front().path, "/v1/messages");
  auto body = parseObject(journal->front().body);
  ASSERT_TRUE(body.ok()) << journal->front().body;
  EXPECT_EQ(body->at("model").as_string(), kModel);
  EXPECT_EQ(body->at("metadata").at("user_id").as_string(), "probe");

  auto [status2, failed] = runProbe(gateway->port, R"({"channel":"claude","scenario":"wants-a-tool"})");
  EXPECT_EQ(status2, 200);
  EXPECT_FALSE(failed["pass"].as_bool());
  EXPECT_EQ(failed["reason"].as_string(), "status 200: the value at /content/0/type is not the expected one");
}

TEST_F(Probes, APassingProbeLiftsTheFreezeAndRoutingUsesTheKeyAgain) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(freezeConfig(mock->baseUrl()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  freezeFlaky(gateway->port, mock->port);
  auto frozen = listed(gateway->port, "freezes");
  ASSERT_EQ(frozen.size(), 1u);
  std::string freeze_id(frozen[0].at("id").as_string());
  EXPECT_EQ(frozen[0].at("period").as_string(), "today");

  auto [status, result] = runProbe(gateway->port, R"({"channel":"flaky","key":"flaky#0"})");
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(result["pass"].as_bool()) << boost::json::serialize(result);
  EXPECT_EQ(result["scenario"].as_string(), "chat");
  auto const& lifted = result["lifted"].as_object();
  ASSERT_EQ(lifted.at("freezes").as_array().size(), 1u);
  EXPECT_EQ(lifted.at("freezes").as_array()[0].as_string(), freeze_id);
  EXPECT_EQ(lifted.at("freezes_kept").as_int64(), 0);
  EXPECT_TRUE(listed(gateway->port, "freezes").empty());

  // The probe itself went upstream with the frozen key; then routing takes the key again.
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), std::vector<std::string>{"k-flaky"});
  EXPECT_EQ(keysOfNextRequest(gateway->port, mock->port, 1, "probe-after"), std::vector<std::string>{"k-flaky"});
}

TEST_F(Probes, APassingProbeEndsAKeyPause) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(freezeConfig(mock->baseUrl()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  // A 401 benches the key for 10 minutes (a pause, not a freeze).
  auto call = clientCall(Protocol::OpenAiChat, false);
  call.headers.add("x-mock-fault", "fail-nth=1:401");
  auto answer = callGateway(gateway->port, call, "probe-pause");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 200) << answer->body;
  EXPECT_TRUE(listed(gateway->port, "freezes").empty());
  EXPECT_EQ(keysOfNextRequest(gateway->port, mock->port, 2, "probe-benched"), std::vector<std::string>{"k-live"});

  auto [status, result] = runProbe(gateway->port, R"({"channel":"flaky","scenario":"stream"})");
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(result["pass"].as_bool()) << boost::json::serialize(result);
  EXPECT_TRUE(result["lifted"].as_object().at("pause").as_bool());
  EXPECT_EQ(keysOfNextRequest(gateway->port, mock->port, 1, "probe-back"), std::vector<std::string>{"k-flaky"});
}

TEST_F(Probes, AFailingProbeKeepsTheFreezeAndSaysWhy) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(freezeConfig(mock->baseUrl()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  freezeFlaky(gateway->port, mock->port);

  auto [status, result] = runProbe(
      gateway->port, std::string(R"({"channel":"flaky","key":0,"model":")") + kForbiddenModel + "\"}");
  EXPECT_EQ(status, 200);
  EXPECT_FALSE(result["pass"].as_bool());
  EXPECT_EQ(result["status"].as_int64(), 403);
  std::string reason(result["reason"].as_string());
  EXPECT_TRUE(reason.starts_with("status 403")) << reason;
  EXPECT_TRUE(result["lifted"].as_object().at("freezes").as_array().empty());
  EXPECT_EQ(boost::json::serialize(result).find("k-flaky"), std::string::npos);
  EXPECT_EQ(listed(gateway->port, "freezes").size(), 1u);

  // Routing still skips the frozen key.
  EXPECT_EQ(keysOfNextRequest(gateway->port, mock->port, 1, "probe-after"), std::vector<std::string>{"k-live"});

  auto probes = listed(gateway->port, "probes");
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_EQ(probes[0].at("reason").as_string(), reason);
  auto metrics = fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok());
  EXPECT_EQ(metricValue(*metrics, "llmux_probes_total", {{"channel", "flaky"}, {"result", "fail"}}), 1.0);
  EXPECT_EQ(metricValue(*metrics, "llmux_probe_last_result", {{"channel", "flaky"}, {"model", kForbiddenModel}}), 0.0);
}

TEST_F(Probes, AForeverFreezeIsNotLifted) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(freezeConfig(
      mock->baseUrl(), "freeze_rules:\n  - {name: banned, status: 403, object: key, period: forever}\n"));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  freezeFlaky(gateway->port, mock->port);

  auto [status, result] = runProbe(gateway->port, R"({"channel":"flaky"})");
  EXPECT_EQ(status, 200);
  EXPECT_TRUE(result["pass"].as_bool()) << boost::json::serialize(result);
  EXPECT_TRUE(result["lifted"].as_object().at("freezes").as_array().empty());
  EXPECT_EQ(result["lifted"].as_object().at("freezes_kept").as_int64(), 1);
  auto frozen = listed(gateway->port, "freezes");
  ASSERT_EQ(frozen.size(), 1u);
  EXPECT_EQ(frozen[0].at("period").as_string(), "forever");
}

TEST_F(Probes, AScheduledProbeRunsByItself) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto spec = channel("watched", Protocol::Anthropic, mock->baseUrl(), {"k-watched"});
  spec.extra_yaml = "probes: {scenarios: [chat, tools], interval: 1s, jitter: 1s}\n";
  GatewayConfig config = gatewayConfig({spec}, accessLog());
  config.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto tools = waitForMetric(gateway->port, "llmux_probes_total",
                             {{"channel", "watched"}, {"scenario", "tools"}, {"result", "pass"}}, 2,
                             Millis(8000));
  EXPECT_GE(tools.value_or(0), 2.0);
  auto probes = listed(gateway->port, "probes");
  ASSERT_EQ(probes.size(), 2u);
  for (auto const& probe : probes) {
    EXPECT_TRUE(probe.at("scheduled").as_bool());
    EXPECT_TRUE(probe.at("pass").as_bool()) << boost::json::serialize(probe);
  }
}

TEST_F(Probes, TheHourlyCapHoldsAndAReloadTurnsScheduledProbesOn) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto yaml = [&](std::string const& probes, unsigned per_hour) {
    auto spec = channel("watched", Protocol::Gemini, mock->baseUrl(), {"k-watched"});
    spec.extra_yaml = "probes: " + probes + "\n";
    GatewayConfig config = gatewayConfig({spec}, accessLog());
    config.extra_yaml += std::string("admin_token: ") + kAdminToken +
                         "\nprobes: {max_per_hour: " + std::to_string(per_hour) + "}\n";
    return toYaml(config);
  };
  std::string const path = writeTempFile(yaml("{scenarios: [multi_turn]}", 2));
  auto gateway = startServer(gatewayOptions(binary(), path, {}));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  for (int i = 0; i < 2; ++i) {
    auto [status, result] = runProbe(gateway->port, R"({"channel":"watched"})");
    EXPECT_EQ(status, 200);
    EXPECT_EQ(result["scenario"].as_string(), "multi_turn");
    EXPECT_TRUE(result["pass"].as_bool()) << boost::json::serialize(result);
  }
  auto [refused, error] = runProbe(gateway->port, R"({"channel":"watched"})");
  EXPECT_EQ(refused, 429);
  EXPECT_EQ(error["error"].as_object().at("type").as_string(), "rate_limit_error");
  // No interval: nothing runs by itself.
  std::this_thread::sleep_for(std::chrono::milliseconds(1200));
  auto probes = listed(gateway->port, "probes");
  ASSERT_EQ(probes.size(), 1u);
  EXPECT_FALSE(probes[0].at("scheduled").as_bool());

  std::ofstream(path, std::ios::trunc) << yaml("{scenarios: [multi_turn, stream], interval: 1s}", 100);
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  ASSERT_TRUE(gateway->process->waitForLineMatching(std::regex(".*configuration reloaded.*"),
                                                    Millis(5000), Stream::Stderr)
                  .ok());
  auto streamed = waitForMetric(gateway->port, "llmux_probes_total",
                                {{"channel", "watched"}, {"scenario", "stream"}, {"result", "pass"}}, 1,
                                Millis(6000));
  EXPECT_GE(streamed.value_or(0), 1.0);
  probes = listed(gateway->port, "probes");
  ASSERT_EQ(probes.size(), 2u);
  for (auto const& probe : probes) {
    if (probe.at("scenario").as_string() == "stream") EXPECT_TRUE(probe.at("scheduled").as_bool());
  }
}

TEST_F(Probes, TheAdminRoutesNeedTheAdminTokenAndAValidTarget) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGateway(freezeConfig(mock->baseUrl()));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::string body = R"({"channel":"flaky"})";
  auto missing = callGateway(gateway->port, adminCall("POST", "/admin/probes/run", body, ""));
  ASSERT_TRUE(missing.ok());
  EXPECT_EQ(missing->status(), 401) << missing->body;
  auto gateway_key = callGateway(gateway->port, adminCall("POST", "/admin/probes/run", body, kGatewayKey));
  ASSERT_TRUE(gateway_key.ok());
  EXPECT_EQ(gateway_key->status(), 403) << gateway_key->body;
  auto list = callGateway(gateway->port, adminCall("GET", "/admin/probes", "", ""));
  ASSERT_TRUE(list.ok());
  EXPECT_EQ(list->status(), 401) << list->body;
  // Nothing was probed without the token.
  auto journal = waitForJournal(mock->port, 0);
  ASSERT_TRUE(journal.ok());
  EXPECT_TRUE(journal->empty());

  for (std::string bad : {std::string(R"({"channel":"nope"})"), std::string(R"({"channel":"flaky","key":"flaky#7"})"),
                          std::string(R"({"channel":"flaky","model":"unknown"})"),
                          std::string(R"({"channel":"flaky","scenario":"image"})"), std::string("[]")}) {
    auto [status, answer] = runProbe(gateway->port, bad);
    EXPECT_EQ(status, 400) << bad;
    EXPECT_TRUE(answer.contains("error")) << bad;
  }
  auto wrong_method = callGateway(gateway->port, adminCall("GET", "/admin/probes/run"));
  ASSERT_TRUE(wrong_method.ok());
  EXPECT_EQ(wrong_method->status(), 405);
}

}  // namespace
}  // namespace llmux::e2e
