#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "core/wire_protocol.h"

namespace llmux {

/// A client whose way of calling an upstream a channel can adopt (`client_preset:`): the
/// upstream request is then built as that client would send it — its protocol, headers and
/// default fields (translate/presets.h; docs/presets.md).
enum class ClientPreset : std::uint8_t {
  ClaudeCode,  ///< Anthropic Messages
  CodexCli,    ///< OpenAI Responses
  GeminiCli,   ///< Gemini
  Cursor,      ///< OpenAI Chat
  Cline,       ///< OpenAI Chat
  RooCode,     ///< OpenAI Chat
  OpenCode,    ///< OpenAI Chat
  WorkBuddy,   ///< OpenAI Chat
};

inline constexpr std::array<ClientPreset, 8> kAllClientPresets = {
    ClientPreset::ClaudeCode, ClientPreset::CodexCli, ClientPreset::GeminiCli,
    ClientPreset::Cursor,     ClientPreset::Cline,    ClientPreset::RooCode,
    ClientPreset::OpenCode,   ClientPreset::WorkBuddy};

/// The configuration spelling: "claude-code", "codex-cli", "gemini-cli", "cursor", "cline",
/// "roo-code", "opencode", "workbuddy".
std::string_view clientPresetName(ClientPreset preset);

/// Parses the configuration spelling; nullopt when unknown.
std::optional<ClientPreset> parseClientPreset(std::string_view name);

/// The protocol the preset's client speaks.
Protocol presetProtocol(ClientPreset preset);

}  // namespace llmux
