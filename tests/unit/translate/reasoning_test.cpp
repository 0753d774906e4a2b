#include "translate/reasoning.h"

#include <gtest/gtest.h>

namespace llmux::translate {
namespace {

TEST(Reasoning, EffortAndBudgetConvertBothWays) {
  EXPECT_EQ(budgetForEffort("low"), 1024);
  EXPECT_EQ(budgetForEffort("minimal"), 1024) << "Anthropic's minimum";
  EXPECT_EQ(budgetForEffort("medium"), 2048);
  EXPECT_EQ(budgetForEffort(""), 2048);
  EXPECT_EQ(budgetForEffort("high"), 4096);
  EXPECT_EQ(budgetForEffort("max"), 16384);
  for (std::string effort : {"low", "medium", "high", "xhigh", "max"}) {
    EXPECT_EQ(effortForBudget(budgetForEffort(effort)), effort);
  }
  EXPECT_EQ(effortForBudget(500), "minimal");
  EXPECT_EQ(effortForBudget(30000), "max");
}

}  // namespace
}  // namespace llmux::translate
