// A channel's `inspection:` and the model-list arithmetic of auto_update.

#include <gtest/gtest.h>

#include "config/model_refresh.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

std::string document(std::string const& inspection, std::string const& extra = "") {
  return "gateway_keys:\n  - {name: team, key: gw}\nchannels:\n  - name: c\n    protocol: "
         "openai-chat\n    base_url: \"https://o.example/relay\"\n    keys: [k1]\n    models: "
         "[m]\n" +
         extra + "    inspection: " + inspection + "\n";
}

TEST(InspectionConfig, AbsentMeansNoInspection) {
  auto settings = loaded("gateway_keys:\n  - {name: t, key: gw}\nchannels:\n  - {name: c, "
                         "protocol: gemini, base_url: \"https://g.example\", keys: [k], models: "
                         "[m]}\n");
  ASSERT_TRUE(settings);
  EXPECT_FALSE(settings->channels[0].inspection);
}

TEST(InspectionConfig, DefaultsRefreshModelsHourlyWithoutBalance) {
  auto settings = loaded(document("{}"));
  ASSERT_TRUE(settings && settings->channels[0].inspection);
  InspectionSettings const& i = *settings->channels[0].inspection;
  EXPECT_EQ(i.models.path, "");
  EXPECT_EQ(i.models.interval, Millis(3'600'000));
  EXPECT_FALSE(i.models.auto_update);
  EXPECT_FALSE(i.balance);
}

TEST(InspectionConfig, ReadsModelsAndAPointerBalance) {
  auto settings = loaded(document(
      "{models: {path: /api/models, interval: 15m, auto_update: true}, balance: {path: "
      "/api/user/self, pointer: /data/quota, scale: 0.000002, interval: 2h, min: 5}}"));
  ASSERT_TRUE(settings && settings->channels[0].inspection);
  InspectionSettings const& i = *settings->channels[0].inspection;
  EXPECT_EQ(i.models.path, "/api/models");
  EXPECT_EQ(i.models.interval, Millis(900'000));
  EXPECT_TRUE(i.models.auto_update);
  ASSERT_TRUE(i.balance);
  EXPECT_EQ(i.balance->style, BalanceStyle::Pointer);
  EXPECT_EQ(i.balance->path, "/api/user/self");
  EXPECT_EQ(i.balance->pointer, "/data/quota");
  EXPECT_DOUBLE_EQ(i.balance->scale, 0.000002);
  EXPECT_EQ(i.balance->interval, Millis(7'200'000));
  EXPECT_EQ(i.balance->min, 5.0);
}

TEST(InspectionConfig, OpenAiBalanceAndOffIntervals) {
  auto settings = loaded(document("{models: {interval: \"off\"}, balance: openai}"));
  ASSERT_TRUE(settings && settings->channels[0].inspection);
  InspectionSettings const& i = *settings->channels[0].inspection;
  EXPECT_FALSE(i.models.interval);
  ASSERT_TRUE(i.balance);
  EXPECT_EQ(i.balance->style, BalanceStyle::OpenAiBilling);
  EXPECT_EQ(i.balance->interval, Millis(3'600'000));

  settings = loaded(document("{models: \"off\", balance: {style: openai, interval: \"off\", min: 1}}"));
  ASSERT_TRUE(settings && settings->channels[0].inspection);
  EXPECT_FALSE(settings->channels[0].inspection->models.interval);
  EXPECT_FALSE(settings->channels[0].inspection->balance->interval);
  EXPECT_EQ(settings->channels[0].inspection->balance->min, 1.0);
}

TEST(InspectionConfig, ErrorsNameTheirPaths) {
  EXPECT_EQ(issuesOf(document("{models: {interval: 5s}}")),
            (Lines{"channels[0].inspection.models.interval: expected a duration from 10s to 7d "
                   "(such as 90s, 15m, 1h) or off"}));
  EXPECT_EQ(issuesOf(document("{models: {path: \"models?x=1\"}}")),
            (Lines{"channels[0].inspection.models.path: must start with '/' (an absolute path "
                   "on the base URL's host)"}));
  EXPECT_EQ(issuesOf(document("{balance: {path: /b, pointer: data}}")),
            (Lines{"channels[0].inspection.balance.pointer: expected an RFC 6901 JSON pointer "
                   "such as /data/balance"}));
  EXPECT_EQ(issuesOf(document("{balance: {pointer: /data}}")),
            (Lines{"channels[0].inspection.balance.path: required field is missing"}));
  EXPECT_EQ(issuesOf(document("{balance: {style: openai, path: /b}}")),
            (Lines{"channels[0].inspection.balance.path: not used by the openai style (its "
                   "endpoints are fixed)"}));
  EXPECT_EQ(issuesOf(document("{balance: dollars}")),
            (Lines{"channels[0].inspection.balance: expected openai or a mapping {path, "
                   "pointer, interval, scale, min}"}));
  EXPECT_EQ(issuesOf(document("{balance: {path: /b, pointer: /x, scale: 0}}")),
            (Lines{"channels[0].inspection.balance.scale: must not be 0"}));
  auto unknown = issuesOf(document("{schedule: 1h}"));
  ASSERT_EQ(unknown.size(), 1u);
  EXPECT_NE(unknown[0].find("channels[0].inspection.schedule"), std::string::npos);
}

Channel channelOf(std::string const& extra) {
  auto settings = loaded(document("{}", extra));
  EXPECT_TRUE(settings);
  return settings ? settings->channels[0] : Channel{};
}

TEST(ModelRefresh, UpstreamNamesIncludeTheMapsTargets) {
  Channel channel = channelOf("    model_map: {fast: m-mini, m: m-2025}\n");
  // `m` is sent as m-2025; `fast` as m-mini.
  EXPECT_EQ(upstreamModelNames(channel), (std::vector<std::string>{"m-2025", "m-mini"}));
}

TEST(ModelRefresh, DiffTellsAddedAndDropped) {
  ModelListDiff diff = diffModelLists({"a", "b", "c", "b"}, {"d", "c", "a", "e"});
  EXPECT_EQ(diff.added, (std::vector<std::string>{"d", "e"}));
  EXPECT_EQ(diff.dropped, (std::vector<std::string>{"b"}));
  EXPECT_TRUE(diffModelLists({"a"}, {"a"}).empty());
}

TEST(ModelRefresh, ServingTheListKeepsAliasesWhoseTargetIsListed) {
  Channel channel = channelOf("    model_map: {fast: m-mini, old: m-old}\n");
  Channel served = withListedModels(channel, {"m", "m-mini", "m-new"});
  EXPECT_EQ(served.models, (std::vector<std::string>{"m", "m-new"}));
  EXPECT_EQ(served.model_map, (std::map<std::string, std::string>{{"fast", "m-mini"}}));
  EXPECT_TRUE(served.serves("fast"));
  EXPECT_FALSE(served.serves("old"));
  EXPECT_EQ(served.keys.size(), channel.keys.size());

  Channel dropped = withListedModels(channel, {"m-mini"});
  EXPECT_TRUE(dropped.models.empty());
  EXPECT_TRUE(dropped.serves("fast"));
  EXPECT_FALSE(dropped.serves("m"));
}

TEST(ModelRefresh, SettingsIgnoreEmptyListsAndUnknownChannels) {
  auto settings = loaded(document("{}"));
  ASSERT_TRUE(settings);
  Settings same = withListedModels(*settings, {{"c", {}}, {"gone", {"x"}}});
  EXPECT_EQ(same.channels[0].models, (std::vector<std::string>{"m"}));
  Settings changed = withListedModels(*settings, {{"c", {"x", "y"}}});
  EXPECT_EQ(changed.channels[0].models, (std::vector<std::string>{"x", "y"}));
}

}  // namespace
}  // namespace llmux::config
