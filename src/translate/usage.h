#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "translate/neutral.h"

namespace llmux::translate {

/// Tokens in `text` when no upstream count is available: one token per 4 bytes, rounded up. A
/// documented rough estimate (English text averages ~4 characters per token in the OpenAI,
/// Anthropic and Gemini tokenizers); usage built from it is marked `estimated`.
std::int64_t estimateTokens(std::string_view text);

/// The same estimate for `bytes` bytes of content.
std::int64_t estimateTokensForBytes(std::size_t bytes);

/// Output tokens estimated from everything a response produced (text, reasoning, tool-call
/// arguments).
std::int64_t estimateOutputTokens(Response const& response);

/// The zero-completion fallback: an upstream that reports 0 output tokens for a response that
/// produced content is not trusted; its output is re-estimated and the usage marked estimated.
void fixZeroCompletion(Response& response);

/// The usage of an answer whose upstream reported none (an OpenAI Chat stream without
/// `stream_options.include_usage`, a relay that drops it), so that token and cost budgets are
/// still charged: `prompt_tokens` (the gateway's estimate of the request) in, `output_tokens`
/// (estimated from what the answer produced) out, marked estimated. nullopt when the answer
/// produced nothing: then nothing is known to have been spent.
std::optional<Usage> estimatedUsage(std::int64_t prompt_tokens, std::int64_t output_tokens);

/// A decoded answer's usage, or the estimate from its content when the upstream reported none.
std::optional<Usage> usageOrEstimate(Response const& response, std::int64_t prompt_tokens);

}  // namespace llmux::translate
