#pragma once

#include <string_view>

#include "core/http_headers.h"

namespace llmux::protocol {

/// The client application behind a request, as far as it can be told.
enum class ClientKind {
  Unknown,
  ClaudeCode,     ///< Anthropic's Claude Code CLI (and Claude Agent SDK apps)
  CodexCli,       ///< OpenAI's Codex CLI
  GeminiCli,      ///< Google's Gemini CLI
  Cursor,
  Cline,
  RooCode,
  OpenCode,
  WorkBuddy,
  OpenAiSdk,      ///< an official OpenAI SDK used directly
  AnthropicSdk,   ///< an official Anthropic SDK used directly
  GoogleGenaiSdk, ///< Google's Gen AI SDK used directly
};

/// The preset spelling: "claude-code", "codex-cli", "gemini-cli", "cursor", "cline", "roo-code",
/// "opencode", "workbuddy", "openai-sdk", "anthropic-sdk", "google-genai-sdk", "unknown".
std::string_view clientKindName(ClientKind kind);

/// Identifies the caller, first match wins: `body_hint`, the `client_type` / `client_preset` string
/// the request body carried (RequestProfile::client_hint); the User-Agent (and Codex's
/// `originator`, the Gemini SDK's `x-goog-api-client`); the signature of the system prompt near
/// the start of the body (Claude Code, Codex CLI, Gemini CLI; only the first 16 KiB are looked at);
/// last, the headers of an official SDK used directly.
ClientKind detectClient(HeaderList const& headers, std::string_view body_hint, std::string_view body);

/// The kind a preset or client_type name spells, Unknown when none.
ClientKind clientKindFromName(std::string_view name);

}  // namespace llmux::protocol
