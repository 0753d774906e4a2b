// ${VAR} expansion.

#include <gtest/gtest.h>

#include "config/env.h"
#include "fake_env.h"

namespace llmux::config {
namespace {

using testing::fakeEnv;

TEST(Expand, ReplacesVariables) {
  auto env = fakeEnv({{"A", "alpha"}, {"B_2", "beta"}, {"EMPTY", ""}});
  EXPECT_EQ(*expandVariables("${A}", env), "alpha");
  EXPECT_EQ(*expandVariables("x-${A}-${B_2}-y", env), "x-alpha-beta-y");
  EXPECT_EQ(*expandVariables("${EMPTY}", env), "");
  EXPECT_EQ(*expandVariables("plain", env), "plain");
  EXPECT_EQ(*expandVariables("cost $5 and $A", env), "cost $5 and $A");  // lone $ is literal
  EXPECT_EQ(*expandVariables("ends with $", env), "ends with $");
  EXPECT_EQ(*expandVariables("${A}${A}", env), "alphaalpha");
}

TEST(Expand, ValuesAreNotExpandedAgain) {
  auto env = fakeEnv({{"A", "${B}"}, {"B", "no"}});
  EXPECT_EQ(*expandVariables("${A}", env), "${B}");
}

TEST(Expand, UnsetVariablesAreNamed) {
  auto env = fakeEnv({{"A", "alpha"}});
  auto one = expandVariables("${A}-${MISSING}", env);
  ASSERT_FALSE(one.ok());
  EXPECT_EQ(one.error().message, "environment variable MISSING is not set");
  auto two = expandVariables("${X}${Y}${X}", env);
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.error().message, "environment variables X, Y are not set");
}

TEST(Expand, MalformedReferences) {
  auto env = fakeEnv({{"A", "alpha"}});
  for (std::string text : {"${", "${A", "${}", "${1A}", "${A-B}", "x${ A }"}) {
    auto result = expandVariables(text, env);
    ASSERT_FALSE(result.ok()) << text;
    EXPECT_EQ(result.error().message.rfind("malformed variable reference", 0), 0u) << text;
  }
}

TEST(Expand, VariableNames) {
  EXPECT_TRUE(isVariableName("ANTHROPIC_API_KEY"));
  EXPECT_TRUE(isVariableName("_x1"));
  EXPECT_FALSE(isVariableName(""));
  EXPECT_FALSE(isVariableName("1X"));
  EXPECT_FALSE(isVariableName("A-B"));
}

TEST(Expand, ProcessEnvironmentReadsGetenv) {
  // PATH is set in every test environment; an unlikely name is not.
  auto env = processEnvironment();
  EXPECT_TRUE(env("PATH").has_value());
  EXPECT_FALSE(env("LLMUX_TEST_SURELY_UNSET_VARIABLE_4711").has_value());
}

}  // namespace
}  // namespace llmux::config
