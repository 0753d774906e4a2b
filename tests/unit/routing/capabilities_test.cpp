// The capability table (prefix lookup, overrides) and the fallback gate's verdicts.

#include <gtest/gtest.h>

#include <stdexcept>

#include "routing/capabilities.h"

namespace llmux::routing {
namespace {

using config::ModelCapabilities;

constexpr char kSmallTable[] = R"({"families": [
  {"prefix": "gpt-4o", "tools": true, "vision": true, "reasoning": false, "context_window": 128000},
  {"prefix": "gpt-4o-mini", "tools": true, "vision": false, "context_window": 64000},
  {"prefix": "Odd-Case", "tools": false, "vision": null, "reasoning": true}
]})";

TEST(CapabilityTable, LongestPrefixWins) {
  auto table = CapabilityTable::fromJson(kSmallTable);
  EXPECT_EQ(table.lookup("gpt-4o-mini-2024-07-18"),
            (ModelCapabilities{true, false, std::nullopt, 64000}));
  EXPECT_EQ(table.lookup("gpt-4o-2024-08-06"), (ModelCapabilities{true, true, false, 128000}));
  EXPECT_EQ(table.lookup("gpt-4o"), (ModelCapabilities{true, true, false, 128000}));
}

TEST(CapabilityTable, CaseInsensitiveAndProviderPrefixesIgnored) {
  auto table = CapabilityTable::fromJson(kSmallTable);
  EXPECT_EQ(table.lookup("GPT-4O-Mini"), table.lookup("gpt-4o-mini"));
  EXPECT_EQ(table.lookup("openai/gpt-4o-mini"), table.lookup("gpt-4o-mini"));
  EXPECT_EQ(table.lookup("openrouter/openai/gpt-4o"), table.lookup("gpt-4o"));
  EXPECT_EQ(table.lookup("odd-case-1").tools, false);  // the table's prefix is lowered too
  EXPECT_EQ(table.lookup("odd-case-1").vision, std::nullopt);
}

TEST(CapabilityTable, NoMatchIsAllUnknown) {
  auto table = CapabilityTable::fromJson(kSmallTable);
  EXPECT_EQ(table.lookup("my-local-model"), ModelCapabilities{});
  EXPECT_EQ(table.lookup("gpt-4"), ModelCapabilities{});  // shorter than every prefix
  EXPECT_EQ(table.lookup(""), ModelCapabilities{});
}

TEST(CapabilityTable, RejectsMalformedJson) {
  EXPECT_THROW(CapabilityTable::fromJson("{"), std::runtime_error);
  EXPECT_THROW(CapabilityTable::fromJson("[]"), std::runtime_error);
  EXPECT_THROW(CapabilityTable::fromJson(R"({"families": [{"tools": true}]})"), std::runtime_error);
  EXPECT_THROW(CapabilityTable::fromJson(R"({"families": [{"prefix": "a", "tools": "yes"}]})"),
               std::runtime_error);
  EXPECT_THROW(CapabilityTable::fromJson(R"({"families": [{"prefix": "a", "context_window": 0}]})"),
               std::runtime_error);
  EXPECT_THROW(CapabilityTable::fromJson(R"({"families": [{"prefix": "a"}, {"prefix": "A"}]})"),
               std::runtime_error);
}

TEST(CapabilityTable, BuiltinKnowsTheWellKnownFamilies) {
  auto const& table = CapabilityTable::builtin();
  for (char const* model :
       {"gpt-4o", "gpt-4o-mini", "gpt-4.1", "gpt-4.1-mini", "gpt-5", "gpt-5-mini", "gpt-5-codex",
        "o1", "o3", "o3-mini", "o4-mini", "gpt-3.5-turbo", "gpt-4-turbo", "claude-3-5-sonnet-20241022",
        "claude-3-5-haiku-20241022", "claude-3-7-sonnet-latest", "claude-sonnet-4-20250514",
        "claude-opus-4-20250514", "claude-haiku-4-5", "claude-sonnet-4-5-20250929", "claude-opus-4-1",
        "gemini-1.5-pro", "gemini-1.5-flash", "gemini-2.0-flash", "gemini-2.5-pro",
        "gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-3-pro-preview", "deepseek-chat",
        "deepseek-reasoner", "qwen3-coder-plus", "llama-3.3-70b-instruct", "mistral-large-latest"}) {
    EXPECT_NE(table.lookup(model), ModelCapabilities{}) << model;
  }
  EXPECT_EQ(table.lookup("gpt-4o").tools, true);
  EXPECT_EQ(table.lookup("gpt-4o").context_window, 128000);
  EXPECT_EQ(table.lookup("models/gemini-2.5-pro").reasoning, true);
  EXPECT_EQ(table.lookup("claude-opus-4-1-20250805").reasoning, true);
  // The families known to lack function calling.
  EXPECT_EQ(table.lookup("o1-mini").tools, false);
  EXPECT_EQ(table.lookup("o1-preview-2024-09-12").tools, false);
  EXPECT_EQ(table.lookup("o1-2024-12-17").tools, true);  // o1 itself has them
  EXPECT_EQ(table.lookup("gpt-3.5-turbo-instruct").tools, false);
  EXPECT_EQ(table.lookup("text-embedding-3-large").tools, false);
  EXPECT_EQ(table.lookup("dall-e-3").tools, false);
  EXPECT_EQ(table.lookup("gpt-image-1").tools, false);
  EXPECT_EQ(table.lookup("o3-mini").vision, false);
}

config::Channel channelWith(std::map<std::string, ModelCapabilities> overrides) {
  config::Channel channel;
  channel.name = "c";
  channel.models = {"fast", "other"};
  channel.capabilities = std::move(overrides);
  return channel;
}

TEST(CapabilitiesFor, TableThenStarThenModelFieldByField) {
  auto table = CapabilityTable::fromJson(kSmallTable);
  auto channel = channelWith({
      {"*", {std::nullopt, std::nullopt, true, 32000}},
      {"fast", {false, std::nullopt, std::nullopt, 16000}},
  });
  // The table entry of the upstream name, "*" over it, the client model's own entry over both.
  EXPECT_EQ(capabilitiesFor(channel, "fast", "gpt-4o-mini", table),
            (ModelCapabilities{false, false, true, 16000}));
  // Another model of the channel: only "*" applies.
  EXPECT_EQ(capabilitiesFor(channel, "other", "gpt-4o", table),
            (ModelCapabilities{true, true, true, 32000}));
  // No overrides at all: the table entry.
  EXPECT_EQ(capabilitiesFor(channelWith({}), "other", "gpt-4o", table), table.lookup("gpt-4o"));
  // Overrides fill what the table does not know.
  EXPECT_EQ(capabilitiesFor(channelWith({{"other", {true, true, std::nullopt, std::nullopt}}}),
                            "other", "unknown-model", table),
            (ModelCapabilities{true, true, std::nullopt, std::nullopt}));
}

TEST(CapabilitiesFor, OverridesAreKeyedByTheClientModel) {
  auto table = CapabilityTable::fromJson(kSmallTable);
  auto channel = channelWith({{"gpt-4o", {false, false, false, 1}}});
  // An override for the upstream name does not apply to a different client name.
  EXPECT_EQ(capabilitiesFor(channel, "fast", "gpt-4o", table), table.lookup("gpt-4o"));
}

RequestNeeds needs(bool tools, bool vision, std::int64_t prompt_tokens) {
  return RequestNeeds{tools, vision, prompt_tokens};
}

TEST(GateFallback, AllowWhenEverythingNeededIsKnown) {
  ModelCapabilities full{true, true, true, 100'000};
  auto result = gateFallback(full, needs(true, true, 100'000));
  EXPECT_EQ(result.verdict, GateVerdict::Allow);
  EXPECT_EQ(result.missing, "");
  EXPECT_EQ(gateFallback(ModelCapabilities{}, needs(false, false, 0)).verdict, GateVerdict::Allow);
}

TEST(GateFallback, AllowsWhatIsNotNeeded) {
  ModelCapabilities weak{false, false, false, 1000};
  EXPECT_EQ(gateFallback(weak, needs(false, false, 999)).verdict, GateVerdict::Allow);
}

TEST(GateFallback, RejectsWhatIsKnownMissing) {
  EXPECT_EQ(gateFallback({false, true, {}, {}}, needs(true, false, 0)).verdict, GateVerdict::Reject);
  EXPECT_EQ(gateFallback({false, true, {}, {}}, needs(true, false, 0)).missing, "tools");
  auto no_vision = gateFallback({true, false, {}, {}}, needs(true, true, 0));
  EXPECT_EQ(no_vision.verdict, GateVerdict::Reject);
  EXPECT_EQ(no_vision.missing, "vision");
  auto too_long = gateFallback({true, true, {}, 8192}, needs(false, false, 8193));
  EXPECT_EQ(too_long.verdict, GateVerdict::Reject);
  EXPECT_EQ(too_long.missing, "context_window");
}

TEST(GateFallback, RejectWinsOverUnknown) {
  // Tools unknown but the prompt is known not to fit.
  auto result = gateFallback({std::nullopt, {}, {}, 1000}, needs(true, false, 5000));
  EXPECT_EQ(result.verdict, GateVerdict::Reject);
  EXPECT_EQ(result.missing, "context_window");
}

TEST(GateFallback, UnknownWhenANeededCapabilityIsUnknown) {
  auto tools = gateFallback({std::nullopt, true, {}, {}}, needs(true, true, 10));
  EXPECT_EQ(tools.verdict, GateVerdict::Unknown);
  EXPECT_EQ(tools.missing, "tools");
  auto vision = gateFallback({true, std::nullopt, {}, {}}, needs(true, true, 10));
  EXPECT_EQ(vision.verdict, GateVerdict::Unknown);
  EXPECT_EQ(vision.missing, "vision");
  auto both = gateFallback(ModelCapabilities{}, needs(true, true, 10));
  EXPECT_EQ(both.verdict, GateVerdict::Unknown);
  EXPECT_EQ(both.missing, "tools, vision");
}

TEST(GateFallback, UnknownContextWindowAloneAllows) {
  EXPECT_EQ(gateFallback({true, true, {}, std::nullopt}, needs(true, true, 5'000'000)).verdict,
            GateVerdict::Allow);
}

}  // namespace
}  // namespace llmux::routing
