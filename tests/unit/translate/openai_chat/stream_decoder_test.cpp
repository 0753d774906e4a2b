#include <gtest/gtest.h>

#include "openai_chat/chat_test_support.h"
#include "translate/openai_chat/codec.h"

namespace llmux::translate::openai_chat {
namespace {

using testing::byteByByte;
using testing::coalesce;
using testing::decodeStream;
using testing::dump;
using testing::randomPieces;
using testing::readChatFixture;

std::string frame(std::string_view json) { return "data: " + std::string(json) + "\n\n"; }

/// A chunk of the message "chatcmpl-1" with one choice carrying `delta` and `finish`.
std::string chunk(std::string_view delta, std::string_view finish = "null") {
  return frame(R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":)" +
               std::string(delta) + R"(,"finish_reason":)" + std::string(finish) + "}]}");
}

std::string usageChunk(std::string_view usage) {
  return frame(R"({"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":)" +
               std::string(usage) + "}");
}

std::vector<EventType> types(std::vector<Event> const& events) {
  std::vector<EventType> out;
  for (auto const& e : events) out.push_back(e.type);
  return out;
}

TEST(ChatStreamDecoder, TextStreamBecomesOneTextBlock) {
  std::string body = chunk(R"({"role":"assistant","content":"","refusal":null})") +
                     chunk(R"({"content":"Hel"})") + chunk(R"({"content":"lo"})") +
                     chunk("{}", R"("stop")") + "data: [DONE]\n\n";
  auto events = coalesce(decodeStream(body));
  ASSERT_EQ(types(events),
            (std::vector<EventType>{EventType::MessageStart, EventType::BlockStart,
                                    EventType::TextDelta, EventType::BlockStop,
                                    EventType::MessageStop}))
      << dump(events);
  EXPECT_EQ(events[0].id, "chatcmpl-1");
  EXPECT_EQ(events[0].model, "m");
  EXPECT_EQ(events[1].block.type, BlockType::Text);
  EXPECT_EQ(events[2].text, "Hello");
  EXPECT_EQ(events[4].stop, StopReason::EndTurn);
}

TEST(ChatStreamDecoder, StopIsHeldUntilTheUsageChunkAndDone) {
  std::string body = chunk(R"({"role":"assistant","content":"Hi"})") + chunk("{}", R"("length")") +
                     usageChunk(R"({"prompt_tokens":10,"completion_tokens":7,"total_tokens":99,)"
                                R"("prompt_tokens_details":{"cached_tokens":4},)"
                                R"("completion_tokens_details":{"reasoning_tokens":5}})") +
                     "data: [DONE]\n\n";
  auto events = decodeStream(body);
  ASSERT_GE(events.size(), 3u);
  Event const& usage = events[events.size() - 2];
  ASSERT_EQ(usage.type, EventType::UsageUpdate) << dump(events);
  EXPECT_EQ(usage.usage.input, 10);
  EXPECT_EQ(usage.usage.cache_read, 4);
  EXPECT_EQ(usage.usage.output, 7);
  EXPECT_EQ(usage.usage.reasoning, 5);
  EXPECT_EQ(usage.usage.total(), 17) << "the upstream total (99) is not trusted";
  EXPECT_EQ(events.back().type, EventType::MessageStop);
  EXPECT_EQ(events.back().stop, StopReason::MaxTokens);
}

TEST(ChatStreamDecoder, ParallelToolCallsBecomeConsecutiveBlocks) {
  std::string body = readChatFixture("pydantic-ai--chat_stream_parallel_tool_calls.i0.response.sse");
  auto events = coalesce(decodeStream(body));
  std::string expected =
      "MessageStart id=chatcmpl-C1KMEUDb1vVwsROQUCZTgG6A6vtWo model=gpt-4o-2024-08-06\n"
      "BlockStart 0 type=3 id=call_3rqTYrA6H21AYUaRGP4F66oq name=get_country\n"
      "ArgumentsDelta 0 {}\n"
      "BlockStop 0\n"
      "BlockStart 1 type=3 id=call_Xw9XMKBJU48kAAd78WgIswDx name=get_product_name\n"
      "ArgumentsDelta 1 {}\n"
      "BlockStop 1\n"
      "Usage in=364 cache_read=0 out=40 reasoning=0\n"
      "MessageStop 3\n";
  EXPECT_EQ(dump(events), expected);
}

TEST(ChatStreamDecoder, RoleAndToolCallInTheFirstChunk) {
  std::string body = readChatFixture("pydantic-ai--chat_stream_parallel_tool_calls.i1.response.sse");
  auto events = coalesce(decodeStream(body));
  ASSERT_GE(events.size(), 4u) << dump(events);
  EXPECT_EQ(events[1].type, EventType::BlockStart);
  EXPECT_EQ(events[1].block.name, "get_weather");
  EXPECT_EQ(events[2].text, R"({"city":"Mexico City"})");
  EXPECT_EQ(events.back().stop, StopReason::ToolUse);
}

TEST(ChatStreamDecoder, ReasoningContentBecomesAThinkingBlockBeforeText) {
  std::string body = readChatFixture("pydantic-ai--deepseek_reasoning_content_stream.response.sse");
  auto events = coalesce(decodeStream(body));
  ASSERT_GE(events.size(), 8u) << dump(events);
  EXPECT_EQ(events[1].block.type, BlockType::Thinking);
  EXPECT_EQ(events[2].type, EventType::ThinkingDelta);
  EXPECT_TRUE(events[2].text.starts_with("Hmm, the user just")) << events[2].text;
  EXPECT_EQ(events[3].type, EventType::BlockStop);
  EXPECT_EQ(events[4].block.type, BlockType::Text);
  EXPECT_EQ(events[4].index, 1);
  EXPECT_TRUE(events[5].text.ends_with("you today?")) << events[5].text;
  // DeepSeek puts finish_reason and usage in one chunk: the block closes, then usage, then stop.
  EXPECT_EQ(events[6].type, EventType::BlockStop);
  ASSERT_EQ(events[7].type, EventType::UsageUpdate);
  EXPECT_EQ(events[7].usage.output, 212);
  EXPECT_EQ(events[7].usage.reasoning, 198);
  EXPECT_EQ(events.back().type, EventType::MessageStop);
}

TEST(ChatStreamDecoder, AnySplitGivesTheSameEvents) {
  for (std::string_view name :
       {"pydantic-ai--chat_stream_parallel_tool_calls.i0.response.sse",
        "pydantic-ai--chat_stream_parallel_tool_calls.i1.response.sse",
        "pydantic-ai--deepseek_reasoning_content_stream.response.sse",
        "envoy-aigw--chat-streaming.response.sse",
        "envoy-aigw--chat-streaming-detailed-usage.response.sse"}) {
    std::string body = readChatFixture(name);
    ASSERT_FALSE(body.empty()) << name;
    std::string reference = dump(coalesce(decodeStream(body)));
    EXPECT_EQ(dump(coalesce(decodeStream(body, byteByByte))), reference) << name;
    for (unsigned seed = 1; seed <= 5; ++seed) {
      EXPECT_EQ(dump(coalesce(decodeStream(body, randomPieces(seed, 97)))), reference)
          << name << " seed " << seed;
    }
  }
}

TEST(ChatStreamDecoder, EventsLeaveAsSoonAsTheirFrameCompletes) {
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  decoder->feed(chunk(R"({"role":"assistant","content":"A"})"), events);
  EXPECT_EQ(types(events), (std::vector<EventType>{EventType::MessageStart, EventType::BlockStart,
                                                   EventType::TextDelta}));
  std::string next = chunk(R"({"content":"B"})");
  decoder->feed(next.substr(0, next.size() - 1), events);
  EXPECT_EQ(events.size(), 3u) << "half a frame emits nothing";
  decoder->feed("\n", events);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[3].text, "B");
}

TEST(ChatStreamDecoder, InterleavedToolCallsKeepEveryFragmentInOrder) {
  // Call 1 starts before call 0's arguments are complete, then both continue.
  std::string body =
      chunk(R"({"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"a","arguments":"{\"x\":"}}]})") +
      chunk(R"({"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"b","arguments":"{\"y\""}}]})") +
      chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":"1}"}}]})") +
      chunk(R"({"tool_calls":[{"index":1,"function":{"arguments":":2}"}}]})") +
      chunk("{}", R"("tool_calls")") + "data: [DONE]\n\n";
  auto events = coalesce(decodeStream(body));
  std::string expected =
      "MessageStart id=chatcmpl-1 model=m\n"
      "BlockStart 0 type=3 id=call_a name=a\n"
      "ArgumentsDelta 0 {\"x\":1}\n"
      "BlockStop 0\n"
      "BlockStart 1 type=3 id=call_b name=b\n"
      "ArgumentsDelta 1 {\"y\":2}\n"
      "BlockStop 1\n"
      "MessageStop 3\n";
  EXPECT_EQ(dump(events), expected);
}

TEST(ChatStreamDecoder, ARelayThatReusesIndexZeroWithNewIdsMakesNewCalls) {
  std::string body =
      chunk(R"({"role":"assistant","tool_calls":[{"index":0,"id":"call_a","function":{"name":"a","arguments":"{}"}}]})") +
      chunk(R"({"tool_calls":[{"index":0,"id":"call_b","function":{"name":"b","arguments":"{}"}}]})") +
      chunk("{}", R"("tool_calls")") + "data: [DONE]\n\n";
  auto events = decodeStream(body);
  std::vector<std::string> names;
  for (auto const& e : events) {
    if (e.type == EventType::BlockStart) names.push_back(e.block.id + "/" + e.block.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"call_a/a", "call_b/b"})) << dump(events);
}

TEST(ChatStreamDecoder, ToolCallWithoutIdGetsAnInventedOne) {
  std::string body =
      chunk(R"({"role":"assistant","tool_calls":[{"index":0,"function":{"name":"a","arguments":"{}"}}]})") +
      chunk("{}", R"("stop")") + "data: [DONE]\n\n";
  auto events = decodeStream(body);
  ASSERT_GE(events.size(), 2u);
  EXPECT_TRUE(events[1].block.id.starts_with("call_")) << dump(events);
  EXPECT_EQ(events.back().stop, StopReason::ToolUse) << "'stop' with tool calls means tool use";
}

TEST(ChatStreamDecoder, ACallWithoutArgumentFragmentsGetsAnEmptyObject) {
  std::string body =
      chunk(R"({"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"now","arguments":""}}]})") +
      chunk("{}", R"("tool_calls")") + "data: [DONE]\n\n";
  std::string expected =
      "MessageStart id=chatcmpl-1 model=m\n"
      "BlockStart 0 type=3 id=call_a name=now\n"
      "ArgumentsDelta 0 {}\n"
      "BlockStop 0\n"
      "MessageStop 3\n";
  EXPECT_EQ(dump(decodeStream(body)), expected);
}

TEST(ChatStreamDecoder, ErrorFrameBecomesAnErrorEvent) {
  std::string body = chunk(R"({"role":"assistant","content":"A"})") +
                     frame(R"({"error":{"message":"Rate limit reached","type":"rate_limit_error","code":"rate_limit_exceeded"}})") +
                     chunk(R"({"content":"ignored"})");
  auto events = decodeStream(body);
  ASSERT_EQ(events.back().type, EventType::Error) << dump(events);
  EXPECT_EQ(events.back().error_status, 429);
  EXPECT_EQ(events.back().text, "Rate limit reached");
}

TEST(ChatStreamDecoder, IntegerErrorCodeIsTheStatus) {
  auto events = decodeStream(frame(R"({"error":{"code":503,"message":"Provider returned error"}})"));
  ASSERT_EQ(events.size(), 1u) << dump(events);
  EXPECT_EQ(events[0].type, EventType::Error);
  EXPECT_EQ(events[0].error_status, 503);
}

TEST(ChatStreamDecoder, StreamCutBeforeItsEndIsAnError) {
  auto events = decodeStream(chunk(R"({"role":"assistant","content":"A"})"));
  ASSERT_EQ(events.back().type, EventType::Error) << dump(events);
  EXPECT_EQ(events.back().error_status, 502);
}

TEST(ChatStreamDecoder, StreamWithFinishButNoDoneEndsNormally) {
  auto events = decodeStream(chunk(R"({"role":"assistant","content":"A"})") + chunk("{}", R"("stop")"));
  ASSERT_EQ(events.back().type, EventType::MessageStop) << dump(events);
}

TEST(ChatStreamDecoder, MalformedChunkIsAnError) {
  auto events = decodeStream(chunk(R"({"role":"assistant","content":"A"})") + "data: {not json\n\n");
  ASSERT_EQ(events.back().type, EventType::Error) << dump(events);
  EXPECT_EQ(events.back().error_status, 502);
}

TEST(ChatStreamDecoder, FinishReasonErrorIsAnError) {
  auto events = decodeStream(chunk(R"({"role":"assistant","content":"A"})") + chunk("{}", R"("error")"));
  ASSERT_EQ(events.back().type, EventType::Error) << dump(events);
}

TEST(ChatStreamDecoder, RefusalIsTextWithContentFilter) {
  auto events = decodeStream(chunk(R"({"role":"assistant","refusal":"I can't help with that."})") +
                             chunk("{}", R"("stop")") + "data: [DONE]\n\n");
  auto merged = coalesce(events);
  ASSERT_GE(merged.size(), 3u);
  EXPECT_EQ(merged[2].text, "I can't help with that.");
  EXPECT_EQ(merged.back().stop, StopReason::ContentFilter);
}

TEST(ChatStreamDecoder, NothingAfterTheEnd) {
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  decoder->feed(chunk(R"({"role":"assistant","content":"A"})") + chunk("{}", R"("stop")") +
                    "data: [DONE]\n\n" + chunk(R"({"content":"late"})"),
                events);
  decoder->finish(events);
  EXPECT_EQ(events.back().type, EventType::MessageStop) << dump(events);
  for (auto const& e : events) EXPECT_NE(e.text, "late");
}

TEST(ChatStreamDecoder, KeepAlivesAndCrLfFramingAreAccepted) {
  std::string body = ": keep-alive\r\n\r\n" +
                     std::string(R"(data: {"id":"c","model":"m","choices":[{"index":0,"delta":{"content":"x"},"finish_reason":"stop"}]})") +
                     "\r\n\r\ndata: [DONE]\r\n\r\n";
  auto events = coalesce(decodeStream(body));
  ASSERT_EQ(events.size(), 5u) << dump(events);
  EXPECT_EQ(events[2].text, "x");
}

TEST(ChatStreamDecoder, ArbitraryBytesNeverCrash) {
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk.push_back(static_cast<char>((i * 7919) % 251));
  auto events = decodeStream("data: " + junk + "\n\n" + junk, randomPieces(3, 50));
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().type, EventType::Error);
}

}  // namespace
}  // namespace llmux::translate::openai_chat
