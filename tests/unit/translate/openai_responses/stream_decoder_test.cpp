#include <gtest/gtest.h>

#include "openai_responses/support.h"
#include "translate/openai_responses/codec.h"

namespace llmux::translate::openai_responses {
namespace {

using testing::assemble;
using testing::Assembled;
using testing::decodeStream;
using testing::describe;

std::string frame(std::string_view type, std::string_view data_members) {
  return "event: " + std::string(type) + "\ndata: {\"type\":\"" + std::string(type) + "\"" +
         (data_members.empty() ? "" : ",") + std::string(data_members) + "}\n\n";
}

std::string created() {
  return frame("response.created",
               R"("response":{"id":"resp_1","model":"gpt-5","status":"in_progress","output":[]})");
}

std::string completed(std::string_view usage = "null", std::string_view status = "completed") {
  return frame(std::string("response.") + std::string(status),
               R"("response":{"id":"resp_1","status":")" + std::string(status) + R"(","usage":)" +
                   std::string(usage) + "}");
}

TEST(ResponsesStreamDecoder, EverySplitGivesTheSameEvents) {
  for (auto const& s : testing::responsesStreams()) {
    ASSERT_FALSE(s.bytes.empty()) << s.name;
    std::string whole = describe(decodeStream(s.bytes));
    EXPECT_EQ(describe(decodeStream(s.bytes, 1)), whole) << s.name << " byte by byte";
    for (std::uint32_t seed : {1u, 2u, 3u}) {
      EXPECT_EQ(describe(decodeStream(s.bytes, -1, seed)), whole) << s.name << " seed " << seed;
    }
  }
}

TEST(ResponsesStreamDecoder, EveryFixtureGivesWellOrderedEvents) {
  for (auto const& s : testing::responsesStreams()) {
    std::vector<Event> events = decodeStream(s.bytes);
    Assembled a = assemble(events);
    EXPECT_TRUE(a.problems.empty()) << s.name << "\n" << describe(events);
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.front().type, EventType::MessageStart) << s.name;
    EXPECT_TRUE(a.stopped != !a.error.empty()) << s.name << ": exactly one of stop or error";
  }
}

TEST(ResponsesStreamDecoder, FunctionCallStream) {
  auto events = decodeStream(testing::readFixture(
      "openai-responses", "pydantic-ai--responses_stream_function_call.i0.response.sse"));
  Assembled a = assemble(events);
  ASSERT_EQ(a.response.content.size(), 1u) << describe(events);
  Block const& call = a.response.content[0];
  EXPECT_EQ(call.type, BlockType::ToolCall);
  EXPECT_TRUE(call.id.starts_with("call_"));
  EXPECT_EQ(call.name, "get_capital");
  EXPECT_EQ(call.arguments, R"({"country":"France"})");
  EXPECT_TRUE(call.item_id.starts_with("fc_"));
  EXPECT_EQ(a.response.stop, StopReason::ToolUse);
  ASSERT_TRUE(a.response.usage);
  EXPECT_GT(a.response.usage->input, 0);
  EXPECT_TRUE(a.response.id.starts_with("resp_"));
  EXPECT_EQ(a.response.model, "gpt-4o-2024-08-06");
}

TEST(ResponsesStreamDecoder, ReasoningSignatureComesFromTheDoneItem) {
  std::string sse = testing::readFixture(
      "openai-responses",
      "pydantic-ai--responses_stream_reasoning_then_function_call.response.sse");
  Assembled a = assemble(decodeStream(sse));
  ASSERT_EQ(a.response.content.size(), 2u);
  Block const& rs = a.response.content[0];
  EXPECT_EQ(rs.type, BlockType::Thinking);
  EXPECT_EQ(rs.signature_origin, Protocol::OpenAiResponses);
  EXPECT_TRUE(rs.signature.starts_with("gAAAAABoyXvxI6jwG5j6")) << "the complete .done copy";
  EXPECT_EQ(a.response.content[1].arguments, R"({"result":6666})");
  ASSERT_TRUE(a.response.usage);
  EXPECT_EQ(a.response.usage->input, 53);
  EXPECT_EQ(a.response.usage->output, 469);
  EXPECT_EQ(a.response.usage->reasoning, 448);
}

TEST(ResponsesStreamDecoder, SummariesAndRotatingItemIds) {
  auto streams = testing::chunksToSse(testing::readFixture(
      "openai-responses", "vercel-ai--github-copilot-id-rotation.1.chunks.txt"));
  ASSERT_EQ(streams.size(), 1u);
  Assembled a = assemble(decodeStream(streams[0]));
  ASSERT_EQ(a.response.content.size(), 2u) << "keyed by output_index, not by the rotating item_id";
  EXPECT_EQ(a.response.content[0].text, "**Counting character occurrences**");
  EXPECT_EQ(a.response.content[1].type, BlockType::Text);
  EXPECT_TRUE(a.response.content[1].text.starts_with("There are **3** letter"));
  EXPECT_EQ(a.response.stop, StopReason::EndTurn);

  auto loop = testing::chunksToSse(testing::readFixture(
      "openai-responses", "vercel-ai--openai-reasoning-encrypted-content.1.chunks.txt"));
  ASSERT_EQ(loop.size(), 4u) << "four responses of an agent loop";
  Assembled first = assemble(decodeStream(loop[0]));
  ASSERT_EQ(first.response.content.size(), 2u);
  EXPECT_TRUE(first.response.content[0].text.starts_with("**Calculating step-by-step"));
  EXPECT_FALSE(first.response.content[0].signature.empty());
  EXPECT_EQ(first.response.content[1].arguments, R"({"a":12,"b":7,"op":"add"})");
}

TEST(ResponsesStreamDecoder, ErrorEventEndsTheStream) {
  auto streams = testing::chunksToSse(
      testing::readFixture("openai-responses", "vercel-ai--openai-error.1.chunks.txt"));
  auto events = decodeStream(streams.at(0));
  ASSERT_EQ(events.size(), 2u) << describe(events);
  EXPECT_EQ(events[0].type, EventType::MessageStart);
  EXPECT_EQ(events[1].type, EventType::Error);
  EXPECT_EQ(events[1].error_status, 429) << "insufficient_quota";
  EXPECT_NE(events[1].text.find("exceeded your current quota"), std::string::npos);

  // The SDK's flat form and a lone response.failed.
  auto flat = decodeStream(created() +
                           frame("error", R"("code":"rate_limit_exceeded","message":"slow down")"));
  EXPECT_EQ(flat.back().type, EventType::Error);
  EXPECT_EQ(flat.back().error_status, 429);
  EXPECT_EQ(flat.back().text, "slow down");
  auto failed = decodeStream(
      created() +
      frame(
          "response.failed",
          R"("response":{"id":"resp_1","status":"failed","error":{"code":"context_length_exceeded","message":"Your input exceeds the context window"}})"));
  EXPECT_EQ(failed.back().type, EventType::Error);
  EXPECT_EQ(failed.back().error_status, 400);
  // A relay's context overflow without OpenAI's code is still recognised by its wording.
  auto relay = decodeStream(
      created() +
      frame(
          "error",
          R"("error":{"type":"server_error","message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."})"));
  EXPECT_EQ(relay.back().error_status, 400);
}

TEST(ResponsesStreamDecoder, CutOrMalformedStreamsEndInAnError) {
  auto fixture = testing::readFixture(
      "openai-responses", "pydantic-ai--responses_stream_function_call.i1.response.sse");
  auto cut = decodeStream(std::string_view(fixture).substr(0, fixture.size() / 2));
  EXPECT_EQ(cut.back().type, EventType::Error);
  EXPECT_EQ(cut.back().error_status, 502);
  auto bad = decodeStream(created() + "event: x\ndata: {not json\n\n" + completed());
  EXPECT_EQ(bad.back().type, EventType::Error);
  EXPECT_EQ(assemble(bad).stopped, false) << "nothing after the malformed frame";
  auto empty = decodeStream("");
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].type, EventType::Error);
}

TEST(ResponsesStreamDecoder, DoneEventsWithoutDeltasStillCarryTheContent) {
  std::string sse =
      created() +
      frame("response.output_item.added",
            R"("output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]})") +
      frame(
          "response.output_item.done",
          R"("output_index":0,"item":{"type":"reasoning","id":"rs_1",)"
          R"("summary":[{"type":"summary_text","text":"one"},{"type":"summary_text","text":"two"}],"encrypted_content":"E"})") +
      frame("response.output_item.added",
            R"("output_index":1,"item":{"type":"message","id":"msg_1","content":[]})") +
      frame(
          "response.output_item.done",
          R"("output_index":1,"item":{"type":"message","id":"msg_1",)"
          R"("content":[{"type":"output_text","text":"Hello"},{"type":"output_text","text":"World"}]})") +
      frame(
          "response.output_item.added",
          R"("output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":""})") +
      frame("response.function_call_arguments.done",
            R"("output_index":2,"item_id":"fc_1","arguments":"{\"k\":true}")") +
      frame(
          "response.output_item.done",
          R"("output_index":2,"item":{"type":"function_call","id":"fc_1","call_id":"c","name":"f","arguments":"{\"k\":true}"})") +
      completed();
  Assembled a = assemble(decodeStream(sse));
  EXPECT_TRUE(a.problems.empty());
  ASSERT_EQ(a.response.content.size(), 4u);
  EXPECT_EQ(a.response.content[0].text, "one\n\ntwo") << "summary parts are paragraphs";
  EXPECT_EQ(a.response.content[0].signature, "E");
  EXPECT_EQ(a.response.content[1].text, "Hello");
  EXPECT_EQ(a.response.content[2].text, "World");
  EXPECT_EQ(a.response.content[3].arguments, R"({"k":true})");
}

TEST(ResponsesStreamDecoder, DeltasAndDoneTextAreNotDoubled) {
  std::string sse =
      created() +
      frame("response.output_item.added",
            R"("output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]})") +
      frame("response.reasoning_summary_part.added",
            R"("output_index":0,"summary_index":0,"part":{"type":"summary_text","text":""})") +
      frame("response.reasoning_summary_text.delta",
            R"("output_index":0,"summary_index":0,"delta":"Fir")") +
      frame("response.reasoning_summary_text.done",
            R"("output_index":0,"summary_index":0,"text":"First")") +
      frame("response.reasoning_summary_part.done",
            R"("output_index":0,"summary_index":0,"part":{"type":"summary_text","text":"First"})") +
      frame("response.reasoning_summary_part.added",
            R"("output_index":0,"summary_index":1,"part":{"type":"summary_text","text":""})") +
      frame("response.reasoning_summary_text.delta",
            R"("output_index":0,"summary_index":1,"delta":"Second")") +
      frame("response.output_item.done",
            R"("output_index":0,"item":{"type":"reasoning","id":"rs_1","summary":[]})") +
      frame("response.output_item.added",
            R"("output_index":1,"item":{"type":"message","id":"msg_1","content":[]})") +
      frame("response.content_part.added",
            R"("output_index":1,"content_index":0,"part":{"type":"output_text","text":""})") +
      frame("response.output_text.delta", R"("output_index":1,"content_index":0,"delta":"Hi")") +
      frame("response.output_text.done",
            R"("output_index":1,"content_index":0,"text":"Hi there")") +
      frame(
          "response.content_part.done",
          R"("output_index":1,"content_index":0,"part":{"type":"output_text","text":"Hi there"})") +
      frame(
          "response.output_item.done",
          R"("output_index":1,"item":{"type":"message","id":"msg_1","content":[{"type":"output_text","text":"Hi there"}]})") +
      completed(
          R"({"input_tokens":5,"output_tokens":7,"output_tokens_details":{"reasoning_tokens":3}})");
  auto events = decodeStream(sse);
  Assembled a = assemble(events);
  ASSERT_EQ(a.response.content.size(), 2u) << describe(events);
  EXPECT_EQ(a.response.content[0].text, "First\n\nSecond");
  EXPECT_TRUE(a.response.content[0].signature.empty());
  EXPECT_EQ(a.response.content[1].text, "Hi there") << "the .done text completes the deltas once";
  ASSERT_TRUE(a.response.usage);
  EXPECT_EQ(a.response.usage->reasoning, 3);
  EXPECT_EQ(a.response.stop, StopReason::EndTurn);
}

TEST(ResponsesStreamDecoder, InterleavedItemsAreSerialised) {
  // Two calls whose events interleave: the second one's events wait for the first to finish.
  std::string sse =
      created() +
      frame(
          "response.output_item.added",
          R"("output_index":0,"item":{"type":"function_call","id":"fc_a","call_id":"a","name":"f","arguments":""})") +
      frame(
          "response.output_item.added",
          R"("output_index":1,"item":{"type":"function_call","id":"fc_b","call_id":"b","name":"g","arguments":""})") +
      frame("response.function_call_arguments.delta", R"("output_index":1,"delta":"{\"y\":")") +
      frame("response.function_call_arguments.delta", R"("output_index":0,"delta":"{\"x\":1}")") +
      frame("response.function_call_arguments.delta", R"("output_index":1,"delta":"2}")") +
      frame(
          "response.output_item.done",
          R"("output_index":1,"item":{"type":"function_call","id":"fc_b","call_id":"b","name":"g","arguments":"{\"y\":2}"})") +
      frame(
          "response.output_item.done",
          R"("output_index":0,"item":{"type":"function_call","id":"fc_a","call_id":"a","name":"f","arguments":"{\"x\":1}"})") +
      completed();
  auto events = decodeStream(sse);
  Assembled a = assemble(events);
  EXPECT_TRUE(a.problems.empty()) << describe(events);
  ASSERT_EQ(a.response.content.size(), 2u);
  EXPECT_EQ(a.response.content[0].id, "a");
  EXPECT_EQ(a.response.content[0].arguments, R"({"x":1})");
  EXPECT_EQ(a.response.content[1].id, "b");
  EXPECT_EQ(a.response.content[1].arguments, R"({"y":2})");
  EXPECT_EQ(a.response.stop, StopReason::ToolUse);
}

TEST(ResponsesStreamDecoder, TerminalStatusesAndItemsOnlyInTheFinalResponse) {
  auto incomplete = assemble(decodeStream(
      created() +
      frame(
          "response.incomplete",
          R"("response":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"}})")));
  EXPECT_EQ(incomplete.response.stop, StopReason::MaxTokens);
  auto refused = assemble(decodeStream(
      created() +
      frame("response.output_item.added",
            R"("output_index":0,"item":{"type":"message","id":"m","content":[]})") +
      frame("response.content_part.added",
            R"("output_index":0,"content_index":0,"part":{"type":"refusal","refusal":""})") +
      frame("response.refusal.delta", R"("output_index":0,"content_index":0,"delta":"I can't.")") +
      frame(
          "response.output_item.done",
          R"("output_index":0,"item":{"type":"message","id":"m","content":[{"type":"refusal","refusal":"I can't."}]})") +
      completed()));
  EXPECT_EQ(refused.response.stop, StopReason::ContentFilter);
  EXPECT_EQ(refused.response.content.at(0).text, "I can't.");
  auto bare = assemble(decodeStream(
      created() +
      frame(
          "response.completed",
          R"("response":{"status":"completed","output":[{"type":"message","id":"m","content":[{"type":"output_text","text":"all at once"}]}]})")));
  ASSERT_EQ(bare.response.content.size(), 1u);
  EXPECT_EQ(bare.response.content[0].text, "all at once");
}

TEST(ResponsesStreamDecoder, ArbitraryBytesNeverBreakIt) {
  std::string noise;
  std::uint32_t x = 12345;
  for (int i = 0; i < 20000; ++i) {
    x = x * 1103515245 + 12345;
    noise.push_back(static_cast<char>(x >> 16));
    if (i % 97 == 0)
      noise += "\n\ndata: {\"type\":\"response.output_text.delta\",\"output_index\":";
  }
  auto events = decodeStream(noise, -1, 7);
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back().type, EventType::Error);
}

}  // namespace
}  // namespace llmux::translate::openai_responses
