// Health probes' configuration (docs/configuration.md#health-probes): the global `probes:`,
// a channel's `probes:` checked against its rows, models, presets and media, and the custom
// scenarios file in YAML or JSON.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "config/loader.h"
#include "parse_helpers.h"

namespace llmux::config {
namespace {

using testing::issuesOf;
using testing::loaded;
using Lines = std::vector<std::string>;

/// One channel "c" (openai-chat and anthropic rows) with `probes` (a YAML flow mapping, "" =
/// none) and the top-level `extra`.
std::string document(std::string const& probes, std::string const& extra = "",
                     std::string const& channel_extra = "") {
  return extra +
         "gateway_keys: [{name: a, key: gw-secret}]\nchannels:\n  - {name: c, protocols: "
         "[{protocol: openai-chat, base_url: \"https://api.example.com\"}, {protocol: anthropic, "
         "base_url: \"https://api.example.com\"}], keys: [k1], models: [m1, m2, tts-1]" +
         channel_extra + (probes.empty() ? std::string() : ", probes: " + probes) + "}\n";
}

/// A file in a fresh temporary directory holding `text`; removed with the object.
class TempFile {
 public:
  TempFile(std::string const& name, std::string const& text) {
    dir_ = std::filesystem::temp_directory_path() /
           ("llmux-probes-test-" + std::to_string(std::random_device{}()));
    std::filesystem::create_directories(dir_);
    path_ = (dir_ / name).string();
    std::ofstream(path_) << text;
  }
  ~TempFile() { std::filesystem::remove_all(dir_); }
  std::string const& path() const { return path_; }

 private:
  std::filesystem::path dir_;
  std::string path_;
};

TEST(ProbesConfig, DefaultsWithoutAnyProbesSection) {
  auto settings = loaded(document(""));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->probes.max_concurrent, 2u);
  EXPECT_EQ(settings->probes.max_per_hour, 600u);
  EXPECT_TRUE(settings->probes.custom.empty());
  EXPECT_FALSE(settings->channels[0].probes.has_value());
}

TEST(ProbesConfig, AChannelsProbesReadEveryField) {
  auto settings = loaded(document(
      "{scenarios: [chat, stream, tools, thinking, multi_turn], models: [m2], protocol: anthropic, "
      "preset: claude-code, interval: 10m, jitter: 30s}",
      "probes: {max_concurrent: 3, max_per_hour: 60}\n"));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->probes.max_concurrent, 3u);
  EXPECT_EQ(settings->probes.max_per_hour, 60u);
  ChannelProbes const& probes = *settings->channels[0].probes;
  EXPECT_EQ(probes.scenarios, (Lines{"chat", "stream", "tools", "thinking", "multi_turn"}));
  EXPECT_EQ(probes.models, Lines{"m2"});
  EXPECT_EQ(settings->channels[0].rows[probes.row].protocol, Protocol::Anthropic);
  EXPECT_EQ(probes.preset, ClientPreset::ClaudeCode);
  EXPECT_EQ(probes.interval, std::chrono::minutes(10));
  EXPECT_EQ(probes.jitter, std::chrono::seconds(30));
}

TEST(ProbesConfig, DefaultsOfAChannelsProbes) {
  auto settings = loaded(document("{}"));
  ASSERT_TRUE(settings);
  ChannelProbes const& probes = *settings->channels[0].probes;
  EXPECT_EQ(probes.scenarios, Lines{"chat"});
  EXPECT_EQ(probes.modelsOf(settings->channels[0].models), Lines{"m1"});  // the first model
  EXPECT_EQ(probes.row, 0u);
  EXPECT_FALSE(probes.preset);
  EXPECT_FALSE(probes.interval);  // on demand only
}

TEST(ProbesConfig, EveryMistakeIsReportedWithItsPath) {
  auto issues = issuesOf(document(
      "{scenarios: [chat, sing, image], models: [m9], protocol: gemini, preset: cursor, "
      "interval: soon, colour: red}",
      "probes: {max_concurrent: 0, max_per_hour: -1}\n"));
  EXPECT_EQ(issues,
            (Lines{"channels[0].probes.colour: unknown key (expected one of scenarios, models, "
                   "protocol, preset, interval, jitter)",
                   "channels[0].probes.scenarios[2]: the channel's media: does not enable images",
                   "channels[0].probes.models[0]: the channel does not serve model \"m9\"",
                   "channels[0].probes.protocol: the channel has no gemini row",
                   "channels[0].probes.interval: expected a duration such as \"30s\", \"10m\", \"1h\"",
                   "probes.max_concurrent: must be from 1 to 1000",
                   "probes.max_per_hour: must be from 1 to 1000000",
                   "channels[0].probes.scenarios[1]: unknown scenario \"sing\" (expected chat, "
                   "stream, tools, thinking, multi_turn, image, video, speech or one of "
                   "probes.scenarios_file)"}))
      << ::testing::PrintToString(issues);
}

TEST(ProbesConfig, APresetMustAgreeWithTheProtocol) {
  auto issues = issuesOf(document("{protocol: openai-chat, preset: claude-code}"));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0], "channels[0].probes.preset: the preset speaks anthropic, not the probes' protocol");
  auto jitter = issuesOf(document("{jitter: 5s}"));
  ASSERT_EQ(jitter.size(), 1u);
  EXPECT_EQ(jitter[0], "channels[0].probes.jitter: only applies with an interval");
}

TEST(ProbesConfig, MediaScenariosNeedTheirModality) {
  auto settings = loaded(document("{scenarios: [speech], models: [tts-1]}", "", ", media: {speech: true}"));
  ASSERT_TRUE(settings);
  EXPECT_EQ(settings->channels[0].probes->scenarios, Lines{"speech"});
}

TEST(ProbesConfig, CustomScenariosFromAYamlFile) {
  TempFile file("scenarios.yaml", R"(scenarios:
  - name: haiku
    protocol: anthropic
    body: {max_tokens: 64, messages: [{role: user, content: "Write a haiku"}], temperature: 0.5, note: "007"}
    expect: {status: 2xx, pointer: /content/0/type, equals: text, contains: haiku}
  - name: teapot
    protocol: openai-chat
    body: '{"messages":[{"role":"user","content":"hi"}]}'
    stream: true
    expect: {status: 418}
)");
  auto settings = loaded(document("{scenarios: [haiku, teapot, chat]}",
                                  "probes: {scenarios_file: \"" + file.path() + "\"}\n"));
  ASSERT_TRUE(settings);
  ASSERT_EQ(settings->probes.custom.size(), 2u);
  CustomProbeScenario const& haiku = settings->probes.custom[0];
  EXPECT_EQ(haiku.name, "haiku");
  EXPECT_EQ(haiku.protocol, Protocol::Anthropic);
  // YAML becomes JSON: plain numbers stay numbers, quoted scalars stay strings.
  EXPECT_EQ(haiku.body,
            R"({"max_tokens":64,"messages":[{"role":"user","content":"Write a haiku"}],"temperature":0.5,"note":"007"})");
  EXPECT_EQ(haiku.status_min, 200);
  EXPECT_EQ(haiku.status_max, 299);
  EXPECT_EQ(haiku.pointer, "/content/0/type");
  EXPECT_EQ(haiku.equals, "text");
  EXPECT_EQ(haiku.contains, "haiku");
  CustomProbeScenario const& teapot = settings->probes.custom[1];
  EXPECT_TRUE(teapot.stream);
  EXPECT_EQ(teapot.status_min, 418);
  EXPECT_EQ(teapot.status_max, 418);
  EXPECT_EQ(teapot.body, R"({"messages":[{"role":"user","content":"hi"}]})");
  EXPECT_EQ(settings->probes.customNamed("teapot"), &teapot);
}

TEST(ProbesConfig, CustomScenariosFromAJsonFile) {
  TempFile file("scenarios.json", R"([{"name": "ping", "protocol": "gemini",
    "body": {"contents": [{"parts": [{"text": "ping"}]}]}, "expect": {"contains": "pong"}}])");
  auto settings = loaded(document("", "probes: {scenarios_file: \"" + file.path() + "\"}\n"));
  ASSERT_TRUE(settings);
  ASSERT_EQ(settings->probes.custom.size(), 1u);
  EXPECT_EQ(settings->probes.custom[0].protocol, Protocol::Gemini);
  EXPECT_EQ(settings->probes.custom[0].body, R"({"contents":[{"parts":[{"text":"ping"}]}]})");
  // The channel has no gemini row: it may not use the scenario.
  auto issues = issuesOf(document("{scenarios: [ping]}", "probes: {scenarios_file: \"" + file.path() + "\"}\n"));
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0], "channels[0].probes.scenarios[0]: scenario \"ping\" speaks gemini, which the channel has no row for");
}

TEST(ProbesConfig, ABadScenariosFileIsReported) {
  auto missing = issuesOf(document("", "probes: {scenarios_file: /nonexistent/llmux/scenarios.yaml}\n"));
  EXPECT_EQ(missing, Lines{"probes.scenarios_file: cannot read the scenarios file"});
  TempFile file("bad.yaml", R"(- {name: chat, protocol: openai-chat, body: {}}
- {name: x, protocol: cobol, body: "not json", expect: {status: 7xx, pointer: nope, equals: 1}}
- {name: y, protocol: openai-chat, body: {}, expect: {equals: a}}
- {name: w, protocol: openai-chat, body: {}}
- {name: w, protocol: openai-chat, body: {}}
)");
  auto issues = issuesOf(document("", "probes: {scenarios_file: \"" + file.path() + "\"}\n"));
  EXPECT_EQ(issues, (Lines{"probes.scenarios_file[0].name: \"chat\" is a built-in scenario",
                           "probes.scenarios_file[1].protocol: unknown protocol \"cobol\" (expected "
                           "openai-chat, openai-responses, anthropic, gemini)",
                           "probes.scenarios_file[1].body: expected a JSON object (a mapping or its JSON text)",
                           "probes.scenarios_file[1].expect.status: expected an integer from 100 to 599",
                           "probes.scenarios_file[1].expect.pointer: a JSON pointer starts with '/' (\"/choices/0\")",
                           "probes.scenarios_file[2].expect.equals: needs a pointer to compare with",
                           "probes.scenarios_file[4]: duplicate scenario name \"w\""}))
      << ::testing::PrintToString(issues);
}

}  // namespace
}  // namespace llmux::config
