#include "translate/usage.h"

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

}  // namespace llmux::translate
