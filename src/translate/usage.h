#pragma once

#include <cstddef>
#include <cstdint>
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

}  // namespace llmux::translate
