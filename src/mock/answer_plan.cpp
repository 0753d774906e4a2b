#include "mock/answer_plan.h"

#include <algorithm>

#include "mock/schema_values.h"

namespace llmux::mock {
namespace {

constexpr std::size_t kMaxQuoteBytes = 200;

bool isContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

/// `text` cut to `limit` bytes at a UTF-8 boundary, with "..." when something was dropped.
std::string shortQuote(std::string_view text, std::size_t limit) {
  if (text.size() <= limit) return std::string(text);
  std::size_t cut = limit;
  while (cut > 0 && isContinuationByte(text[cut])) --cut;
  std::string out(text.substr(0, cut));
  out += "...";
  return out;
}

std::string joinNames(std::vector<PlannedCall> const& calls) {
  std::string names;
  for (std::size_t i = 0; i < calls.size(); ++i) {
    if (i > 0) names += i + 1 == calls.size() ? " and " : ", ";
    names += calls[i].name;
  }
  return names;
}

void planCalls(RequestFacts const& facts, AnswerPlan& plan) {
  if (facts.tool_choice == ToolChoice::Named) {
    for (auto const& tool : facts.tools) {
      if (tool.name == facts.forced_tool) {
        plan.calls.push_back({std::string(tool.name), argumentsFromSchema(tool.schema)});
        return;
      }
    }
    plan.calls.push_back({std::string(facts.forced_tool), "{}"});
    return;
  }
  std::size_t count = facts.parallel_tool_calls && facts.tools.size() >= 2 ? 2 : 1;
  for (std::size_t i = 0; i < count; ++i) {
    plan.calls.push_back(
        {std::string(facts.tools[i].name), argumentsFromSchema(facts.tools[i].schema)});
  }
}

}  // namespace

std::int64_t estimateTokens(std::size_t chars) {
  return static_cast<std::int64_t>(chars / 4) + 1;
}

AnswerPlan planAnswer(RequestFacts const& facts, bool preamble_before_calls) {
  AnswerPlan plan;
  std::string quote = shortQuote(facts.last_user_text, kMaxQuoteBytes);
  // After a tool result the mock always answers in text, whatever tool_choice says: an agent loop
  // against the mock must end.
  bool call_tools = !facts.tools.empty() && facts.tool_choice != ToolChoice::None &&
                    !facts.last_turn_is_tool_result;
  if (call_tools) {
    planCalls(facts, plan);
    if (preamble_before_calls) {
      plan.text =
          "I'll use the " + joinNames(plan.calls) + (plan.calls.size() > 1 ? " tools." : " tool.");
    }
  } else if (quote.empty()) {
    plan.text = "Hello! How can I help you today?";
  } else {
    plan.text = "You said: \"" + quote + "\"";
  }
  if (facts.thinking) {
    plan.thinking = "The user wrote \"" + quote + "\". ";
    plan.thinking += call_tools ? "I should call " + joinNames(plan.calls) + " before answering."
                                : "I will answer by quoting the message back.";
  }

  TokenUsage& usage = plan.usage;
  usage.prompt = estimateTokens(facts.body_bytes);
  if (facts.cache_marker) {
    usage.cache_read = usage.prompt * 3 / 4;
    usage.cache_write = usage.prompt / 8;
  }
  std::size_t answer_chars = plan.text.size();
  for (auto const& call : plan.calls) answer_chars += call.name.size() + call.arguments.size();
  usage.reasoning = plan.thinking.empty() ? 0 : estimateTokens(plan.thinking.size());
  usage.output = usage.reasoning + estimateTokens(answer_chars);
  return plan;
}

std::vector<std::string_view> splitDeltas(std::string_view text, std::size_t target_bytes) {
  std::vector<std::string_view> pieces;
  std::size_t min_piece = std::max<std::size_t>(target_bytes / 2, 1);
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.size();
    if (start + min_piece < text.size()) {
      // A piece ends before the first space past half the target, so that even a short answer
      // streams in several deltas, each next piece starting with its space as providers send it.
      std::size_t space = text.find(' ', start + min_piece);
      if (space != std::string_view::npos && space - start <= target_bytes * 2) {
        end = space;
      } else if (text.size() - start > target_bytes * 2) {
        // No word boundary nearby: cut at a UTF-8 boundary instead.
        end = start + target_bytes * 2;
        while (end < text.size() && isContinuationByte(text[end])) ++end;
      }
    }
    pieces.push_back(text.substr(start, end - start));
    start = end;
  }
  if (pieces.empty()) pieces.emplace_back();
  return pieces;
}

std::vector<std::string_view> splitFragments(std::string_view text, std::size_t size) {
  std::vector<std::string_view> pieces;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = std::min(text.size(), start + size);
    while (end < text.size() && isContinuationByte(text[end])) ++end;
    pieces.push_back(text.substr(start, end - start));
    start = end;
  }
  return pieces;
}

}  // namespace llmux::mock
