#include "translate/presets.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <cstdint>
#include <cstdio>

namespace llmux::translate {
namespace {

namespace json = boost::json;

// The client versions the presets imitate: the ones captured in tests/data/fixtures/clients
// (Claude Code 2.1.332, Codex CLI 0.171.0, Gemini CLI 0.61.0) and, for the editor agents, the
// identifying headers their public sources send (docs/presets.md).
constexpr std::string_view kClaudeCodeUserAgent = "claude-cli/2.1.332 (external, cli)";
constexpr std::string_view kClaudeCodeBetas = "claude-code-20250219,interleaved-thinking-2025-05-14";
constexpr std::string_view kCodexUserAgent =
    "codex_exec/0.171.0 (Debian 12.0.0; x86_64) dumb (codex_exec; 0.171.0)";
constexpr std::string_view kGeminiCliVersion = "0.61.0";
constexpr std::string_view kGoogleApiClient = "google-genai-sdk/1.30.0 gl-node/v20.20.2";

// Codex sends its (long) system prompt as `instructions`; some Codex backends refuse a request
// without one. Used only when the caller gave no system prompt at all.
constexpr std::string_view kCodexInstructions =
    "You are a coding agent. Answer the user's request, using the available tools when needed.";

// Claude Code's default output limit (its captured request: max_tokens 32000).
constexpr std::int64_t kClaudeCodeMaxTokens = 32000;

/// A stable 64-bit FNV-1a hash in hex: Claude Code's metadata.user_id carries a device id; the
/// preset derives one from the session so the same session always looks like the same device.
std::string hexHash(std::string_view text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

/// "thinkingConfig" → "thinking_config": Gemini accepts both spellings, a body uses one.
std::string snakeCase(std::string_view key) {
  std::string out;
  for (char c : key) {
    if (c >= 'A' && c <= 'Z') {
      out += '_';
      out += static_cast<char>(c - 'A' + 'a');
    } else {
      out += c;
    }
  }
  return out;
}

/// Adds each default member `into` lacks; objects present on both sides are merged member by
/// member. `either_case`: a member also counts as present under its snake_case spelling
/// (Gemini). Returns whether anything was added.
bool fillAbsent(json::object& into, json::object const& defaults, bool either_case) {
  bool added = false;
  for (auto const& [key, value] : defaults) {
    json::value* have = into.if_contains(key);
    if (have == nullptr && either_case) have = into.if_contains(snakeCase(key));
    if (have == nullptr) {
      into.emplace(key, value);
      added = true;
    } else if (have->is_object() && value.is_object()) {
      added |= fillAbsent(have->as_object(), value.as_object(), either_case);
    }
  }
  return added;
}

json::object defaultFields(ClientPreset preset, PresetContext const& context) {
  json::object fields;
  switch (preset) {
    case ClientPreset::ClaudeCode: {
      fields["max_tokens"] = kClaudeCodeMaxTokens;
      if (!context.session_id.empty()) {
        json::object user;
        user["device_id"] = hexHash(context.session_id);
        user["account_uuid"] = "";
        user["session_id"] = context.session_id;
        fields["metadata"] = json::object{{"user_id", json::serialize(user)}};
      }
      break;
    }
    case ClientPreset::CodexCli: {
      fields["instructions"] = kCodexInstructions;
      fields["store"] = false;
      fields["text"] = json::object{{"verbosity", "medium"}};
      if (!context.reasoning_off) {
        fields["reasoning"] = json::object{{"effort", "medium"}, {"summary", "auto"}};
        fields["include"] = json::array{"reasoning.encrypted_content"};
      }
      if (!context.session_id.empty()) fields["prompt_cache_key"] = context.session_id;
      break;
    }
    case ClientPreset::GeminiCli: {
      json::object generation{{"temperature", 1}, {"topP", 0.95}, {"topK", 64}};
      if (!context.reasoning_off) {
        generation["thinkingConfig"] = json::object{{"includeThoughts", true}};
      }
      fields["generationConfig"] = std::move(generation);
      break;
    }
    case ClientPreset::Cursor:
    case ClientPreset::Cline:
    case ClientPreset::RooCode:
    case ClientPreset::OpenCode:
    case ClientPreset::WorkBuddy:
      // These agents always ask for the usage of a stream (they show token counts).
      if (context.stream) fields["stream_options"] = json::object{{"include_usage", true}};
      break;
  }
  return fields;
}

}  // namespace

HeaderList presetHeaders(ClientPreset preset, PresetContext const& context) {
  HeaderList headers;
  bool session = !context.session_id.empty();
  switch (preset) {
    case ClientPreset::ClaudeCode:
      headers.add("User-Agent", kClaudeCodeUserAgent);
      headers.add("x-app", "cli");
      headers.add("anthropic-version", "2023-06-01");
      headers.add("anthropic-beta", kClaudeCodeBetas);
      headers.add("anthropic-dangerous-direct-browser-access", "true");
      headers.add("x-stainless-lang", "js");
      headers.add("x-stainless-package-version", "0.128.0");
      headers.add("x-stainless-runtime", "node");
      if (session) headers.add("x-claude-code-session-id", context.session_id);
      break;
    case ClientPreset::CodexCli:
      headers.add("User-Agent", kCodexUserAgent);
      headers.add("originator", "codex_exec");
      if (session) {
        headers.add("session-id", context.session_id);
        headers.add("thread-id", context.session_id);
      }
      break;
    case ClientPreset::GeminiCli:
      headers.add("User-Agent", "GeminiCLI/" + std::string(kGeminiCliVersion) + "/" +
                                    std::string(context.model) + " (linux; x64)");
      headers.add("x-goog-api-client", kGoogleApiClient);
      break;
    case ClientPreset::Cline:
      headers.add("HTTP-Referer", "https://cline.bot");
      headers.add("X-Title", "Cline");
      break;
    case ClientPreset::RooCode:
      headers.add("HTTP-Referer", "https://github.com/RooVetGit/Roo-Cline");
      headers.add("X-Title", "Roo Code");
      headers.add("User-Agent", "RooCode/3.25.0");
      break;
    case ClientPreset::OpenCode:
      headers.add("HTTP-Referer", "https://opencode.ai/");
      headers.add("X-Title", "opencode");
      headers.add("User-Agent", "opencode/1.0.0");
      if (session) headers.add("x-opencode-session", context.session_id);
      break;
    case ClientPreset::Cursor: headers.add("User-Agent", "Cursor/3.14.7"); break;
    case ClientPreset::WorkBuddy: headers.add("User-Agent", "WorkBuddy/1.0"); break;
  }
  return headers;
}

std::string_view presetQuery(ClientPreset preset) {
  return preset == ClientPreset::ClaudeCode ? "beta=true" : "";
}

bool presetAddsDefaults(ClientPreset preset, Request const& request) {
  return preset == ClientPreset::ClaudeCode && !request.max_output_tokens;
}

void applyPresetDefaults(ClientPreset preset, Request& request) {
  if (preset == ClientPreset::ClaudeCode && !request.max_output_tokens) {
    request.max_output_tokens = kClaudeCodeMaxTokens;
  }
}

std::optional<std::string> withPresetFields(ClientPreset preset, std::string_view body,
                                            PresetContext const& context) {
  json::object defaults = defaultFields(preset, context);
  if (defaults.empty()) return std::nullopt;
  boost::system::error_code ec;
  json::value doc = json::parse(body, ec);
  if (ec || !doc.is_object()) return std::nullopt;
  if (!fillAbsent(doc.as_object(), defaults, preset == ClientPreset::GeminiCli)) return std::nullopt;
  return json::serialize(doc);
}

}  // namespace llmux::translate
