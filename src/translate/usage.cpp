#include "translate/usage.h"

#include <algorithm>

namespace llmux::translate {

std::int64_t estimateTokens(std::string_view text) { return estimateTokensForBytes(text.size()); }

std::int64_t estimateTokensForBytes(std::size_t bytes) {
  return static_cast<std::int64_t>((bytes + 3) / 4);
}

std::int64_t estimateOutputTokens(Response const& response) {
  std::int64_t tokens = 0;
  for (Block const& block : response.content) {
    tokens += estimateTokens(block.text) + estimateTokens(block.arguments);
  }
  return tokens;
}

void fixZeroCompletion(Response& response) {
  if (!response.usage || response.usage->output != 0) return;
  std::int64_t estimate = estimateOutputTokens(response);
  if (estimate == 0) return;
  response.usage->output = estimate;
  response.usage->estimated = true;
}

std::optional<Usage> estimatedUsage(std::int64_t prompt_tokens, std::int64_t output_tokens) {
  if (output_tokens <= 0) return std::nullopt;
  Usage usage;
  usage.input = std::max<std::int64_t>(prompt_tokens, 0);
  usage.output = output_tokens;
  usage.estimated = true;
  return usage;
}

std::optional<Usage> usageOrEstimate(Response const& response, std::int64_t prompt_tokens) {
  if (response.usage) return response.usage;
  return estimatedUsage(prompt_tokens, estimateOutputTokens(response));
}

}  // namespace llmux::translate
