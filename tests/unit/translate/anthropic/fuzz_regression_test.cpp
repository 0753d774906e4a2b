// Inputs the fuzz targets (tests/fuzz) turned up against the Anthropic decoders, kept so that
// every build checks them (the asan preset's UndefinedBehaviorSanitizer included).
#include <gtest/gtest.h>

#include "anthropic/support.h"

namespace llmux::translate::anthropic {
namespace {

using testing::decodeStream;
using testing::describe;

TEST(AnthropicFuzzRegression, IndexBeyondInt64EndsTheStreamCleanly) {
  // anthropic_stream_fuzz: the index parses as a double of 5.6e27, whose conversion to int64
  // was undefined behaviour.
  std::string stream =
      "data:{\"type\":\"content_block_delta\",\"index\":5555555555555555555555555555}";
  for (std::size_t piece : {0, 1, 7}) {
    auto events = decodeStream(stream, piece);
    ASSERT_FALSE(events.empty());
    int endings = 0;
    for (auto const& e : events) {
      if (e.type == EventType::MessageStop || e.type == EventType::Error) ++endings;
    }
    EXPECT_EQ(endings, 1) << describe(events);
    EXPECT_EQ(events.back().type, EventType::Error) << describe(events);
  }
}

TEST(AnthropicFuzzRegression, HugeUsageCountsDoNotOverflow) {
  // Input, cache reads and cache writes are added up: at INT64_MAX each, that sum overflowed.
  std::string stream =
      "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\","
      "\"model\":\"c\",\"usage\":{\"input_tokens\":9223372036854775807,"
      "\"cache_read_input_tokens\":9223372036854775807,\"cache_creation_input_tokens\":"
      "9223372036854775807,\"output_tokens\":3}}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";
  auto events = decodeStream(stream);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().type, EventType::MessageStop) << describe(events);
  int usages = 0;
  for (auto const& e : events) {
    if (e.type != EventType::UsageUpdate) continue;
    ++usages;
    // Counts beyond 2^53 read as not there; the one sane count stays.
    EXPECT_EQ(e.usage.input, 0) << describe(events);
    EXPECT_EQ(e.usage.output, 3) << describe(events);
  }
  EXPECT_GE(usages, 1) << describe(events);
}

}  // namespace
}  // namespace llmux::translate::anthropic
