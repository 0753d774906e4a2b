#include "racing/pseudo_tool_call.h"

#include <gtest/gtest.h>

namespace llmux::racing {
namespace {

TEST(PseudoToolCall, MarkupFamiliesAreRecognised) {
  EXPECT_TRUE(looksLikePseudoToolCall("<tool_call>\n{\"name\": \"read_file\"}"));
  EXPECT_TRUE(looksLikePseudoToolCall("  <TOOL_CALLS>[...]"));
  EXPECT_TRUE(looksLikePseudoToolCall("Let me check.<function_call>{\"name\":\"ls\"}"));
  EXPECT_TRUE(looksLikePseudoToolCall("[TOOL_CALLS][{\"name\":\"ls\"}]"));
  EXPECT_TRUE(looksLikePseudoToolCall("<|tool_calls_begin|><|tool_call_begin|>function"));
  // DeepSeek's special tokens as printed: full-width bars and SentencePiece spaces.
  EXPECT_TRUE(looksLikePseudoToolCall(
      "\xEF\xBD\x9C" "dummy <\xEF\xBD\x9Ctool\xE2\x96\x81" "calls\xE2\x96\x81" "begin\xEF\xBD\x9C>"));
  EXPECT_TRUE(looksLikePseudoToolCall("<|tool\xE2\x96\x81" "call\xE2\x96\x81" "begin|>"));
  EXPECT_TRUE(looksLikePseudoToolCall("<|python_tag|>{\"name\": \"search\"}"));
}

TEST(PseudoToolCall, MarkupIsSeenThroughJsonEscapes) {
  // A branch's first content is checked as it came on the wire: Go escapes < and >, Python's
  // json.dumps everything outside ASCII.
  EXPECT_TRUE(looksLikePseudoToolCall(R"({"content":"\u003ctool_call\u003e{\"name\":1}"})"));
  EXPECT_TRUE(looksLikePseudoToolCall(R"({"text":"\u003C|python_tag|\u003E"})"));
  EXPECT_TRUE(looksLikePseudoToolCall(R"(<\uff5ctool\u2581calls\u2581begin\uff5c>)"));
  EXPECT_FALSE(looksLikePseudoToolCall(R"({"content":"\u003cb\u003ebold"})"));
  EXPECT_FALSE(looksLikePseudoToolCall(R"(\u00")"));  // a short escape at the end
}

TEST(PseudoToolCall, OrdinaryTextIsNot) {
  EXPECT_FALSE(looksLikePseudoToolCall(""));
  EXPECT_FALSE(looksLikePseudoToolCall("I'll call the read_file tool next."));
  EXPECT_FALSE(looksLikePseudoToolCall("Use `tool_call` ids to match results."));
  EXPECT_FALSE(looksLikePseudoToolCall("<b>bold</b> and <tool> tags"));
  EXPECT_FALSE(looksLikePseudoToolCall("\xE4\xBD\xA0\xE5\xA5\xBD"));  // 你好
}

}  // namespace
}  // namespace llmux::racing
