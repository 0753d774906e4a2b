#include "store/state_dir.h"

#include <gtest/gtest.h>

namespace llmux::store {
namespace {

TEST(StateDir, ConfiguredWinsThenLlmuxHomeThenDefault) {
  EXPECT_EQ(resolveStateDir("/srv/llmux", "/home/x/.llmux"), std::filesystem::path("/srv/llmux"));
  EXPECT_EQ(resolveStateDir("", "/home/x/.llmux"), std::filesystem::path("/home/x/.llmux"));
  EXPECT_EQ(resolveStateDir("", ""), std::filesystem::path(".llmux"));
  EXPECT_EQ(resolveStateDir("", nullptr), std::filesystem::path(".llmux"));
}

}  // namespace
}  // namespace llmux::store
