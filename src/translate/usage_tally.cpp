#include "translate/usage_tally.h"

#include "translate/usage.h"

namespace llmux::translate {

bool isContentEvent(Event const& event) {
  switch (event.type) {
    case EventType::MessageStart:
    case EventType::UsageUpdate:
    case EventType::Error: return false;
    case EventType::BlockStart:
      // Opening an empty text or thinking block is framing (Anthropic and Responses open one
      // before the first delta, and may stall right after): the first token is what comes in
      // it. A tool call's start carries its name, and a block may open with its text.
      return !(event.block.type == BlockType::Text || event.block.type == BlockType::Thinking) ||
             !event.block.text.empty();
    default: return true;
  }
}

void UsageTally::observe(Event const& event) {
  switch (event.type) {
    case EventType::UsageUpdate: usage_ = event.usage; break;
    case EventType::TextDelta:
    case EventType::ThinkingDelta:
    case EventType::ArgumentsDelta: content_bytes_ += event.text.size(); break;
    case EventType::BlockStart:
      content_bytes_ += event.block.text.size() + event.block.arguments.size();
      break;
    default: break;
  }
  if (isContentEvent(event)) content_started_ = true;
}

Usage UsageTally::withFallback(Usage usage) const {
  if (usage.output == 0 && content_bytes_ > 0) {
    usage.output = estimateTokensForBytes(content_bytes_);
    usage.estimated = true;
  }
  return usage;
}

void UsageTally::fixUp(Event& event) const {
  if (event.type == EventType::UsageUpdate) event.usage = withFallback(event.usage);
}

std::optional<Usage> UsageTally::usage() const {
  if (!usage_) return std::nullopt;
  return withFallback(*usage_);
}

std::optional<Usage> UsageTally::usageOrEstimate(std::int64_t prompt_tokens) const {
  if (usage_) return withFallback(*usage_);
  return estimatedUsage(prompt_tokens, estimateTokensForBytes(content_bytes_));
}

}  // namespace llmux::translate
