// The configuration used when `llmux serve` runs without --config.

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "config/embedded_default.h"
#include "config/key_id.h"
#include "fake_env.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;

constexpr char kMock[] = "http://127.0.0.1:18080";

Channel const* findChannel(Settings const& settings, std::string_view name) {
  for (auto const& channel : settings.channels) {
    if (channel.name == name) return &channel;
  }
  return nullptr;
}

std::vector<std::string> channelNames(Settings const& settings) {
  std::vector<std::string> names;
  for (auto const& channel : settings.channels) names.push_back(channel.name);
  return names;
}

TEST(EmbeddedDefault, WithoutProviderKeysOnlyDemoChannels) {
  Settings s = embeddedDefaultSettings(fakeEnv(), kMock, "gw-secret", "adm-secret");
  EXPECT_EQ(s.server.listen, "127.0.0.1:8080");
  EXPECT_EQ(s.state_dir, ".llmux");
  ASSERT_EQ(s.gateway_keys.size(), 1u);
  EXPECT_EQ(s.gateway_keys[0].name, "default");
  EXPECT_EQ(s.gateway_keys[0].secret, "gw-secret");
  EXPECT_EQ(s.admin_token, "adm-secret");
  ASSERT_EQ(s.admin_tokens.size(), 1u);
  EXPECT_EQ(s.admin_tokens[0].name, "admin");
  EXPECT_FALSE(s.admin_tokens[0].read_only);

  EXPECT_EQ(channelNames(s), (std::vector<std::string>{"demo-openai-chat", "demo-openai-responses",
                                                       "demo-anthropic", "demo-gemini"}));
  for (Protocol protocol : kAllProtocols) {
    Channel const* demo = findChannel(s, "demo-" + std::string(protocolName(protocol)));
    ASSERT_NE(demo, nullptr);
    EXPECT_EQ(demo->protocol, protocol);
    EXPECT_EQ(demo->base_url, kMock);
    EXPECT_EQ(demo->url, (UpstreamUrl{false, "127.0.0.1", 18080, ""}));
    ASSERT_EQ(demo->keys.size(), 1u);
    EXPECT_EQ(demo->keys[0].secret, "mock-key");
    EXPECT_EQ(demo->keys[0].label, demo->name + "#0");
    EXPECT_EQ(demo->keys[0].id, channelKeyId(demo->name, "mock-key"));
    EXPECT_TRUE(demo->serves("demo"));
    EXPECT_EQ(demo->models, (std::vector<std::string>{"demo"}));
    EXPECT_EQ(demo->priority, -100);
    EXPECT_TRUE(demo->enabled);
    // The OpenAI demo channel serves every media endpoint of the mock; the others none.
    EXPECT_EQ(demo->media.any(), protocol == Protocol::OpenAiChat) << demo->name;
  }
  Channel const* openai = findChannel(s, "demo-openai-chat");
  ASSERT_NE(openai, nullptr);
  for (auto const& endpoint : openai->media.endpoints) EXPECT_TRUE(endpoint.enabled);
  EXPECT_EQ(openai->media.row, 0u);
}

TEST(EmbeddedDefault, ProviderKeysAddChannels) {
  auto env = fakeEnv({{"OPENAI_API_KEY", "sk-openai"},
                      {"ANTHROPIC_API_KEY", "sk-ant"},
                      {"GEMINI_API_KEY", "gm-key"},
                      {"LLMUX_HOME", "/data/llmux"},
                      {"LLMUX_LISTEN", "0.0.0.0:9090"}});
  Settings s = embeddedDefaultSettings(env, kMock, "gw", "adm");
  EXPECT_EQ(s.server.listen, "0.0.0.0:9090");
  EXPECT_EQ(s.state_dir, "/data/llmux");
  EXPECT_EQ(channelNames(s),
            (std::vector<std::string>{"openai", "openai-responses", "anthropic", "gemini",
                                      "demo-openai-chat", "demo-openai-responses",
                                      "demo-anthropic", "demo-gemini"}));

  Channel const* openai = findChannel(s, "openai");
  ASSERT_NE(openai, nullptr);
  EXPECT_EQ(openai->protocol, Protocol::OpenAiChat);
  EXPECT_EQ(openai->url, (UpstreamUrl{true, "api.openai.com", 443, ""}));
  EXPECT_EQ(openai->keys[0].secret, "sk-openai");
  EXPECT_EQ(openai->keys[0].label, "openai#0");
  EXPECT_TRUE(openai->serves("gpt-4o"));
  EXPECT_TRUE(openai->serves("gpt-5"));
  EXPECT_FALSE(openai->serves("demo"));
  EXPECT_EQ(openai->priority, 0);

  Channel const* responses = findChannel(s, "openai-responses");
  ASSERT_NE(responses, nullptr);
  EXPECT_EQ(responses->protocol, Protocol::OpenAiResponses);
  EXPECT_EQ(responses->keys[0].secret, "sk-openai");
  EXPECT_TRUE(responses->serves("gpt-5"));
  EXPECT_TRUE(responses->serves("gpt-5.1-codex"));  // Responses-only models
  EXPECT_FALSE(openai->serves("gpt-5.1-codex"));

  Channel const* anthropic = findChannel(s, "anthropic");
  ASSERT_NE(anthropic, nullptr);
  EXPECT_EQ(anthropic->protocol, Protocol::Anthropic);
  EXPECT_EQ(anthropic->url, (UpstreamUrl{true, "api.anthropic.com", 443, ""}));
  EXPECT_TRUE(anthropic->serves("claude-sonnet-4-5"));
  EXPECT_TRUE(anthropic->serves("claude-haiku-4-5"));

  Channel const* gemini = findChannel(s, "gemini");
  ASSERT_NE(gemini, nullptr);
  EXPECT_EQ(gemini->protocol, Protocol::Gemini);
  EXPECT_EQ(gemini->url, (UpstreamUrl{true, "generativelanguage.googleapis.com", 443, ""}));
  EXPECT_TRUE(gemini->serves("gemini-2.5-flash"));
  EXPECT_EQ(gemini->keys[0].secret, "gm-key");

  // Every real channel outranks the demo channels.
  for (auto const& channel : s.channels) {
    bool demo = channel.name.rfind("demo-", 0) == 0;
    EXPECT_EQ(channel.priority, demo ? kDemoPriority : 0) << channel.name;
    EXPECT_FALSE(channel.models.empty()) << channel.name;
  }
}

TEST(EmbeddedDefault, OnlyTheProvidersWhoseKeyIsSet) {
  Settings s = embeddedDefaultSettings(fakeEnv({{"ANTHROPIC_API_KEY", "sk-ant"},
                                                {"OPENAI_API_KEY", ""}}),
                                       kMock, "gw", "adm");
  EXPECT_EQ(channelNames(s), (std::vector<std::string>{"anthropic", "demo-openai-chat",
                                                       "demo-openai-responses", "demo-anthropic",
                                                       "demo-gemini"}));
}

TEST(EmbeddedDefault, ProviderBaseUrlsFromTheEnvironment) {
  auto env = fakeEnv({{"OPENAI_API_KEY", "k"},
                      {"OPENAI_BASE_URL", "http://localhost:4000/v1/"},
                      {"ANTHROPIC_API_KEY", "k"},
                      {"ANTHROPIC_BASE_URL", "https://relay.example/anthropic"},
                      {"GEMINI_API_KEY", "k"},
                      {"GEMINI_BASE_URL", "http://[::1]:7000"}});
  Settings s = embeddedDefaultSettings(env, kMock, "gw", "adm");
  // Taken as written (OpenAI SDKs include /v1 in OPENAI_BASE_URL; the upstream path does not
  // repeat a version segment the prefix already ends with).
  EXPECT_EQ(findChannel(s, "openai")->base_url, "http://localhost:4000/v1/");
  EXPECT_EQ(findChannel(s, "openai")->url, (UpstreamUrl{false, "localhost", 4000, "/v1"}));
  EXPECT_EQ(findChannel(s, "openai-responses")->url,
            (UpstreamUrl{false, "localhost", 4000, "/v1"}));
  EXPECT_EQ(findChannel(s, "anthropic")->url,
            (UpstreamUrl{true, "relay.example", 443, "/anthropic"}));
  EXPECT_EQ(findChannel(s, "gemini")->url, (UpstreamUrl{false, "::1", 7000, ""}));
}

TEST(EmbeddedDefault, InvalidStartUpInputsThrow) {
  EXPECT_THROW(embeddedDefaultSettings(fakeEnv({{"LLMUX_LISTEN", "nonsense"}}), kMock, "gw", "adm"),
               std::invalid_argument);
  EXPECT_THROW(embeddedDefaultSettings(
                   fakeEnv({{"ANTHROPIC_API_KEY", "k"}, {"ANTHROPIC_BASE_URL", "ftp://x"}}), kMock,
                   "gw", "adm"),
               std::invalid_argument);
  EXPECT_THROW(embeddedDefaultSettings(fakeEnv(), "not a url", "gw", "adm"), std::invalid_argument);
  EXPECT_THROW(embeddedDefaultSettings(fakeEnv(), kMock, "", "adm"), std::invalid_argument);
  EXPECT_THROW(embeddedDefaultSettings(fakeEnv(), kMock, "gw", ""), std::invalid_argument);
  try {
    (void)embeddedDefaultSettings(fakeEnv({{"LLMUX_LISTEN", "1.2.3.4:99999"}}), kMock, "gw", "adm");
    FAIL() << "expected an exception";
  } catch (std::invalid_argument const& e) {
    EXPECT_EQ(std::string(e.what()), "LLMUX_LISTEN: port must be a number from 0 to 65535");
  }
}

}  // namespace
}  // namespace llmux::config
