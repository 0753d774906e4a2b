#include "core/client_preset.h"

namespace llmux {

std::string_view clientPresetName(ClientPreset preset) {
  switch (preset) {
    case ClientPreset::ClaudeCode: return "claude-code";
    case ClientPreset::CodexCli: return "codex-cli";
    case ClientPreset::GeminiCli: return "gemini-cli";
    case ClientPreset::Cursor: return "cursor";
    case ClientPreset::Cline: return "cline";
    case ClientPreset::RooCode: return "roo-code";
    case ClientPreset::OpenCode: return "opencode";
    case ClientPreset::WorkBuddy: return "workbuddy";
  }
  return "unknown";
}

std::optional<ClientPreset> parseClientPreset(std::string_view name) {
  for (ClientPreset preset : kAllClientPresets) {
    if (clientPresetName(preset) == name) return preset;
  }
  return std::nullopt;
}

Protocol presetProtocol(ClientPreset preset) {
  switch (preset) {
    case ClientPreset::ClaudeCode: return Protocol::Anthropic;
    case ClientPreset::CodexCli: return Protocol::OpenAiResponses;
    case ClientPreset::GeminiCli: return Protocol::Gemini;
    default: return Protocol::OpenAiChat;
  }
}

}  // namespace llmux
