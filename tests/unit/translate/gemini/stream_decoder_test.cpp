// Gemini stream bytes → neutral events (translate/gemini/stream_decoder.cpp).
#include <gtest/gtest.h>

#include "gemini/gemini_test_support.h"
#include "translate/gemini/codec.h"

namespace llmux::translate::gemini {
namespace {

using testing::canonicalJson;
using testing::decodeGeminiStream;
using testing::dumpEvents;
using testing::everyByte;
using testing::randomSplits;
using testing::readGeminiFixture;
using testing::sseFromChunkLines;

std::vector<Event> ofType(std::vector<Event> const& events, EventType type) {
  std::vector<Event> out;
  for (auto const& e : events) {
    if (e.type == type) out.push_back(e);
  }
  return out;
}

/// The neutral order: MessageStart first; blocks open, get deltas and close in turn with indexes
/// 0, 1, 2…; MessageStop or Error last.
void expectWellOrdered(std::vector<Event> const& events) {
  ASSERT_FALSE(events.empty());
  bool terminal_error = events.back().type == EventType::Error;
  if (!terminal_error || events.size() > 1) {
    EXPECT_EQ(events.front().type, EventType::MessageStart) << dumpEvents(events);
  }
  EXPECT_TRUE(events.back().type == EventType::MessageStop || terminal_error) << dumpEvents(events);
  int open = -1;
  int next = 0;
  for (auto const& e : events) {
    switch (e.type) {
      case EventType::BlockStart:
        EXPECT_EQ(open, -1) << "blocks do not interleave\n" << dumpEvents(events);
        EXPECT_EQ(e.index, next) << dumpEvents(events);
        open = e.index;
        ++next;
        break;
      case EventType::TextDelta:
      case EventType::ThinkingDelta:
      case EventType::SignatureDelta:
      case EventType::ArgumentsDelta:
        EXPECT_EQ(e.index, open) << "a delta outside its block\n" << dumpEvents(events);
        break;
      case EventType::BlockStop:
        EXPECT_EQ(e.index, open) << dumpEvents(events);
        open = -1;
        break;
      case EventType::MessageStop:
        EXPECT_EQ(open, -1) << "MessageStop with a block open\n" << dumpEvents(events);
        break;
      default:
        break;
    }
  }
}

TEST(GeminiStreamDecoder, PlainText) {
  auto events = decodeGeminiStream(readGeminiFixture("pydantic-ai--sse_text.response.sse"));
  expectWellOrdered(events);
  EXPECT_EQ(events.front().id, "w1peaMz6INOvnvgPgYfPiQY");
  EXPECT_EQ(events.front().model, "gemini-2.0-flash-exp");
  std::string text;
  for (auto const& e : ofType(events, EventType::TextDelta)) text += e.text;
  EXPECT_EQ(text, "The capital of France is Paris.\n");
  EXPECT_EQ(ofType(events, EventType::BlockStart).size(), 1u) << "one text block";
  auto usage = ofType(events, EventType::UsageUpdate);
  ASSERT_EQ(usage.size(), 2u) << "a snapshot only when the numbers change\n" << dumpEvents(events);
  EXPECT_EQ(usage.back().usage.input, 13);
  EXPECT_EQ(usage.back().usage.output, 8);
  EXPECT_EQ(events.back().stop, StopReason::EndTurn);
}

TEST(GeminiStreamDecoder, ThoughtsThenSignedAnswer) {
  auto events = decodeGeminiStream(readGeminiFixture("pydantic-ai--sse_thoughts.response.sse"));
  expectWellOrdered(events);
  auto starts = ofType(events, EventType::BlockStart);
  ASSERT_GE(starts.size(), 2u) << dumpEvents(events);
  EXPECT_EQ(starts[0].block.type, BlockType::Thinking);
  EXPECT_EQ(starts[0].block.signature_origin, Protocol::Gemini);
  EXPECT_EQ(starts[1].block.type, BlockType::Text);
  EXPECT_FALSE(starts[1].block.signature.empty()) << "the first answer part carries the signature";
  EXPECT_FALSE(ofType(events, EventType::ThinkingDelta).empty());
  auto usage = ofType(events, EventType::UsageUpdate);
  ASSERT_FALSE(usage.empty());
  EXPECT_GT(usage.back().usage.reasoning, 0);
  EXPECT_EQ(usage.back().usage.output - usage.back().usage.reasoning > 0, true);
}

TEST(GeminiStreamDecoder, WholeFunctionCallWithSignature) {
  auto events = decodeGeminiStream(
      readGeminiFixture("pydantic-ai--sse_function_call_thought_signature.i0.response.sse"));
  expectWellOrdered(events);
  auto starts = ofType(events, EventType::BlockStart);
  ASSERT_EQ(starts.size(), 1u) << dumpEvents(events);
  Block const& call = starts[0].block;
  EXPECT_EQ(call.type, BlockType::ToolCall);
  EXPECT_EQ(call.name, "get_country");
  EXPECT_TRUE(call.id.starts_with("call_"));
  EXPECT_EQ(call.signature.substr(0, 10), "EpwICpkIAX");
  auto args = ofType(events, EventType::ArgumentsDelta);
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(args[0].text, "{}");
  EXPECT_EQ(events.back().stop, StopReason::ToolUse);
  auto usage = ofType(events, EventType::UsageUpdate);
  ASSERT_EQ(usage.size(), 1u) << "the second chunk repeats the same totals";
  EXPECT_EQ(usage[0].usage.output, 10 + 202);
  EXPECT_EQ(usage[0].usage.reasoning, 202);
}

TEST(GeminiStreamDecoder, CallAndFinishInOneChunk) {
  auto events = decodeGeminiStream(readGeminiFixture("pydantic-ai--sse_function_call.i0.response.sse"));
  expectWellOrdered(events);
  auto args = ofType(events, EventType::ArgumentsDelta);
  ASSERT_EQ(args.size(), 1u);
  EXPECT_EQ(canonicalJson(args[0].text), R"({"country":"France"})");
  EXPECT_EQ(events.back().stop, StopReason::ToolUse);
}

TEST(GeminiStreamDecoder, TrailingSignatureOnAnEmptyPart) {
  auto events = decodeGeminiStream(
      sseFromChunkLines(readGeminiFixture("vercel-ai--google-reasoning.chunks.txt")));
  expectWellOrdered(events);
  auto starts = ofType(events, EventType::BlockStart);
  ASSERT_EQ(starts.size(), 2u) << dumpEvents(events);
  EXPECT_EQ(starts[0].block.type, BlockType::Text);
  EXPECT_EQ(starts[1].block.type, BlockType::Thinking) << "a signature alone: empty thinking block";
  EXPECT_FALSE(starts[1].block.signature.empty());
  EXPECT_EQ(starts[1].block.signature_origin, Protocol::Gemini);
  EXPECT_TRUE(ofType(events, EventType::ThinkingDelta).empty());
}

TEST(GeminiStreamDecoder, JsonArrayForm) {
  auto events = decodeGeminiStream(
      readGeminiFixture("llm-gemini--stream_json_array_function_call.i0.response.json"));
  expectWellOrdered(events);
  auto starts = ofType(events, EventType::BlockStart);
  ASSERT_EQ(starts.size(), 1u) << dumpEvents(events);
  EXPECT_EQ(starts[0].block.name, "multiply");
  EXPECT_EQ(canonicalJson(ofType(events, EventType::ArgumentsDelta).at(0).text),
            R"({"y":3,"x":5})");
  EXPECT_EQ(events.back().stop, StopReason::ToolUse);

  auto text = decodeGeminiStream(
      readGeminiFixture("llm-gemini--stream_json_array_function_call.i1.response.json"));
  expectWellOrdered(text);
  std::string joined;
  for (auto const& e : ofType(text, EventType::TextDelta)) joined += e.text;
  EXPECT_EQ(joined, "5 times 3 is 15.");
}

TEST(GeminiStreamDecoder, VertexPartialArgumentsAreGathered) {
  auto events = decodeGeminiStream(
      sseFromChunkLines(readGeminiFixture("vercel-ai--google-stream-tool-call-arguments.chunks.txt")));
  expectWellOrdered(events);
  auto starts = ofType(events, EventType::BlockStart);
  ASSERT_EQ(starts.size(), 2u) << dumpEvents(events);
  EXPECT_NE(starts[0].block.id, starts[1].block.id);
  EXPECT_FALSE(starts[0].block.signature.empty());
  auto args = ofType(events, EventType::ArgumentsDelta);
  ASSERT_EQ(args.size(), 2u);
  EXPECT_EQ(canonicalJson(args[0].text), R"({"location":"Boston"})");
  EXPECT_EQ(canonicalJson(args[1].text), R"({"location":"San Francisco"})");
  EXPECT_EQ(events.back().stop, StopReason::ToolUse);

  auto no_args = decodeGeminiStream(
      sseFromChunkLines(readGeminiFixture("vercel-ai--google-stream-no-args-tool-call.chunks.txt")));
  expectWellOrdered(no_args);
  auto calls = ofType(no_args, EventType::BlockStart);
  ASSERT_EQ(calls.size(), 5u) << "a thought, then read_theme and three read_screen\n"
                              << dumpEvents(no_args);
  EXPECT_EQ(calls[0].block.type, BlockType::Thinking);
  EXPECT_EQ(calls[1].block.name, "read_theme");
  auto no_args_deltas = ofType(no_args, EventType::ArgumentsDelta);
  ASSERT_EQ(no_args_deltas.size(), 4u);
  EXPECT_EQ(no_args_deltas[0].text, "{}");
  EXPECT_EQ(canonicalJson(no_args_deltas[1].text), R"({"id":"A"})");
  EXPECT_EQ(canonicalJson(no_args_deltas[3].text), R"({"id":"C"})");
}

TEST(GeminiStreamDecoder, EverySplitGivesTheSameEvents) {
  std::vector<std::string> bodies = {
      readGeminiFixture("pydantic-ai--sse_thoughts.response.sse"),
      readGeminiFixture("pydantic-ai--sse_function_call_thought_signature.i0.response.sse"),
      readGeminiFixture("llm-gemini--stream_json_array_function_call.i1.response.json"),
      sseFromChunkLines(readGeminiFixture("vercel-ai--google-stream-no-args-tool-call.chunks.txt")),
  };
  for (auto const& body : bodies) {
    std::string expected = dumpEvents(decodeGeminiStream(body));
    EXPECT_EQ(dumpEvents(decodeGeminiStream(body, everyByte)), expected);
    for (unsigned seed = 1; seed <= 20; ++seed) {
      EXPECT_EQ(dumpEvents(decodeGeminiStream(body, randomSplits(seed, 64))), expected) << seed;
    }
  }
}

TEST(GeminiStreamDecoder, EventsComeAsSoonAsTheirChunkIsComplete) {
  std::string body = readGeminiFixture("pydantic-ai--sse_text.response.sse");
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  std::size_t json_end = body.find("\r\n\r\n");
  decoder->feed(body.substr(0, json_end + 2), events);
  EXPECT_TRUE(events.empty()) << "the frame is not complete yet";
  decoder->feed(body.substr(json_end + 2, 1), events);
  EXPECT_FALSE(events.empty()) << "\\r\\n\\r ends the frame (the last \\n may come later)";
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(ofType(events, EventType::TextDelta).at(0).text, "The");
}

TEST(GeminiStreamDecoder, FailuresBecomeErrorEvents) {
  struct Row {
    std::string name;
    std::string body;
    int status;
  };
  std::vector<Row> rows = {
      {"error frame",
       "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"}}]}\r\n\r\n"
       "data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded.\",\"status\":\"UNAVAILABLE\"}}\r\n\r\n",
       503},
      {"cut before finishReason",
       "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}],\"role\":\"model\"}}]}\r\n\r\n",
       502},
      {"malformed chunk", "data: {\"candidates\":[\r\n\r\n", 502},
      {"error body instead of a stream",
       "{\"error\":{\"code\":429,\"message\":\"quota\",\"status\":\"RESOURCE_EXHAUSTED\"}}", 429},
      {"cut JSON array", "[{\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]}}]}", 502},
      {"array of non-objects", "[1,2]", 502},
      {"empty body", "", 502},
  };
  for (auto const& row : rows) {
    auto events = decodeGeminiStream(row.body);
    ASSERT_FALSE(events.empty()) << row.name;
    EXPECT_EQ(events.back().type, EventType::Error) << row.name << "\n" << dumpEvents(events);
    EXPECT_EQ(events.back().error_status, row.status) << row.name;
    EXPECT_EQ(ofType(events, EventType::Error).size(), 1u) << "one error, then nothing";
    expectWellOrdered(events);
  }
  auto overloaded = decodeGeminiStream(rows[0].body);
  EXPECT_EQ(overloaded.back().text, "The model is overloaded.");
}

TEST(GeminiStreamDecoder, BlockedPromptAndIgnoredTail) {
  auto blocked = decodeGeminiStream(
      "data: {\"promptFeedback\":{\"blockReason\":\"SAFETY\"},\"responseId\":\"r\"}\r\n\r\n");
  expectWellOrdered(blocked);
  EXPECT_EQ(blocked.back().stop, StopReason::ContentFilter);

  std::string tail = readGeminiFixture("pydantic-ai--sse_text.response.sse") +
                     "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"late\"}]}}]}\r\n\r\n";
  auto events = decodeGeminiStream(tail);
  EXPECT_EQ(events.back().type, EventType::MessageStop) << "finishReason ends the stream";
  for (auto const& e : ofType(events, EventType::TextDelta)) EXPECT_NE(e.text, "late");
}

TEST(GeminiStreamDecoder, MemoryIsBounded) {
  auto decoder = makeStreamDecoder();
  std::vector<Event> events;
  std::string chunk(1 << 20, 'x');
  decoder->feed("data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"", events);
  for (int i = 0; i < 20 && events.empty(); ++i) decoder->feed(chunk, events);
  ASSERT_FALSE(events.empty()) << "an endless frame is cut off";
  EXPECT_EQ(events.back().type, EventType::Error);
}

}  // namespace
}  // namespace llmux::translate::gemini
