// Neutral events → the stream a Gemini client reads (translate/gemini/stream_encoder.cpp).
#include <gtest/gtest.h>

#include "gemini/gemini_test_support.h"
#include "translate/gemini/codec.h"
#include "validators/gemini_validator.h"

namespace llmux::translate::gemini {
namespace {

using testing::encodeGeminiStream;

Event start(std::string id = "chatcmpl-1", std::string model = "gpt-5") {
  Event e;
  e.type = EventType::MessageStart;
  e.id = std::move(id);
  e.model = std::move(model);
  return e;
}

Event blockStart(int index, BlockType type, std::string id = {}, std::string name = {}) {
  Event e;
  e.type = EventType::BlockStart;
  e.index = index;
  e.block.type = type;
  e.block.id = std::move(id);
  e.block.name = std::move(name);
  return e;
}

Event delta(EventType type, int index, std::string text) {
  Event e;
  e.type = type;
  e.index = index;
  e.text = std::move(text);
  return e;
}

Event blockStop(int index) {
  Event e;
  e.type = EventType::BlockStop;
  e.index = index;
  return e;
}

Event usage(Usage u) {
  Event e;
  e.type = EventType::UsageUpdate;
  e.usage = u;
  return e;
}

Event stop(StopReason reason) {
  Event e;
  e.type = EventType::MessageStop;
  e.stop = reason;
  return e;
}

std::string encodeValid(std::vector<Event> const& events, EncodeOptions const& options,
                        StreamFraming framing = StreamFraming::Sse) {
  std::string bytes = encodeGeminiStream(events, options, framing);
  auto problems = validators::gemini::validateStream(bytes);
  std::string listed;
  for (auto const& p : problems) listed += "  " + p + "\n";
  EXPECT_TRUE(problems.empty()) << listed << bytes;
  return bytes;
}

EncodeOptions clientOptions() {
  EncodeOptions options;
  options.model = "gemini-2.5-flash";
  options.id = "resp-fallback";
  return options;
}

TEST(GeminiStreamEncoder, TextThoughtsAndUsage) {
  std::vector<Event> events = {
      start(),
      blockStart(0, BlockType::Thinking),
      delta(EventType::ThinkingDelta, 0, "Hmm."),
      delta(EventType::SignatureDelta, 0, "EqQBforeign"),
      blockStop(0),
      blockStart(1, BlockType::Text),
      delta(EventType::TextDelta, 1, "Hello"),
      delta(EventType::TextDelta, 1, ""),
      delta(EventType::TextDelta, 1, " world"),
      blockStop(1),
      usage(Usage{.input = 10, .cache_read = 4, .output = 7, .reasoning = 3}),
      stop(StopReason::EndTurn),
  };
  std::string bytes = encodeValid(events, clientOptions());
  EXPECT_EQ(bytes,
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hmm.\",\"thought\":true}],"
            "\"role\":\"model\"},\"index\":0}],\"modelVersion\":\"gemini-2.5-flash\","
            "\"responseId\":\"chatcmpl-1\"}\r\n\r\n"
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hello\"}],\"role\":\"model\"},"
            "\"index\":0}],\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"chatcmpl-1\"}\r\n\r\n"
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\" world\"}],\"role\":\"model\"},"
            "\"index\":0}],\"modelVersion\":\"gemini-2.5-flash\",\"responseId\":\"chatcmpl-1\"}\r\n\r\n"
            "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"\"}],\"role\":\"model\"},"
            "\"finishReason\":\"STOP\",\"index\":0}],\"usageMetadata\":{\"promptTokenCount\":10,"
            "\"candidatesTokenCount\":4,\"totalTokenCount\":17,\"cachedContentTokenCount\":4,"
            "\"thoughtsTokenCount\":3},\"modelVersion\":\"gemini-2.5-flash\","
            "\"responseId\":\"chatcmpl-1\"}\r\n\r\n")
      << "the foreign signature is dropped; usage rides on the last chunk";
  auto summary = validators::gemini::summarizeStream(bytes);
  EXPECT_EQ(summary.text, "Hello world");
  EXPECT_EQ(summary.thoughts, "Hmm.");
  EXPECT_TRUE(summary.signatures.empty());
}

TEST(GeminiStreamEncoder, ToolCallsGoOutWhole) {
  std::vector<Event> events = {
      start(),
      usage(Usage{.input = 50}),
      blockStart(0, BlockType::ToolCall, "call_a", "search"),
      delta(EventType::ArgumentsDelta, 0, "{\"q\": \"ca"),
      delta(EventType::ArgumentsDelta, 0, "ts\",\n \"n\": 2}"),
      blockStop(0),
      blockStart(1, BlockType::ToolCall, "call_b", "ping"),
      delta(EventType::ArgumentsDelta, 1, ""),
      blockStop(1),
      usage(Usage{.input = 50, .output = 12}),
      stop(StopReason::ToolUse),
  };
  std::string bytes = encodeValid(events, clientOptions());
  auto summary = validators::gemini::summarizeStream(bytes);
  ASSERT_EQ(summary.tool_calls.size(), 2u);
  EXPECT_EQ(summary.tool_calls[0].id, "call_a");
  EXPECT_EQ(summary.tool_calls[0].arguments, R"({"q":"cats","n":2})")
      << "fragments joined into one complete object";
  EXPECT_EQ(summary.tool_calls[1].arguments, "{}");
  EXPECT_EQ(summary.finish_reason, "STOP");
  EXPECT_EQ(summary.candidates_tokens, 12);
  EXPECT_EQ(bytes.find("{\"q\":"), bytes.find("\"args\":{\"q\":") + 7)
      << "args is an object in the frame, not a string";
}

TEST(GeminiStreamEncoder, ForeignCallsGetTheDocumentedSignatureForGemini3) {
  // A call another provider made must pass Gemini 3's check when the client sends it back there
  // itself (passthrough): the first call of the answer carries Google's bypass value.
  std::vector<Event> events = {
      start(),
      blockStart(0, BlockType::ToolCall, "call_a", "search"),
      delta(EventType::ArgumentsDelta, 0, "{}"),
      blockStop(0),
      blockStart(1, BlockType::ToolCall, "call_b", "ping"),
      blockStop(1),
      stop(StopReason::ToolUse),
  };
  EncodeOptions gemini3 = clientOptions();
  gemini3.model = "gemini-3-pro-preview";
  auto summary = validators::gemini::summarizeStream(encodeValid(events, gemini3));
  ASSERT_EQ(summary.tool_calls.size(), 2u);
  EXPECT_EQ(summary.tool_calls[0].signature, "skip_thought_signature_validator");
  EXPECT_EQ(summary.tool_calls[1].signature, "") << "Gemini checks the first call of a turn";

  EncodeOptions alias = clientOptions();
  alias.model = "smart";  // a name without a version may be Gemini 3
  summary = validators::gemini::summarizeStream(encodeValid(events, alias));
  EXPECT_EQ(summary.tool_calls[0].signature, "skip_thought_signature_validator");

  summary = validators::gemini::summarizeStream(encodeValid(events, clientOptions()));
  EXPECT_EQ(summary.tool_calls[0].signature, "") << "Gemini 2.5 checks no signature";
}

TEST(GeminiStreamEncoder, GeminiSignaturesGoBack) {
  Event text = blockStart(0, BlockType::Text);
  text.block.signature = "U2lnMQ==";
  text.block.signature_origin = Protocol::Gemini;
  Event call = blockStart(1, BlockType::ToolCall, "c1", "f");
  call.block.signature = "U2lnMg==";
  call.block.signature_origin = Protocol::Gemini;
  Event thought = blockStart(2, BlockType::Thinking);
  thought.block.signature_origin = Protocol::Gemini;
  std::vector<Event> events = {
      start("resp-1", "gemini-3-pro-preview"),
      text, delta(EventType::TextDelta, 0, "Hi"), blockStop(0),
      call, delta(EventType::ArgumentsDelta, 1, "{}"), blockStop(1),
      thought, delta(EventType::SignatureDelta, 2, "U2lnMw=="), blockStop(2),
      stop(StopReason::ToolUse)};
  EncodeOptions options;
  std::string bytes = encodeValid(events, options);
  auto summary = validators::gemini::summarizeStream(bytes);
  EXPECT_EQ(summary.signatures, (std::vector<std::string>{"U2lnMQ==", "U2lnMg==", "U2lnMw=="}));
  EXPECT_EQ(summary.tool_calls.at(0).signature, "U2lnMg==");
  EXPECT_EQ(summary.model, "gemini-3-pro-preview") << "no client model given: the upstream's";
  EXPECT_NE(bytes.find(R"({"text":"","thoughtSignature":"U2lnMw=="})"), std::string::npos)
      << "a signature without text goes on an empty part, like Gemini's own\n" << bytes;
}

TEST(GeminiStreamEncoder, StopReasonsAndIds) {
  for (auto [reason, finish] : std::vector<std::pair<StopReason, std::string>>{
           {StopReason::MaxTokens, "MAX_TOKENS"},
           {StopReason::ContentFilter, "SAFETY"},
           {StopReason::StopSequence, "STOP"}}) {
    std::vector<Event> events = {start(""), stop(reason)};
    std::string bytes = encodeValid(events, clientOptions());
    auto summary = validators::gemini::summarizeStream(bytes);
    EXPECT_EQ(summary.finish_reason, finish);
    EXPECT_EQ(summary.id, "resp-fallback") << "no upstream id: the one given";
    EXPECT_TRUE(summary.has_usage) << "the last chunk always carries usageMetadata";
  }
}

TEST(GeminiStreamEncoder, ErrorsEndTheStream) {
  Event error;
  error.type = EventType::Error;
  error.error_status = 529;
  error.text = "Overloaded";
  std::vector<Event> events = {start(), blockStart(0, BlockType::Text),
                               delta(EventType::TextDelta, 0, "Par"), error,
                               delta(EventType::TextDelta, 0, "is")};
  std::string bytes = encodeValid(events, clientOptions());
  auto summary = validators::gemini::summarizeStream(bytes);
  EXPECT_EQ(summary.text, "Par") << "nothing after the error";
  ASSERT_TRUE(summary.error_message);
  EXPECT_EQ(*summary.error_message, "Overloaded");
  EXPECT_NE(bytes.find(R"({"error":{"code":529,"message":"Overloaded")"), std::string::npos)
      << bytes;
}

TEST(GeminiStreamEncoder, JsonArrayFraming) {
  std::vector<Event> events = {start(), blockStart(0, BlockType::Text),
                               delta(EventType::TextDelta, 0, "a"),
                               delta(EventType::TextDelta, 0, "b"), blockStop(0),
                               usage(Usage{.input = 3, .output = 2}), stop(StopReason::EndTurn)};
  std::string bytes = encodeValid(events, clientOptions(), StreamFraming::JsonArray);
  EXPECT_EQ(bytes.front(), '[');
  EXPECT_EQ(bytes.substr(bytes.size() - 2), "\n]");
  auto summary = validators::gemini::summarizeStream(bytes);
  EXPECT_EQ(summary.text, "ab");
  auto decoded = testing::decodeGeminiStream(bytes);
  EXPECT_EQ(decoded.back().type, EventType::MessageStop) << testing::dumpEvents(decoded);

  Event error;
  error.type = EventType::Error;
  error.error_status = 500;
  error.text = "boom";
  std::string failed = encodeValid({start(), error}, clientOptions(), StreamFraming::JsonArray);
  EXPECT_EQ(failed, "[{\"error\":{\"code\":500,\"message\":\"boom\",\"status\":\"INTERNAL\"}}\n]");
}

TEST(GeminiStreamEncoder, EachEventIsWrittenWhenItArrives) {
  auto encoder = makeStreamEncoder(clientOptions());
  std::string out;
  encoder->encode(start(), out);
  encoder->encode(blockStart(0, BlockType::Text), out);
  EXPECT_TRUE(out.empty()) << "nothing to show yet";
  encoder->encode(delta(EventType::TextDelta, 0, "x"), out);
  EXPECT_TRUE(out.ends_with("\r\n\r\n")) << "a complete frame per text delta";
  std::size_t before = out.size();
  encoder->encode(blockStart(1, BlockType::ToolCall, "c", "f"), out);
  encoder->encode(delta(EventType::ArgumentsDelta, 1, "{\"a\":"), out);
  EXPECT_EQ(out.size(), before) << "arguments are held until the call is complete";
  encoder->encode(delta(EventType::ArgumentsDelta, 1, "1}"), out);
  encoder->encode(blockStop(1), out);
  EXPECT_GT(out.size(), before);
}

}  // namespace
}  // namespace llmux::translate::gemini
