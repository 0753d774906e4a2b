#pragma once

// The quality gate of a race: a branch of a request with tools whose first content is tool-call
// markup written as text (what a relay's stand-in model produces instead of a real tool call)
// must not win by being fast. Pure.

#include <string_view>

namespace llmux::racing {

/// Whether `content` (a branch's first text content) carries pseudo tool-call markup:
/// `<tool_call>` / `<tool_calls>`, `<function_call>`, `[TOOL_CALLS]`, and the special-token
/// families `<|tool_calls_begin|>`, `<|tool▁calls▁begin|>`, `<｜tool▁call▁begin｜>` (ASCII or
/// full-width bars, `_` or `▁` separators). Case does not matter.
bool looksLikePseudoToolCall(std::string_view content);

}  // namespace llmux::racing
