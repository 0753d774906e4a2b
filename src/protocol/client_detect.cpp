#include "protocol/client_detect.h"

#include <array>
#include <utility>

#include "core/strings.h"

namespace llmux::protocol {
namespace {

constexpr std::array<std::pair<ClientKind, std::string_view>, 11> kNames = {{
    {ClientKind::ClaudeCode, "claude-code"},
    {ClientKind::CodexCli, "codex-cli"},
    {ClientKind::GeminiCli, "gemini-cli"},
    {ClientKind::Cursor, "cursor"},
    {ClientKind::Cline, "cline"},
    {ClientKind::RooCode, "roo-code"},
    {ClientKind::OpenCode, "opencode"},
    {ClientKind::WorkBuddy, "workbuddy"},
    {ClientKind::OpenAiSdk, "openai-sdk"},
    {ClientKind::AnthropicSdk, "anthropic-sdk"},
    {ClientKind::GoogleGenaiSdk, "google-genai-sdk"},
}};

bool contains(std::string_view haystack, std::string_view needle) {
  return haystack.find(needle) != std::string_view::npos;
}

}  // namespace

ClientKind clientKindFromName(std::string_view name) {
  std::string lowered = toLower(name);
  for (auto const& [kind, spelled] : kNames) {
    if (lowered == spelled) return kind;
  }
  return ClientKind::Unknown;
}

namespace {

ClientKind fromHeaders(HeaderList const& headers) {
  std::string agent = toLower(headers.get("user-agent"));
  std::string originator = toLower(headers.get("originator"));
  if (agent.starts_with("claude-cli/") || contains(agent, "claude-code")) return ClientKind::ClaudeCode;
  if (originator.starts_with("codex") || agent.starts_with("codex")) return ClientKind::CodexCli;
  if (contains(agent, "geminicli")) return ClientKind::GeminiCli;
  if (contains(agent, "cursor")) return ClientKind::Cursor;
  if (contains(agent, "roo-code") || contains(agent, "roocode")) return ClientKind::RooCode;
  if (contains(agent, "cline")) return ClientKind::Cline;
  if (contains(agent, "opencode")) return ClientKind::OpenCode;
  if (contains(agent, "workbuddy")) return ClientKind::WorkBuddy;
  return ClientKind::Unknown;
}

/// An official SDK used directly (agents are built on these SDKs too: checked last).
ClientKind sdkFromHeaders(HeaderList const& headers) {
  std::string agent = toLower(headers.get("user-agent"));
  if (agent.starts_with("openai/")) return ClientKind::OpenAiSdk;
  if (agent.starts_with("anthropic/")) return ClientKind::AnthropicSdk;
  if (contains(toLower(headers.get("x-goog-api-client")), "google-genai-sdk")) {
    return ClientKind::GoogleGenaiSdk;
  }
  return ClientKind::Unknown;
}

/// The opening words each agent's system prompt is known to carry.
ClientKind fromSystemPrompt(std::string_view body) {
  std::string_view head = body.substr(0, 16 * 1024);
  if (contains(head, "You are Claude Code") || contains(head, "Claude Agent SDK")) {
    return ClientKind::ClaudeCode;
  }
  if (contains(head, "running in the Codex CLI")) return ClientKind::CodexCli;
  if (contains(head, "You are Gemini CLI")) return ClientKind::GeminiCli;
  return ClientKind::Unknown;
}

}  // namespace

std::string_view clientKindName(ClientKind kind) {
  for (auto const& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

ClientKind detectClient(HeaderList const& headers, std::string_view body_hint, std::string_view body) {
  if (auto kind = clientKindFromName(body_hint); kind != ClientKind::Unknown) return kind;
  if (auto kind = fromHeaders(headers); kind != ClientKind::Unknown) return kind;
  if (auto kind = fromSystemPrompt(body); kind != ClientKind::Unknown) return kind;
  return sdkFromHeaders(headers);
}

}  // namespace llmux::protocol
