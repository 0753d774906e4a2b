#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llmux::translate {

/// The one table that converts reasoning effort and thinking budgets between protocols
/// (docs/translation.md; the numbers are LiteLLM's widely copied defaults, REFERENCE.md §9.7):
///   minimal 1024 (Anthropic's minimum), low 1024, medium 2048, high 4096, xhigh 8192, max 16384.
/// An unknown or empty effort counts as "medium".
std::int64_t budgetForEffort(std::string_view effort);

/// Budget -> effort: >= 16384 max, >= 8192 xhigh, >= 4096 high, >= 2048 medium, >= 1024 low,
/// otherwise minimal.
std::string effortForBudget(std::int64_t budget_tokens);

/// Anthropic's smallest thinking budget, and the headroom kept above a budget for the answer when
/// max_tokens must exceed it.
inline constexpr std::int64_t kMinThinkingBudget = 1024;
inline constexpr std::int64_t kAnswerHeadroom = 1024;

/// max_tokens when a protocol requires it (Anthropic) and the client gave none.
inline constexpr std::int64_t kDefaultMaxTokens = 8192;

}  // namespace llmux::translate
