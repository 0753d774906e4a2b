#include "e2e/support/config_writer.h"

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

namespace llmux::e2e {
namespace {

ChannelSpec anthropicChannel() {
  ChannelSpec c;
  c.name = "anthropic-main";
  c.protocol = Protocol::Anthropic;
  c.base_url = loopbackUrl(4100);
  c.keys = {"k1", "k2"};
  c.models = {"claude-sonnet-4-5"};
  c.model_map = {{"sonnet", "claude-sonnet-4-5"}};
  c.headers = {{"x-mock-fault", "429"}};
  c.timeouts = TimeoutsSpec{1000, 2000, 2000, 10000};
  c.priority = 0;
  c.weight = 1;
  return c;
}

TEST(ConfigWriter, WritesTheDocumentedShape) {
  GatewayConfig config;
  config.gateway_keys = {{"dev", "sk-dev-123"}};
  config.channels = {anthropicChannel()};
  EXPECT_EQ(
      toYaml(config),
      "listen: \"127.0.0.1:0\"\n"
      "gateway_keys:\n"
      "  - name: \"dev\"\n"
      "    key: \"sk-dev-123\"\n"
      "channels:\n"
      "  - name: \"anthropic-main\"\n"
      "    protocol: anthropic\n"
      "    base_url: \"http://127.0.0.1:4100\"\n"
      "    keys: [\"k1\", \"k2\"]\n"
      "    models: [\"claude-sonnet-4-5\"]\n"
      "    model_map: {\"sonnet\": \"claude-sonnet-4-5\"}\n"
      "    headers: {\"x-mock-fault\": \"429\"}\n"
      "    timeouts: {connect_ms: 1000, first_byte_ms: 2000, idle_ms: 2000, total_ms: 10000}\n"
      "    priority: 0\n"
      "    weight: 1\n");
}

TEST(ConfigWriter, LeavesOutWhatIsNotSetAndIndentsExtraYaml) {
  GatewayConfig config;
  ChannelSpec c;
  c.name = "gem";
  c.protocol = Protocol::Gemini;
  c.base_url = "http://127.0.0.1:1";
  c.timeouts = TimeoutsSpec{.first_byte_ms = 50};
  c.extra_yaml = "enabled: false\nauth:\n  style: query\n  name: key\n";
  config.channels = {c};
  config.extra_yaml = "log:\n  level: debug";
  EXPECT_EQ(toYaml(config),
            "listen: \"127.0.0.1:0\"\n"
            "channels:\n"
            "  - name: \"gem\"\n"
            "    protocol: gemini\n"
            "    base_url: \"http://127.0.0.1:1\"\n"
            "    timeouts: {first_byte_ms: 50}\n"
            "    enabled: false\n"
            "    auth:\n"
            "      style: query\n"
            "      name: key\n"
            "log:\n"
            "  level: debug\n");
}

TEST(ConfigWriter, OutputParsesBackToTheSameValues) {
  GatewayConfig config;
  config.gateway_keys = {{"dev", "sk-dev-123"}, {"odd", "quote\" back\\slash: #x\nnew line"}};
  ChannelSpec second = anthropicChannel();
  second.name = "relay: two";
  second.protocol = Protocol::OpenAiResponses;
  second.model_map = {{"gpt-5", "gpt-5-2025-08-07"}, {"yes", "no"}};
  second.priority = -3;
  config.channels = {anthropicChannel(), second};

  YAML::Node root = YAML::Load(toYaml(config));
  EXPECT_EQ(root["listen"].as<std::string>(), "127.0.0.1:0");
  ASSERT_EQ(root["gateway_keys"].size(), 2u);
  EXPECT_EQ(root["gateway_keys"][1]["key"].as<std::string>(), "quote\" back\\slash: #x\nnew line");
  ASSERT_EQ(root["channels"].size(), 2u);
  YAML::Node c0 = root["channels"][0];
  EXPECT_EQ(c0["protocol"].as<std::string>(), "anthropic");
  EXPECT_EQ(c0["keys"][1].as<std::string>(), "k2");
  EXPECT_EQ(c0["model_map"]["sonnet"].as<std::string>(), "claude-sonnet-4-5");
  EXPECT_EQ(c0["headers"]["x-mock-fault"].as<std::string>(), "429");
  EXPECT_EQ(c0["timeouts"]["total_ms"].as<int>(), 10000);
  YAML::Node c1 = root["channels"][1];
  EXPECT_EQ(c1["name"].as<std::string>(), "relay: two");
  EXPECT_EQ(c1["protocol"].as<std::string>(), "openai-responses");
  EXPECT_EQ(c1["model_map"]["yes"].as<std::string>(), "no");  // quoted: not a YAML boolean
  EXPECT_EQ(c1["priority"].as<int>(), -3);
}

TEST(ConfigWriter, WritesResilienceSettings) {
  GatewayConfig config;
  ClientLimitsSpec limits{.rpm = 5, .concurrency = 2, .daily_cost_usd = 1.5};
  config.gateway_keys = {{"team", "sk-gw", "sequential", limits}};
  ChannelSpec primary;
  primary.name = "primary";
  primary.base_url = "http://127.0.0.1:1";
  primary.timeouts = TimeoutsSpec{.first_token_ms = 300};
  primary.breaker = BreakerSpec{.failure_threshold = 5,
                                .open_ms = 30000,
                                .storm = StormSpec{.window_ms = 10000, .ratio = 0.15,
                                                   .min_samples = 20, .open_ms = 3000}};
  primary.model_limits = {{"m-fail", BucketSpec{.rpm = 100, .tpm = 100000}}};
  ChannelSpec quiet;
  quiet.name = "quiet";
  quiet.base_url = "http://127.0.0.1:2";
  quiet.breaker = BreakerSpec{.off = true};
  ChannelSpec no_storm = quiet;
  no_storm.name = "no-storm";
  no_storm.breaker = BreakerSpec{.storm = StormSpec{.off = true}};
  config.channels = {primary, quiet, no_storm};
  config.buckets = BucketsSpec{.max_wait_ms = 200, .expected_output_tokens = 64};
  config.redis = RedisSpec{.url = "redis://127.0.0.1:6390/2", .timeout_ms = 50};
  EXPECT_EQ(toYaml(config),
            "listen: \"127.0.0.1:0\"\n"
            "gateway_keys:\n"
            "  - name: \"team\"\n"
            "    key: \"sk-gw\"\n"
            "    strategy: sequential\n"
            "    limits: {rpm: 5, concurrency: 2, daily_cost_usd: 1.5}\n"
            "channels:\n"
            "  - name: \"primary\"\n"
            "    protocol: openai-chat\n"
            "    base_url: \"http://127.0.0.1:1\"\n"
            "    timeouts: {first_token_ms: 300}\n"
            "    breaker: {failure_threshold: 5, open_ms: 30000, storm: {window_ms: 10000, "
            "ratio: 0.15, min_samples: 20, open_ms: 3000}}\n"
            "    model_limits: {\"m-fail\": {rpm: 100, tpm: 100000}}\n"
            "  - name: \"quiet\"\n"
            "    protocol: openai-chat\n"
            "    base_url: \"http://127.0.0.1:2\"\n"
            "    breaker: off\n"
            "  - name: \"no-storm\"\n"
            "    protocol: openai-chat\n"
            "    base_url: \"http://127.0.0.1:2\"\n"
            "    breaker: {storm: off}\n"
            "buckets: {max_wait_ms: 200, expected_output_tokens: 64}\n"
            "redis: {url: \"redis://127.0.0.1:6390/2\", timeout_ms: 50}\n");
  YAML::Node root = YAML::Load(toYaml(config));
  EXPECT_EQ(root["channels"][0]["breaker"]["storm"]["ratio"].as<double>(), 0.15);
  EXPECT_EQ(root["channels"][1]["breaker"].as<std::string>(), "off");
  EXPECT_EQ(root["gateway_keys"][0]["limits"]["daily_cost_usd"].as<double>(), 1.5);
}

TEST(YamlQuote, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(yamlQuote("plain"), "\"plain\"");
  EXPECT_EQ(yamlQuote("a\"b\\c"), "\"a\\\"b\\\\c\"");
  EXPECT_EQ(yamlQuote(std::string("\t\n\x01", 3)), "\"\\x09\\x0a\\x01\"");
}

}  // namespace
}  // namespace llmux::e2e
