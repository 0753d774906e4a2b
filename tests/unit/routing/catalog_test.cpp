// The Catalog's plan tables: what a plan reads about a model's channels and keys, worked out once
// per configuration, must say what the Settings say, and a reload's catalog what the new ones say.
#include "routing/catalog.h"

#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <string>

#include "settings_fixture.h"

namespace llmux::routing {
namespace {

using testing::catalogFrom;

constexpr char kConfig[] = R"(
listen: 127.0.0.1:0
gateway_keys:
  - {name: dev, key: sk-dev}
channels:
  - name: relay
    base_url: http://127.0.0.1:1
    protocols: [{protocol: openai-chat}, {protocol: anthropic, base_url: "http://127.0.0.1:1/a"}]
    keys: [{key: r0, weight: 3}, {key: r1, enabled: false}, r2]
    models: [gpt-4o, claude-x]
    model_map: {smart: gpt-4o}
    priority: 5
    weight: 2
  - name: direct
    protocol: anthropic
    base_url: http://127.0.0.1:2
    keys: [d0]
    models: [claude-x]
    model_map: {gpt-4o: gpt-4o-2024-08-06}
  - name: off
    protocol: openai-chat
    base_url: http://127.0.0.1:3
    keys: [o0]
    models: [gpt-4o]
    enabled: false
  - name: backup
    protocol: gemini
    base_url: http://127.0.0.1:4
    keys: [b0, b1]
    models: [gpt-4o]
    priority: 5
)";

std::size_t protocolIndex(Protocol p) { return static_cast<std::size_t>(p); }

/// Every PlanChannel and PlanKey of every model against the Settings.
void expectTablesMatchSettings(Catalog const& catalog) {
  auto const& settings = catalog.settings();
  std::set<std::uint32_t> key_slots;
  for (auto const& model : catalog.modelNames()) {
    auto const* plan = catalog.modelPlan(model);
    auto const& channels = catalog.channelsFor(model);
    if (channels.empty()) {
      EXPECT_EQ(plan, nullptr) << model;
      continue;
    }
    ASSERT_NE(plan, nullptr) << model;
    ASSERT_EQ(plan->channels.size(), channels.size()) << model;
    for (std::size_t i = 0; i < channels.size(); ++i) {
      auto const& entry = plan->channels[i];
      auto const& channel = settings.channels[channels[i]];
      EXPECT_EQ(entry.channel, channels[i]) << model;
      EXPECT_EQ(*entry.model, model);
      EXPECT_EQ(*entry.upstream, channel.upstreamModel(model));
      EXPECT_EQ(entry.priority, channel.priority);
      EXPECT_LT(entry.priority_rank, plan->priorities);
      for (Protocol p : kAllProtocols) {
        std::size_t row = channel.rowIndexFor(p, model);
        EXPECT_EQ(entry.row[protocolIndex(p)], row) << channel.name << " " << protocolName(p);
        EXPECT_EQ((entry.passthrough >> protocolIndex(p)) & 1, channel.rows[row].protocol == p ? 1 : 0);
      }
      std::vector<std::size_t> enabled;
      for (std::size_t k = 0; k < channel.keys.size(); ++k) {
        if (channel.keys[k].enabled) enabled.push_back(k);
      }
      ASSERT_EQ(entry.keys_end - entry.keys_begin, enabled.size()) << channel.name;
      for (std::size_t k = 0; k < enabled.size(); ++k) {
        auto const& key = plan->keys[entry.keys_begin + k];
        auto const& configured = channel.keys[enabled[k]];
        EXPECT_EQ(key.index, enabled[k]);
        EXPECT_EQ(key.key, &configured);
        EXPECT_EQ(key.id.id, configured.id);
        EXPECT_EQ(key.id.hash, std::hash<std::string_view>{}(configured.id));
        EXPECT_EQ(key.weight, static_cast<double>(std::max(channel.weight, 1)) * std::max(configured.weight, 1));
        EXPECT_LT(key.key_slot, catalog.keySlots());
        EXPECT_LT(key.stats_slot, catalog.statsSlots());
        key_slots.insert(key.key_slot);
      }
    }
  }
  // Every enabled key of an enabled channel serves some model here: every slot is used.
  EXPECT_EQ(key_slots.size(), catalog.keySlots());
}

TEST(CatalogPlans, TablesSayWhatTheSettingsSay) {
  auto catalog = catalogFrom(kConfig);
  expectTablesMatchSettings(*catalog);
  EXPECT_EQ(catalog->keySlots(), 5u);  // r0, r2, d0, b0, b1: disabled keys and channels get none
  EXPECT_EQ(catalog->modelPlan("nope"), nullptr);

  auto const& gpt = *catalog->modelPlan("gpt-4o");
  ASSERT_EQ(gpt.channels.size(), 3u);  // relay, direct, backup; "off" is disabled
  EXPECT_EQ(gpt.priorities, 2u);       // 5 and 0
  EXPECT_EQ(gpt.channels[0].priority_rank, 0u);
  EXPECT_EQ(gpt.channels[1].priority_rank, 1u);
  EXPECT_EQ(gpt.channels[2].priority_rank, 0u);
  // The relay speaks both OpenAI Chat and Anthropic: no translation for either.
  EXPECT_EQ(gpt.channels[0].passthrough, (1u << protocolIndex(Protocol::OpenAiChat)) |
                                             (1u << protocolIndex(Protocol::Anthropic)));
  EXPECT_EQ(gpt.channels[0].row[protocolIndex(Protocol::Anthropic)], 1u);
  EXPECT_EQ(gpt.channels[0].row[protocolIndex(Protocol::Gemini)], 0u);  // translated from the first row
  // direct maps gpt-4o to a snapshot: another upstream name than relay's and backup's.
  EXPECT_NE(gpt.channels[1].upstream_id, gpt.channels[0].upstream_id);
  EXPECT_EQ(gpt.channels[2].upstream_id, gpt.channels[0].upstream_id);
  // The relay's own copies of the names: its model_map holds "smart", its models "gpt-4o".
  auto const& relay = catalog->settings().channels[0];
  EXPECT_EQ(gpt.channels[0].model, &relay.models[0]);
  EXPECT_EQ(catalog->modelPlan("smart")->channels[0].model, &relay.model_map.begin()->first);
  EXPECT_EQ(catalog->modelPlan("smart")->channels[0].upstream, &relay.model_map.begin()->second);
  EXPECT_EQ(gpt.keys[0].weight, 6.0);  // channel weight 2 × key weight 3
}

TEST(CatalogPlans, SlotsAreSharedByModelsThatSendTheSameUpstreamName) {
  auto catalog = catalogFrom(kConfig);
  auto const& relay_gpt = catalog->modelPlan("gpt-4o")->channels[0];
  auto const& relay_smart = catalog->modelPlan("smart")->channels[0];  // an alias sent upstream as gpt-4o
  auto const& relay_claude = catalog->modelPlan("claude-x")->channels[0];
  auto const& gpt_keys = catalog->modelPlan("gpt-4o")->keys;
  auto const& smart_keys = catalog->modelPlan("smart")->keys;
  auto const& claude_keys = catalog->modelPlan("claude-x")->keys;
  for (std::uint32_t k = 0; k < 2; ++k) {
    auto const& a = gpt_keys[relay_gpt.keys_begin + k];
    auto const& b = smart_keys[relay_smart.keys_begin + k];
    auto const& c = claude_keys[relay_claude.keys_begin + k];
    EXPECT_EQ(a.key_slot, b.key_slot);
    EXPECT_EQ(a.key_slot, c.key_slot);
    EXPECT_EQ(a.stats_slot, b.stats_slot) << "same key, same upstream model";
    EXPECT_NE(a.stats_slot, c.stats_slot) << "same key, another upstream model";
  }
  EXPECT_EQ(relay_gpt.upstream_id, relay_smart.upstream_id);
  // Distinct (key, upstream model) pairs: relay's 2 keys × {gpt-4o, claude-x}, direct's key ×
  // {claude-x, the snapshot}, backup's 2 keys × gpt-4o.
  EXPECT_EQ(catalog->statsSlots(), 8u);
}

TEST(CatalogPlans, AReloadsCatalogDescribesTheNewSettings) {
  auto before = catalogFrom(kConfig);
  // The reload: backup's keys swapped and one more, relay's priority dropped, direct disabled.
  std::string changed = kConfig;
  auto replace = [&](std::string const& from, std::string const& to) {
    auto at = changed.find(from);
    ASSERT_NE(at, std::string::npos) << from;
    changed.replace(at, from.size(), to);
  };
  replace("keys: [b0, b1]", "keys: [b1, b0, b2]");
  replace("priority: 5\n    weight: 2", "priority: 1\n    weight: 2");
  replace("keys: [d0]", "keys: [d0]\n    enabled: false");
  auto after = catalogFrom(changed);
  expectTablesMatchSettings(*after);
  EXPECT_NE(after->identity(), before->identity());
  EXPECT_EQ(after->keySlots(), 5u);  // r0, r2, b1, b0, b2
  auto const& gpt = *after->modelPlan("gpt-4o");
  ASSERT_EQ(gpt.channels.size(), 2u);  // relay, backup
  EXPECT_EQ(gpt.priorities, 2u);       // 1 and 5
  EXPECT_EQ(gpt.channels[0].priority_rank, 1u);
  EXPECT_EQ(gpt.channels[1].priority_rank, 0u);
  ASSERT_EQ(gpt.channels[1].keys_end - gpt.channels[1].keys_begin, 3u);
  EXPECT_EQ(gpt.keys[gpt.channels[1].keys_begin].key->secret, "b1");
  // The old catalog still says what its settings said.
  expectTablesMatchSettings(*before);
  EXPECT_EQ(before->modelPlan("gpt-4o")->channels.size(), 3u);
}

}  // namespace
}  // namespace llmux::routing
