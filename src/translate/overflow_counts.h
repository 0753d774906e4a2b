#pragma once

// The token counts a context-overflow error states, and the wording each client protocol uses
// for one (REFERENCE.md §6.3). Clients match their own provider's sentence (Claude Code looks for
// "prompt is too long", CLIENTS.md), and some read its two counts to tell how far over the window
// the prompt is, so the counts are taken from the upstream's message when it states them and
// left out — never made up — when it does not.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmux::translate {

/// What an overflow message says about the prompt and the window.
struct OverflowCounts {
  std::optional<std::int64_t> input;  ///< the prompt's tokens
  std::optional<std::int64_t> limit;  ///< the most the model takes as input for this request
};

/// The counts stated by a context-overflow message in any of the wordings llmux recognises:
/// OpenAI ("maximum context length is M tokens. However, your messages resulted in N tokens";
/// "you requested T tokens (N in the messages, C in the completion)"), Anthropic ("prompt is too
/// long: N tokens > M maximum"; "input length and `max_tokens` exceed context limit: N + C > W"),
/// Gemini ("The input token count (N) exceeds the maximum number of tokens allowed (M)"), and the
/// relays' variants (vLLM, OpenRouter, Mistral, xAI). When the message reserves C tokens for the
/// completion out of a window W, the input limit is W − C. Counts that contradict each other
/// (input not above the limit) are dropped.
OverflowCounts readOverflowCounts(std::string_view message);

/// Gemini's own sentence: "The input token count (N) exceeds the maximum number of tokens allowed
/// (M)." — an unknown count is left out with its parentheses, as Gemini itself does when it does
/// not state one ("The input token count exceeds the maximum number of tokens allowed (M).").
std::string geminiOverflowMessage(OverflowCounts const& counts);

/// Anthropic's sentence "prompt is too long: N tokens > M maximum" when both counts are known;
/// otherwise "prompt is too long: " + `upstream_message` (unless it says so already), which is
/// the part Claude Code recognises.
std::string anthropicOverflowMessage(OverflowCounts const& counts,
                                     std::string_view upstream_message);

}  // namespace llmux::translate
