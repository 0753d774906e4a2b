// SIGHUP reloads the configuration file: a good file takes effect, a bad one is rejected with its
// errors and the running configuration kept; requests in flight finish on their snapshot; runtime
// state (key cooldowns) survives for keys that still exist.
#include <signal.h>

#include <fstream>

#include "e2e/scenarios/mock_journal.h"
#include "lifecycle_support.h"

namespace llmux::e2e {
namespace {

using namespace lifecycle;

class ReloadTest : public E2eTest {
 protected:
  GatewayConfig baseConfig(std::uint16_t mock_port) {
    GatewayConfig config;
    config.gateway_keys = {{"dev", kGatewayKey}};
    config.channels = {chatChannel("first", mock_port, {"model-a"})};
    return config;
  }
  /// Starts a gateway from a config file the test can rewrite.
  Result<Server> startReloadable(GatewayConfig const& config) {
    config_path_ = writeTempFile(toYaml(config));
    ChildOptions options = gatewayOptions(binary(), config_path_, {});
    return startServer(std::move(options));
  }
  void rewrite(std::string const& yaml) {
    std::ofstream(config_path_, std::ios::trunc) << yaml;
  }
  std::string config_path_;
};

TEST_F(ReloadTest, GoodFileTakesEffectWithoutRestart) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto config = baseConfig(mock->port);
  auto gateway = startReloadable(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  auto before = chat(gateway->port, "model-b");
  ASSERT_TRUE(before.ok()) << before.error().message;
  EXPECT_EQ(before->status(), 404);

  config.channels.push_back(chatChannel("second", mock->port, {"model-b"}));
  rewrite(toYaml(config));
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  ASSERT_TRUE(gateway->process->waitForLineMatching(std::regex(".*configuration reloaded.*"),
                                                    Millis(5000), Stream::Stderr)
                  .ok());
  auto after = chat(gateway->port, "model-b");
  ASSERT_TRUE(after.ok()) << after.error().message;
  EXPECT_EQ(after->status(), 200) << after->body;
  EXPECT_TRUE(gateway->process->running());
}

TEST_F(ReloadTest, BadFileIsRejectedAndTheOldConfigurationKeepsServing) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startReloadable(baseConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  rewrite("listen: 127.0.0.1:0\ngateway_keys: [{name: dev, key: k}]\nchannels:\n"
          "  - name: broken\n    protocol: openai\n    base_url: ftp://nowhere\n"
          "    keys: [k]\n    models: [m]\n    colour: blue\n");
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  auto rejected = gateway->process->waitForLineMatching(
      std::regex(".*configuration reload rejected.*"), Millis(5000), Stream::Stderr);
  ASSERT_TRUE(rejected.ok()) << gateway->process->output(Stream::Stderr);
  // Every issue is logged with its path.
  auto errors = gateway->process->output(Stream::Stderr);
  EXPECT_NE(errors.find("channels[0].protocol"), std::string::npos) << errors;
  EXPECT_NE(errors.find("channels[0].base_url"), std::string::npos) << errors;
  EXPECT_NE(errors.find("channels[0].colour"), std::string::npos) << errors;

  auto still = chat(gateway->port, "model-a");
  ASSERT_TRUE(still.ok()) << still.error().message;
  EXPECT_EQ(still->status(), 200) << still->body;

  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok());
  auto metrics = client->request("GET", "/metrics");
  ASSERT_TRUE(metrics.ok());
  EXPECT_NE(metrics->body.find("llmux_config_reloads_total{result=\"error\"} 1"), std::string::npos)
      << metrics->body;
}

TEST_F(ReloadTest, RequestInFlightFinishesOnItsSnapshot) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startReloadable(baseConfig(mock->port));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // A paced stream is in flight when its channel disappears from the configuration.
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok());
  HeaderList headers = chatHeaders();
  headers.add("x-mock-chunk-delay", "100");
  ASSERT_TRUE(client->sendRequest("POST", "/v1/chat/completions", headers, chatBody("model-a", true)).ok());
  auto head = client->readHead();
  ASSERT_TRUE(head.ok()) << head.error().message;
  ASSERT_EQ(head->status, 200);

  GatewayConfig other;
  other.gateway_keys = {{"dev", kGatewayKey}};
  other.channels = {chatChannel("replacement", mock->port, {"model-z"})};
  rewrite(toYaml(other));
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  ASSERT_TRUE(gateway->process->waitForLineMatching(std::regex(".*configuration reloaded.*"),
                                                    Millis(5000), Stream::Stderr)
                  .ok());

  auto body = client->readBody(Millis(10'000));
  ASSERT_TRUE(body.ok()) << body.error().message;
  EXPECT_NE(body->find("data: [DONE]"), std::string::npos) << *body;
  EXPECT_EQ(body->find("\"error\""), std::string::npos) << *body;
  // New requests see the new configuration.
  auto gone = chat(gateway->port, "model-a");
  ASSERT_TRUE(gone.ok());
  EXPECT_EQ(gone->status(), 404);
}

TEST_F(ReloadTest, KeyCooldownSurvivesAReloadThatKeepsTheKey) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config;
  config.gateway_keys = {{"dev", kGatewayKey}};
  ChannelSpec limited = chatChannel("limited", mock->port, {"model-a"});
  limited.keys = {"key-one"};
  limited.priority = 10;
  limited.headers = {{"x-mock-fault", "429=30"}};
  config.channels = {limited, chatChannel("backup", mock->port, {"model-a"})};
  auto gateway = startReloadable(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  // The first request gets a 429 (retry-after: 30) from "limited" and is served by
  // "backup".
  auto first = chat(gateway->port, "model-a");
  ASSERT_TRUE(first.ok());
  ASSERT_EQ(first->status(), 200) << first->body;

  config.channels.push_back(chatChannel("extra", mock->port, {"model-x"}));
  rewrite(toYaml(config));
  ASSERT_TRUE(gateway->process->signal(SIGHUP).ok());
  ASSERT_TRUE(gateway->process->waitForLineMatching(std::regex(".*configuration reloaded.*"),
                                                    Millis(5000), Stream::Stderr)
                  .ok());

  // The mock journals an answer a moment after writing it: both of the first request's entries
  // (the 429 and the backup's answer) are in before the journal is cleared.
  ASSERT_TRUE(waitForJournal(mock->port, 2).ok());
  ASSERT_TRUE(clearJournal(mock->port).ok());
  auto second = chat(gateway->port, "model-a");
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(second->status(), 200);
  auto journal = waitForJournal(mock->port, 1);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  ASSERT_EQ(journal->size(), 1u) << ::testing::PrintToString(keysOf(*journal));
  // Only the backup channel's key was used: the paused key stayed paused across the reload.
  bool used_backup = false;
  for (auto const& field : (*journal)[0].headers) {
    if (field.name == "Authorization") used_backup = field.value == "Bearer mock-key-backup";
  }
  EXPECT_TRUE(used_backup) << "upstream key: " << (*journal)[0].upstreamKey();
}

}  // namespace
}  // namespace llmux::e2e
