// Client presets: the headers and default fields of each preset, filled only where the caller
// set nothing.
#include "translate/presets.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

namespace llmux::translate {
namespace {

namespace json = boost::json;

json::object filled(ClientPreset preset, std::string_view body, PresetContext const& context) {
  auto out = withPresetFields(preset, body, context);
  EXPECT_TRUE(out.has_value()) << "expected defaults to be added to " << body;
  return out ? json::parse(*out).as_object() : json::object();
}

TEST(Presets, EveryPresetSpeaksItsClientsProtocol) {
  EXPECT_EQ(presetProtocol(ClientPreset::ClaudeCode), Protocol::Anthropic);
  EXPECT_EQ(presetProtocol(ClientPreset::CodexCli), Protocol::OpenAiResponses);
  EXPECT_EQ(presetProtocol(ClientPreset::GeminiCli), Protocol::Gemini);
  for (ClientPreset p : {ClientPreset::Cursor, ClientPreset::Cline, ClientPreset::RooCode,
                         ClientPreset::OpenCode, ClientPreset::WorkBuddy}) {
    EXPECT_EQ(presetProtocol(p), Protocol::OpenAiChat) << clientPresetName(p);
  }
  for (ClientPreset p : kAllClientPresets) EXPECT_EQ(parseClientPreset(clientPresetName(p)), p);
  EXPECT_FALSE(parseClientPreset("claude"));
}

TEST(Presets, CodexFillsItsDefaultsAndNeverOverwritesTheCallers) {
  PresetContext context{.model = "gpt-5-codex", .session_id = "sess-1"};
  auto body = filled(ClientPreset::CodexCli,
                     R"({"model":"gpt-5-codex","input":"hi","store":true,)"
                     R"("text":{"format":{"type":"text"}},"reasoning":{"effort":"high"}})",
                     context);
  EXPECT_EQ(body.at("store").as_bool(), true) << "the caller's store stays";
  EXPECT_EQ(body.at("reasoning").at("effort").as_string(), "high") << "the caller's effort stays";
  EXPECT_EQ(body.at("reasoning").at("summary").as_string(), "auto") << "merged into its object";
  EXPECT_EQ(body.at("text").at("verbosity").as_string(), "medium");
  EXPECT_EQ(body.at("text").at("format").at("type").as_string(), "text");
  EXPECT_TRUE(body.at("instructions").is_string());
  EXPECT_EQ(body.at("prompt_cache_key").as_string(), "sess-1");
  EXPECT_EQ(body.at("include").as_array().at(0).as_string(), "reasoning.encrypted_content");

  auto bare = filled(ClientPreset::CodexCli, R"({"model":"m","input":"hi"})", PresetContext{});
  EXPECT_EQ(bare.at("store").as_bool(), false);
  EXPECT_FALSE(bare.contains("prompt_cache_key")) << "no session, no cache key made up";
}

TEST(Presets, ReasoningTurnedOffGetsNoReasoningDefaults) {
  PresetContext off{.reasoning_off = true};
  auto codex = filled(ClientPreset::CodexCli, R"({"model":"m","input":"hi"})", off);
  EXPECT_FALSE(codex.contains("reasoning"));
  EXPECT_FALSE(codex.contains("include"));
  auto gemini = filled(ClientPreset::GeminiCli, R"({"contents":[]})", off);
  EXPECT_FALSE(gemini.at("generationConfig").as_object().contains("thinkingConfig"));
}

TEST(Presets, GeminiMergesIntoEitherSpellingOfItsConfig) {
  auto body = filled(ClientPreset::GeminiCli,
                     R"({"contents":[],"generation_config":{"temperature":0.2,"thinking_config":{"thinking_budget":0}}})",
                     PresetContext{});
  EXPECT_FALSE(body.contains("generationConfig")) << "never both spellings";
  auto const& config = body.at("generation_config").as_object();
  EXPECT_EQ(config.at("temperature").as_double(), 0.2);
  EXPECT_EQ(config.at("topK").as_int64(), 64);
  EXPECT_FALSE(config.at("thinking_config").as_object().contains("includeThoughts") &&
               config.at("thinking_config").as_object().contains("include_thoughts"));
}

TEST(Presets, ClaudeCodeMetadataAndLimit) {
  PresetContext context{.session_id = "69cf496f"};
  auto body = filled(ClientPreset::ClaudeCode, R"({"model":"m","messages":[]})", context);
  EXPECT_EQ(body.at("max_tokens").as_int64(), 32000);
  auto user = json::parse(body.at("metadata").at("user_id").as_string()).as_object();
  EXPECT_EQ(user.at("session_id").as_string(), "69cf496f");
  EXPECT_EQ(user.at("device_id").as_string().size(), 16u);
  EXPECT_EQ(presetQuery(ClientPreset::ClaudeCode), "beta=true");

  Request request;
  applyPresetDefaults(ClientPreset::ClaudeCode, request);
  EXPECT_EQ(request.max_output_tokens, 32000);
  request.max_output_tokens = 100;
  applyPresetDefaults(ClientPreset::ClaudeCode, request);
  EXPECT_EQ(request.max_output_tokens, 100) << "the caller's limit stays";
}

TEST(Presets, NothingMissingMeansTheBodyIsSentAsItIs) {
  EXPECT_FALSE(withPresetFields(ClientPreset::Cline, R"({"model":"m","messages":[]})", {}))
      << "not streaming: no stream_options to add";
  EXPECT_FALSE(withPresetFields(ClientPreset::Cline,
                                R"({"stream":true,"stream_options":{"include_usage":false}})",
                                PresetContext{.stream = true}));
  EXPECT_FALSE(withPresetFields(ClientPreset::CodexCli, "not json", {}));
  auto streamed = filled(ClientPreset::RooCode, R"({"model":"m","stream":true})",
                         PresetContext{.stream = true});
  EXPECT_EQ(streamed.at("stream_options").at("include_usage").as_bool(), true);
}

TEST(Presets, HeadersNameTheClient) {
  auto claude = presetHeaders(ClientPreset::ClaudeCode, PresetContext{.session_id = "s1"});
  EXPECT_TRUE(claude.get("user-agent").starts_with("claude-cli/"));
  EXPECT_EQ(claude.get("x-app"), "cli");
  EXPECT_NE(claude.get("anthropic-beta").find("claude-code-20250219"), std::string_view::npos);
  EXPECT_EQ(claude.get("x-claude-code-session-id"), "s1");
  auto codex = presetHeaders(ClientPreset::CodexCli, PresetContext{});
  EXPECT_EQ(codex.get("originator"), "codex_exec");
  EXPECT_FALSE(codex.has("session-id")) << "no session, no session header";
  auto gemini = presetHeaders(ClientPreset::GeminiCli, PresetContext{.model = "gemini-2.5-pro"});
  EXPECT_NE(gemini.get("user-agent").find("/gemini-2.5-pro "), std::string_view::npos);
  EXPECT_EQ(presetHeaders(ClientPreset::Cline, {}).get("x-title"), "Cline");
  EXPECT_EQ(presetHeaders(ClientPreset::OpenCode, PresetContext{.session_id = "o"}).get("x-opencode-session"), "o");
}

}  // namespace
}  // namespace llmux::translate
