// Which requests race (docs/racing.md, "When a request is raced") and with which policy.
#include "proxy/race_arming.h"

#include <gtest/gtest.h>

#include "admin_fixture.h"
#include "racing/racing_state.h"
#include "settings_fixture.h"

namespace llmux::proxy {
namespace {

using config::CostPreference;

constexpr char kYaml[] = R"(
gateway_keys:
  - {name: team, key: sk-team, cost_preference: quality_first}
  - {name: plain, key: sk-plain}
racing: {enabled: true, cost_preference: cost_first}
channels:
  - {name: a, protocol: openai-chat, base_url: "http://127.0.0.1:1", keys: [k1], models: [m]}
  - {name: b, protocol: openai-chat, base_url: "http://127.0.0.1:2", keys: [k2], models: [m],
     racing: {enabled: false}}
)";

class RaceArmingTest : public ::testing::Test {
 protected:
  /// Arms a Chat request with `body` on `path` (and `headers`), for gateway key `key_index`.
  std::optional<RaceArming> arm(std::string body, HeaderList headers = {}, int key_index = 1,
                                std::string path = "/v1/chat/completions") {
    http::ServerRequest request;
    request.method = "POST";
    request.target = path;
    request.body = std::move(body);
    request.headers = std::move(headers);
    RecordingWriter writer;
    RequestContext ctx{request, writer, catalog};
    ctx.route = protocol::matchRoute("POST", path).route;
    ctx.protocol = ctx.route.protocol.value_or(Protocol::OpenAiChat);
    auto profile = protocol::inspectRequest(ctx.route, request.body);
    if (profile) ctx.profile = *profile;
    ctx.gateway_key = &catalog->settings().gateway_keys[static_cast<std::size_t>(key_index)];
    return armRace(state, ctx);
  }

  std::shared_ptr<const routing::Catalog> catalog = routing::testing::catalogFrom(kYaml);
  racing::RacingState state{catalog->settings().racing};
};

constexpr char kChat[] = R"({"model":"m","messages":[{"role":"user","content":"hi"}]})";

TEST_F(RaceArmingTest, APlainChatRequestRacesWithThePreferenceInOrder) {
  auto plain = arm(kChat);
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->preference, CostPreference::CostFirst) << "the global one";
  EXPECT_TRUE(plain->policy.cheaper_shadows_only);
  EXPECT_FALSE(plain->tools);
  EXPECT_EQ(plain->task_class, "chat");
  auto keyed = arm(kChat, {}, 0);
  ASSERT_TRUE(keyed);
  EXPECT_EQ(keyed->preference, CostPreference::QualityFirst) << "the gateway key's";
  HeaderList header;
  header.add("X-Cost-Preference", "balanced");
  EXPECT_EQ(arm(kChat, header, 0)->preference, CostPreference::Balanced) << "the header's first";
  HeaderList typo;
  typo.add("X-Cost-Preference", "qualityfirst");
  EXPECT_EQ(arm(kChat, typo, 0)->preference, CostPreference::Balanced) << "unknown: balanced";
  EXPECT_EQ(state.counters.armed.load(), 4u);
  EXPECT_EQ(state.budget.usage(MonoClock::now()).requests, 4u) << "the hedge budget's denominator";
}

TEST_F(RaceArmingTest, ToolsArmTheQualityGate) {
  auto armed = arm(R"({"model":"m","messages":[{"role":"user","content":"hi"}],)"
                   R"("tools":[{"type":"function","function":{"name":"f","parameters":{}}}]})");
  ASSERT_TRUE(armed);
  EXPECT_TRUE(armed->tools);
  EXPECT_EQ(armed->task_class, "tools");
}

TEST_F(RaceArmingTest, WhatNeverRaces) {
  HeaderList pinned;
  pinned.add("X-Channel", "a");
  EXPECT_FALSE(arm(kChat, pinned)) << "an X-Channel pin";
  EXPECT_FALSE(arm(R"({"model":"a/m","messages":[{"role":"user","content":"hi"}]})"))
      << "a channel/model pin";
  EXPECT_FALSE(arm(R"({"model":"m","messages":[{"role":"user","content":[)"
                   R"({"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]})"))
      << "an image";
  EXPECT_FALSE(arm(R"({"model":"m","messages":[{"role":"user","content":"hi"}]})", {}, 1,
                   "/v1/messages/count_tokens"))
      << "a token count";
  state.changeSwitches(std::optional<bool>(false), std::nullopt);
  EXPECT_FALSE(arm(kChat)) << "switched off by an operator";
  state.changeSwitches(std::optional<bool>(std::nullopt), std::nullopt);
  EXPECT_TRUE(arm(kChat)) << "back to the configuration's switch";
  EXPECT_EQ(state.counters.armed.load(), 1u);
}

TEST(RaceArming, AChannelSwitchedOffNeverRaces) {
  auto catalog = routing::testing::catalogFrom(kYaml);
  EXPECT_TRUE(channelRaces(catalog->settings().channels[0]));
  EXPECT_FALSE(channelRaces(catalog->settings().channels[1]));
}

}  // namespace
}  // namespace llmux::proxy
