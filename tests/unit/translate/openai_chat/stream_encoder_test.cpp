#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "openai_chat/chat_test_support.h"
#include "translate/openai_chat/codec.h"
#include "validators/openai_chat_validator.h"

namespace llmux::translate::openai_chat {
namespace {

using testing::encodeStream;
namespace v = validators::openai_chat;

Event start(std::string id = "msg_01", std::string model = "claude-x") {
  Event e{.type = EventType::MessageStart};
  e.id = std::move(id);
  e.model = std::move(model);
  return e;
}

Event blockStart(int index, BlockType type, std::string id = {}, std::string name = {}) {
  Event e{.type = EventType::BlockStart, .index = index};
  e.block.type = type;
  e.block.id = std::move(id);
  e.block.name = std::move(name);
  return e;
}

Event delta(EventType type, int index, std::string text) {
  Event e{.type = type, .index = index};
  e.text = std::move(text);
  return e;
}

Event blockStop(int index) { return Event{.type = EventType::BlockStop, .index = index}; }

Event usage(std::int64_t input, std::int64_t output, std::int64_t cache_read = 0,
            std::int64_t reasoning = 0) {
  Event e{.type = EventType::UsageUpdate};
  e.usage = Usage{.input = input, .cache_read = cache_read, .output = output, .reasoning = reasoning};
  return e;
}

Event messageStop(StopReason stop) { return Event{.type = EventType::MessageStop, .stop = stop}; }

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += p + "\n";
  return out;
}

EncodeOptions options(bool include_usage) {
  return EncodeOptions{.model = "gpt-client", .id = "fallback", .include_usage = include_usage,
                       .created = 1700000000};
}

TEST(ChatStreamEncoder, ThinkingTextAndTwoToolCalls) {
  std::vector<Event> events = {
      start(),
      blockStart(0, BlockType::Thinking),
      delta(EventType::ThinkingDelta, 0, "Let me think"),
      delta(EventType::SignatureDelta, 0, "sig=="),
      blockStop(0),
      blockStart(1, BlockType::Text),
      delta(EventType::TextDelta, 1, "Checking."),
      blockStop(1),
      blockStart(2, BlockType::ToolCall, "toolu_1", "get_weather"),
      delta(EventType::ArgumentsDelta, 2, R"({"city":)"),
      delta(EventType::ArgumentsDelta, 2, R"("Paris"})"),
      blockStop(2),
      blockStart(3, BlockType::ToolCall, "toolu_2", "get_time"),
      delta(EventType::ArgumentsDelta, 3, ""),  // empty fragments are normal and skipped
      delta(EventType::ArgumentsDelta, 3, "{}"),
      blockStop(3),
      usage(120, 40, 100, 12),
      messageStop(StopReason::ToolUse),
  };
  std::string bytes = encodeStream(events, options(true));
  EXPECT_EQ(joined(v::validateStream(bytes)), "") << bytes;
  auto summary = v::summarizeStream(bytes);
  EXPECT_EQ(summary.id, "chatcmpl-msg_01");
  EXPECT_EQ(summary.model, "gpt-client") << "the model the client asked for is echoed";
  EXPECT_EQ(summary.reasoning_content, "Let me think");
  EXPECT_EQ(summary.content, "Checking.");
  ASSERT_EQ(summary.tool_calls.size(), 2u);
  EXPECT_EQ(summary.tool_calls[0].id, "toolu_1");
  EXPECT_EQ(summary.tool_calls[0].arguments, R"({"city":"Paris"})");
  EXPECT_EQ(summary.tool_calls[1].name, "get_time");
  EXPECT_EQ(summary.finish_reason, "tool_calls");
  EXPECT_TRUE(summary.has_usage);
  EXPECT_EQ(summary.prompt_tokens, 120);
  EXPECT_EQ(summary.completion_tokens, 40);
  EXPECT_EQ(summary.total_tokens, 160);
  EXPECT_EQ(summary.cached_tokens, 100);
  EXPECT_EQ(summary.reasoning_tokens, 12);
  EXPECT_EQ(bytes.find("sig=="), std::string::npos) << "signatures have no Chat form";
}

TEST(ChatStreamEncoder, ExactFramesOfASimpleStream) {
  std::vector<Event> events = {start("chatcmpl-abc", "m"), blockStart(0, BlockType::Text),
                               delta(EventType::TextDelta, 0, "Hi"), blockStop(0),
                               usage(3, 1), messageStop(StopReason::EndTurn)};
  std::string bytes = encodeStream(events, EncodeOptions{.created = 7});
  std::string prefix = R"(data: {"id":"chatcmpl-abc","object":"chat.completion.chunk","created":7,"model":"m","choices":)";
  std::string expected =
      prefix + R"([{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})" + "\n\n" +
      prefix + R"([{"index":0,"delta":{"content":"Hi"},"logprobs":null,"finish_reason":null}]})" + "\n\n" +
      prefix + R"([{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]})" + "\n\n" +
      "data: [DONE]\n\n";
  EXPECT_EQ(bytes, expected);
}

TEST(ChatStreamEncoder, UsageChunkOnlyWhenAskedFor) {
  std::vector<Event> events = {start(), blockStart(0, BlockType::Text),
                               delta(EventType::TextDelta, 0, "Hi"), blockStop(0), usage(3, 1),
                               messageStop(StopReason::EndTurn)};
  std::string with = encodeStream(events, options(true));
  std::string without = encodeStream(events, options(false));
  EXPECT_EQ(joined(v::validateStream(with)), "");
  EXPECT_EQ(joined(v::validateStream(without)), "");
  EXPECT_TRUE(v::summarizeStream(with).has_usage);
  EXPECT_FALSE(v::summarizeStream(without).has_usage);
  EXPECT_NE(with.find(R"("choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4)"),
            std::string::npos)
      << with;
}

TEST(ChatStreamEncoder, ZeroCompletionIsEstimated) {
  std::vector<Event> events = {start(), blockStart(0, BlockType::Text),
                               delta(EventType::TextDelta, 0, std::string(40, 'a')), blockStop(0),
                               usage(3, 0), messageStop(StopReason::EndTurn)};
  auto summary = v::summarizeStream(encodeStream(events, options(true)));
  EXPECT_EQ(summary.completion_tokens, 10);
  EXPECT_EQ(summary.total_tokens, 13);
}

TEST(ChatStreamEncoder, StopReasonsMapToFinishReasons) {
  struct Case {
    StopReason stop;
    std::string_view finish;
  };
  for (Case c : {Case{StopReason::EndTurn, "stop"}, Case{StopReason::StopSequence, "stop"},
                 Case{StopReason::MaxTokens, "length"}, Case{StopReason::ContextWindow, "length"},
                 Case{StopReason::ContentFilter, "content_filter"},
                 Case{StopReason::PauseTurn, "stop"}, Case{StopReason::Other, "stop"}}) {
    std::string bytes = encodeStream({start(), messageStop(c.stop)}, options(false));
    EXPECT_EQ(joined(v::validateStream(bytes)), "") << bytes;
    EXPECT_EQ(v::summarizeStream(bytes).finish_reason, c.finish) << static_cast<int>(c.stop);
  }
}

TEST(ChatStreamEncoder, ErrorAfterContentIsTheInStreamErrorForm) {
  std::vector<Event> events = {start(), blockStart(0, BlockType::Text),
                               delta(EventType::TextDelta, 0, "partial")};
  Event error{.type = EventType::Error, .error_status = 529};
  error.text = "Overloaded";
  events.push_back(error);
  events.push_back(messageStop(StopReason::EndTurn));  // nothing may follow an error
  std::string bytes = encodeStream(events, options(true));
  EXPECT_EQ(joined(v::validateStream(bytes)), "") << bytes;
  EXPECT_EQ(bytes.find("[DONE]"), std::string::npos);
  auto summary = v::summarizeStream(bytes);
  ASSERT_TRUE(summary.error_message.has_value());
  EXPECT_EQ(*summary.error_message, "Overloaded");
}

TEST(ChatStreamEncoder, EventsWithoutMessageStartStillGiveAValidStream) {
  std::vector<Event> events = {blockStart(0, BlockType::ToolCall, "", "f"),
                               delta(EventType::ArgumentsDelta, 0, "{}"), blockStop(0),
                               messageStop(StopReason::EndTurn)};
  std::string bytes = encodeStream(events, options(false));
  EXPECT_EQ(joined(v::validateStream(bytes)), "") << bytes;
  auto summary = v::summarizeStream(bytes);
  EXPECT_EQ(summary.id, "chatcmpl-fallback");
  ASSERT_EQ(summary.tool_calls.size(), 1u);
  EXPECT_TRUE(summary.tool_calls[0].id.starts_with("call_"));
  EXPECT_EQ(summary.finish_reason, "tool_calls");
}

TEST(ChatStreamEncoder, ACallWithoutArgumentsGetsAnEmptyObject) {
  // Anthropic streams a tool without input as one empty input_json_delta.
  std::vector<Event> events = {start(), blockStart(0, BlockType::ToolCall, "toolu_1", "now"),
                               delta(EventType::ArgumentsDelta, 0, ""), blockStop(0),
                               blockStart(1, BlockType::ToolCall, "toolu_2", "later"),
                               messageStop(StopReason::ToolUse)};
  std::string bytes = encodeStream(events, options(false));
  EXPECT_EQ(joined(v::validateStream(bytes)), "") << bytes;
  auto summary = v::summarizeStream(bytes);
  ASSERT_EQ(summary.tool_calls.size(), 2u);
  EXPECT_EQ(summary.tool_calls[0].arguments, "{}");
  EXPECT_EQ(summary.tool_calls[1].arguments, "{}") << "also when its BlockStop never came";
}

TEST(ChatStreamEncoder, TextIsEscaped) {
  std::string nasty = "line\n\n\"quoted\" \\ \x01 data: [DONE]\n\n";
  std::vector<Event> events = {start(), blockStart(0, BlockType::Text),
                               delta(EventType::TextDelta, 0, nasty), blockStop(0),
                               messageStop(StopReason::EndTurn)};
  std::string bytes = encodeStream(events, options(false));
  EXPECT_EQ(joined(v::validateStream(bytes)), "") << bytes;
  EXPECT_EQ(v::summarizeStream(bytes).content, nasty);
}

}  // namespace
}  // namespace llmux::translate::openai_chat
