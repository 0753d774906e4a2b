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

TEST(Usage, AnAnswerWithoutReportedUsageIsEstimatedFromWhatItProduced) {
  auto estimate = estimatedUsage(30, 12);
  ASSERT_TRUE(estimate);
  EXPECT_EQ(estimate->input, 30) << "the gateway's prompt estimate";
  EXPECT_EQ(estimate->output, 12);
  EXPECT_EQ(estimate->total(), 42);
  EXPECT_TRUE(estimate->estimated);
  EXPECT_FALSE(estimatedUsage(30, 0)) << "nothing produced, nothing known to be spent";

  Response answered;
  answered.content.push_back(Block{.type = BlockType::Text, .text = std::string(40, 'a')});
  answered.content.push_back(Block{.type = BlockType::ToolCall, .arguments = std::string(8, '1')});
  auto from_content = usageOrEstimate(answered, 25);
  ASSERT_TRUE(from_content);
  EXPECT_EQ(from_content->output, 12) << "text and tool arguments, 4 bytes a token";
  EXPECT_TRUE(from_content->estimated);
  answered.usage = Usage{.input = 7, .output = 9};
  EXPECT_EQ(usageOrEstimate(answered, 25), answered.usage) << "a reported usage wins";
}

}  // namespace
}  // namespace llmux::translate
