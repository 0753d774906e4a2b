// The sequential strategy: the gateway core's priority order with weighted rotation among
// equals, as planRoute keeps it.
#include "routing/candidates.h"

#include <gtest/gtest.h>

#include <map>

#include "routing/freezes.h"
#include "routing/key_health.h"
#include "routing/planner.h"
#include "routing/rng.h"
#include "routing/router_state.h"
#include "settings_fixture.h"

namespace llmux::routing {
namespace {

using testing::catalogFrom;

constexpr char kPool[] = R"(
listen: 127.0.0.1:0
gateway_keys:
  - {name: dev, key: sk-dev}
channels:
  - name: primary
    protocol: openai-chat
    base_url: http://127.0.0.1:1
    keys: [p0, p1]
    models: [gpt-x]
    model_map: {fast: gpt-x-mini}
    priority: 10
  - name: heavy
    protocol: openai-chat
    base_url: http://127.0.0.1:2
    keys: [h0]
    models: [gpt-x]
    weight: 3
  - name: light
    protocol: openai-chat
    base_url: http://127.0.0.1:3
    keys: [l0]
    models: [gpt-x]
    weight: 1
  - name: claude
    protocol: anthropic
    base_url: http://127.0.0.1:4
    keys: [c0]
    models: [claude-only, gpt-x]
  - name: off
    protocol: openai-chat
    base_url: http://127.0.0.1:5
    keys: [o0]
    models: [gpt-x]
    enabled: false
)";

std::string channelOf(Catalog const& catalog, Candidate c) {
  return catalog.settings().channels[c.channel].name;
}

/// planRoute with the sequential strategy, fresh router state and no freezes.
RoutePlan planCandidates(Catalog const& catalog, Protocol protocol, std::string model,
                         KeyHealth const& health, Rotation& rotation) {
  static ManualTimeSource clock;
  RouterState state(health.clock());
  FreezeTable freezes(clock);
  Rng rng(7);
  RouteRequest request;
  request.client_protocol = protocol;
  request.model = std::move(model);
  request.strategy = config::Strategy::Sequential;
  return planRoute(catalog, state, health, freezes, request, rng, &rotation);
}

TEST(Catalog, IndexesModelsAliasesAndGatewayKeys) {
  auto catalog = catalogFrom(kPool);
  EXPECT_EQ(catalog->channelsFor("gpt-x").size(), 4u);  // "off" is disabled
  EXPECT_EQ(catalog->channelsFor("fast").size(), 1u);
  EXPECT_TRUE(catalog->channelsFor("nope").empty());
  EXPECT_EQ(catalog->modelNames(), (std::vector<std::string>{"claude-only", "fast", "gpt-x"}));
  ASSERT_NE(catalog->findGatewayKey("sk-dev"), nullptr);
  EXPECT_EQ(catalog->findGatewayKey("sk-dev")->name, "dev");
  EXPECT_EQ(catalog->findGatewayKey("sk-de"), nullptr);
}

TEST(Sequential, PriorityFirstThenKeysRotateWithinAChannel) {
  auto catalog = catalogFrom(kPool);
  ManualTimeSource clock;
  KeyHealth health(clock);
  Rotation rotation;
  auto a = planCandidates(*catalog, Protocol::OpenAiChat, "gpt-x", health, rotation);
  auto b = planCandidates(*catalog, Protocol::OpenAiChat, "gpt-x", health, rotation);
  ASSERT_EQ(a.status, RouteStatus::Ready);
  // primary x2, heavy and light (either order), then claude (needs translation); never "off".
  ASSERT_EQ(a.candidates.size(), 5u);
  EXPECT_EQ(channelOf(*catalog, a.candidates[0]), "primary");
  EXPECT_EQ(channelOf(*catalog, a.candidates[1]), "primary");
  EXPECT_EQ(channelOf(*catalog, a.candidates[4]), "claude");
  EXPECT_NE(a.candidates[0].key, b.candidates[0].key) << "keys of a channel rotate";
  for (auto const& c : a.candidates) EXPECT_NE(channelOf(*catalog, c), "off");
}

TEST(Sequential, WeightsDecideWhoLeadsAmongEqualPriorities) {
  auto catalog = catalogFrom(kPool);
  ManualTimeSource clock;
  KeyHealth health(clock);
  Rotation rotation;
  // Take the priority-10 channel out of the way: both of its keys paused.
  health.pauseModel(catalog->settings().channels[0].keys[0].id, "gpt-x", KeyPause::RateLimited,
                    Millis(60'000));
  health.pauseModel(catalog->settings().channels[0].keys[1].id, "gpt-x", KeyPause::RateLimited,
                    Millis(60'000));
  std::map<std::string, int> leads;
  for (int i = 0; i < 400; ++i) {
    auto plan = planCandidates(*catalog, Protocol::OpenAiChat, "gpt-x", health, rotation);
    ASSERT_EQ(plan.candidates.size(), 3u);  // heavy, light, then claude (translated)
    ++leads[channelOf(*catalog, plan.candidates[0])];
  }
  EXPECT_EQ(leads["heavy"], 300);
  EXPECT_EQ(leads["light"], 100);
}

TEST(Sequential, PausedKeysAreSkippedUntilTheirTimeComes) {
  auto catalog = catalogFrom(kPool);
  ManualTimeSource clock;
  KeyHealth health(clock);
  Rotation rotation;
  for (auto const& channel : catalog->settings().channels) {
    for (auto const& key : channel.keys)
      health.pauseModel(key.id, "gpt-x", KeyPause::RateLimited, Millis(30'000));
  }
  auto plan = planCandidates(*catalog, Protocol::OpenAiChat, "gpt-x", health, rotation);
  EXPECT_EQ(plan.status, RouteStatus::AllPaused);
  ASSERT_TRUE(plan.resume_at);
  EXPECT_EQ(*plan.resume_at - clock.now(), Millis(30'000));
  clock.advance(Millis(30'001));
  EXPECT_EQ(planCandidates(*catalog, Protocol::OpenAiChat, "gpt-x", health, rotation).status,
            RouteStatus::Ready);
}

TEST(Sequential, OtherProtocolsAreTranslatedCandidatesAfterNativeOnes) {
  auto catalog = catalogFrom(kPool);
  ManualTimeSource clock;
  KeyHealth health(clock);
  Rotation rotation;
  EXPECT_EQ(planCandidates(*catalog, Protocol::OpenAiChat, "nope", health, rotation).status,
            RouteStatus::UnknownModel);
  // Only the Anthropic channel serves it: an OpenAI Chat client gets it through translation.
  auto plan = planCandidates(*catalog, Protocol::OpenAiChat, "claude-only", health, rotation);
  ASSERT_EQ(plan.status, RouteStatus::Ready);
  ASSERT_EQ(plan.candidates.size(), 1u);
  EXPECT_EQ(channelOf(*catalog, plan.candidates[0]), "claude");
  EXPECT_EQ(catalog->settings().channels[plan.candidates[0].channel].rows[plan.candidates[0].row].protocol,
            Protocol::Anthropic);
  // Equal priority (0): heavy and light speak Chat, claude needs translation: it comes last.
  auto mixed = planCandidates(*catalog, Protocol::OpenAiChat, "gpt-x", health, rotation);
  ASSERT_EQ(mixed.candidates.size(), 5u);
  EXPECT_EQ(channelOf(*catalog, mixed.candidates.back()), "claude");
}

TEST(Sequential, AMultiProtocolChannelIsSpokenToInTheClientsProtocol) {
  auto catalog = catalogFrom(R"(
gateway_keys: [{name: dev, key: sk-dev}]
channels:
  - name: relay
    base_url: http://127.0.0.1:9
    protocols: [{protocol: openai-chat}, {protocol: anthropic, base_url: "http://127.0.0.1:9/a"}]
    keys: [k]
    models: [m]
)");
  ManualTimeSource clock;
  KeyHealth health(clock);
  Rotation rotation;
  for (auto [client, expected_row] : {std::pair{Protocol::Anthropic, 1u}, {Protocol::OpenAiChat, 0u},
                                      {Protocol::Gemini, 0u}}) {
    auto plan = planCandidates(*catalog, client, "m", health, rotation);
    ASSERT_EQ(plan.candidates.size(), 1u);
    EXPECT_EQ(plan.candidates[0].row, expected_row) << protocolName(client);
  }
}

}  // namespace
}  // namespace llmux::routing
