#include <gtest/gtest.h>

#include <random>

#include "anthropic/support.h"
#include "translate/anthropic/codec.h"
#include "validators/anthropic_validator.h"

namespace llmux::translate::anthropic {
namespace {

/// The neutral contract (neutral.h) holds whatever the bytes: MessageStart first, blocks one at a
/// time with indexes 0,1,2..., deltas only inside their block, at most one terminal event
/// (MessageStop or Error) and nothing after it.
void expectContract(std::vector<Event> const& events, std::string const& where) {
  ASSERT_FALSE(events.empty()) << where;
  int open = -1;
  int next = 0;
  bool ended = false;
  bool started = false;
  for (Event const& e : events) {
    EXPECT_FALSE(ended) << where << ": event after the end";
    switch (e.type) {
      case EventType::MessageStart:
        EXPECT_FALSE(started) << where;
        started = true;
        break;
      case EventType::BlockStart:
        EXPECT_TRUE(started) << where;
        EXPECT_EQ(open, -1) << where;
        EXPECT_EQ(e.index, next) << where;
        open = next++;
        break;
      case EventType::BlockStop:
        EXPECT_EQ(e.index, open) << where;
        open = -1;
        break;
      case EventType::TextDelta:
      case EventType::ThinkingDelta:
      case EventType::SignatureDelta:
      case EventType::ArgumentsDelta:
        EXPECT_EQ(e.index, open) << where;
        break;
      case EventType::MessageStop:
        EXPECT_EQ(open, -1) << where;
        ended = true;
        break;
      case EventType::Error:
        EXPECT_NE(e.error_status, 0) << where;
        ended = true;
        break;
      case EventType::UsageUpdate:
        EXPECT_GE(e.usage.input, 0) << where;
        EXPECT_GE(e.usage.output, 0) << where;
        break;
    }
  }
  EXPECT_TRUE(ended) << where << ": finish() must end the stream";
}

TEST(AnthropicStreamRobustness, DamagedRecordingsAndGarbageKeepTheContract) {
  std::mt19937 rng(7);
  auto names = testing::fixturesEnding(".response.sse");
  for (auto const& name : names) {
    std::string body = testing::streamBody(name);
    for (int round = 0; round < 40; ++round) {
      std::string damaged = body;
      int edits = std::uniform_int_distribution<int>(1, 8)(rng);
      for (int i = 0; i < edits; ++i) {
        std::size_t at = std::uniform_int_distribution<std::size_t>(0, damaged.size() - 1)(rng);
        switch (rng() % 3) {
          case 0:
            damaged[at] = static_cast<char>(rng());
            break;
          case 1:
            damaged.erase(at, std::uniform_int_distribution<std::size_t>(1, 64)(rng));
            break;
          default:
            damaged.insert(at, damaged.substr(at / 2, 40));
            break;
        }
      }
      auto events = testing::decodeStreamRandomly(damaged, static_cast<std::uint32_t>(round));
      expectContract(events, name + " round " + std::to_string(round));
      // Whatever the damage, a client still gets a valid stream.
      std::string encoded = testing::encodeStream(events, {});
      auto problems = validators::anthropic::validateStream(encoded);
      EXPECT_TRUE(problems.empty()) << name << " round " << round << ": " << problems.front();
    }
  }
  for (int round = 0; round < 200; ++round) {
    std::string garbage(std::uniform_int_distribution<std::size_t>(0, 600)(rng), '\0');
    for (char& c : garbage) c = static_cast<char>(rng());
    if (round % 2 == 0)
      garbage = "event: message_start\ndata: {\"type\":\"message_start\"}\n\n" + garbage;
    expectContract(testing::decodeStream(garbage), "garbage " + std::to_string(round));
  }
}

}  // namespace
}  // namespace llmux::translate::anthropic
