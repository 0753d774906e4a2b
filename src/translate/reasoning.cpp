#include "translate/reasoning.h"

namespace llmux::translate {

std::int64_t budgetForEffort(std::string_view effort) {
  if (effort == "minimal" || effort == "low") return 1024;
  if (effort == "high") return 4096;
  if (effort == "xhigh") return 8192;
  if (effort == "max") return 16384;
  return 2048;  // medium, and anything unknown
}

std::string effortForBudget(std::int64_t budget_tokens) {
  if (budget_tokens >= 16384) return "max";
  if (budget_tokens >= 8192) return "xhigh";
  if (budget_tokens >= 4096) return "high";
  if (budget_tokens >= 2048) return "medium";
  if (budget_tokens >= 1024) return "low";
  return "minimal";
}

}  // namespace llmux::translate
