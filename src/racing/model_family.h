#pragma once

// Model families: the racing thresholds pool the samples of models whose first-token times look
// alike, so a window fills fast enough to be adaptive. Pure.

#include <string_view>

namespace llmux::racing {

enum class ModelFamily { Claude, Gpt, Gemini, Other };
inline constexpr int kModelFamilies = 4;

/// claude, sonnet, opus, haiku -> Claude; gpt, chatgpt, o1, o3, o4 (as a prefix), codex -> Gpt;
/// gemini (as a prefix) -> Gemini; anything else (deepseek, kimi, qwen...) -> Other. Case does
/// not matter, and a vendor or path prefix (`anthropic/`, `models/`) is ignored.
ModelFamily familyOf(std::string_view model);
std::string_view familyName(ModelFamily family);

}  // namespace llmux::racing
