#include "translate/usage.h"

#include <gtest/gtest.h>

namespace llmux::translate {
namespace {

TEST(Usage, TotalIsInputPlusOutputWithCacheAsSubsets) {
  Usage u{.input = 100, .cache_read = 80, .cache_write = 10, .output = 30, .reasoning = 20};
  EXPECT_EQ(u.total(), 130) << "cached tokens are part of input, reasoning part of output";
}

TEST(Usage, ZeroCompletionWithContentIsReestimated) {
  Response r;
  r.content.push_back(Block{.type = BlockType::Text, .text = std::string(40, 'a')});
  r.usage = Usage{.input = 12, .output = 0};
  fixZeroCompletion(r);
  EXPECT_EQ(r.usage->output, 10);
  EXPECT_TRUE(r.usage->estimated);

  Response empty;
  empty.usage = Usage{.input = 12, .output = 0};
  fixZeroCompletion(empty);
  EXPECT_EQ(empty.usage->output, 0);
  EXPECT_FALSE(empty.usage->estimated);
}

}  // namespace
}  // namespace llmux::translate
