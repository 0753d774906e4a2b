// Inputs the fuzz targets (tests/fuzz) turned up against the Gemini decoders, kept so that every
// build checks them: each must end cleanly, in bounded memory.
#include <gtest/gtest.h>

#include <string>

#include "gemini/gemini_test_support.h"
#include "translate/gemini/codec.h"

namespace llmux::translate::gemini {
namespace {

using testing::decodeGeminiStream;

/// A Vertex call whose arguments are gathered from one partialArgs entry at `path`, then ended.
std::string partialArgsStream(std::string const& path) {
  return "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{\"name\":\"f\","
         "\"willContinue\":true,\"partialArgs\":[{\"jsonPath\":\"" +
         path +
         "\",\"stringValue\":\"x\"}]}}]}}]}\r\n\r\n"
         "data: {\"candidates\":[{\"content\":{\"parts\":[{\"functionCall\":{}}]},"
         "\"finishReason\":\"STOP\"}]}\r\n\r\n";
}

/// The arguments of the one tool call in `events`, after checking the stream ended properly.
std::string onlyArguments(std::vector<Event> const& events) {
  std::string arguments;
  int calls = 0;
  for (auto const& e : events) {
    if (e.type == EventType::BlockStart && e.block.type == BlockType::ToolCall) ++calls;
    if (e.type == EventType::ArgumentsDelta) arguments += e.text;
  }
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(events.empty());
  if (!events.empty()) {
    EXPECT_EQ(events.back().type, EventType::MessageStop);
  }
  return arguments;
}

TEST(GeminiFuzzRegression, SkippedIndexesDoNotBlowUpMemory) {
  // 2 KB of path used to pad 300 nested arrays with 100000 nulls each: over 1 GB.
  std::string path = "$";
  for (int i = 0; i < 300; ++i) path += "[99999]";
  std::string arguments = onlyArguments(decodeGeminiStream(partialArgsStream(path)));
  EXPECT_LT(arguments.size(), 64u * 1024) << arguments.substr(0, 200);
}

TEST(GeminiFuzzRegression, SmallSkippedIndexesStillPad) {
  EXPECT_EQ(onlyArguments(decodeGeminiStream(partialArgsStream("$.list[2]"))),
            R"({"list":[null,null,"x"]})");
}

TEST(GeminiFuzzRegression, DeepPathDoesNotOverflowTheStack) {
  // A million steps used to build arguments whose recursive destruction overflowed the stack.
  std::string path = "$";
  for (int i = 0; i < 1000000; ++i) path += "[0]";
  std::string arguments = onlyArguments(decodeGeminiStream(partialArgsStream(path)));
  EXPECT_LT(arguments.size(), 64u * 1024);
}

TEST(GeminiFuzzRegression, HugeUsageCountsDoNotOverflow) {
  // promptTokenCount + toolUsePromptTokenCount at INT64_MAX each overflowed; 1e41 as a count
  // was an undefined conversion from double.
  auto events = decodeGeminiStream(
      "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}]},"
      "\"finishReason\":\"STOP\"}],\"usageMetadata\":{\"promptTokenCount\":"
      "9223372036854775807,\"toolUsePromptTokenCount\":9223372036854775807,"
      "\"thoughtsTokenCount\":1e41,\"candidatesTokenCount\":5}}\r\n\r\n");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().type, EventType::MessageStop);
  int usages = 0;
  for (auto const& e : events) {
    if (e.type != EventType::UsageUpdate) continue;
    ++usages;
    EXPECT_EQ(e.usage.input, 0);
    EXPECT_EQ(e.usage.reasoning, 0);
    EXPECT_EQ(e.usage.output, 5);
  }
  EXPECT_EQ(usages, 1);
}

}  // namespace
}  // namespace llmux::translate::gemini
