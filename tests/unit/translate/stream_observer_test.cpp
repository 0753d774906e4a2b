// The side readers of passthrough answers: usage, the commit point (first content) and errors
// that come in place of content.
#include "translate/stream_observer.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "translate/usage_tally.h"

namespace llmux::translate {
namespace {

// An Anthropic stream as the API sends it (usage split between message_start and message_delta).
constexpr std::string_view kAnthropicStream =
    "event: message_start\n"
    "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
    "\"role\":\"assistant\",\"model\":\"claude-haiku-4-5\",\"content\":[],\"stop_reason\":null,"
    "\"usage\":{\"input_tokens\":20,\"cache_read_input_tokens\":100,"
    "\"cache_creation_input_tokens\":5,\"output_tokens\":1}}}\n\n"
    "event: ping\ndata: {\"type\":\"ping\"}\n\n"
    "event: content_block_start\n"
    "data: {\"type\":\"content_block_start\",\"index\":0,"
    "\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n"
    "event: content_block_delta\n"
    "data: {\"type\":\"content_block_delta\",\"index\":0,"
    "\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello there\"}}\n\n"
    "event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
    "event: message_delta\n"
    "data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},"
    "\"usage\":{\"output_tokens\":OUT}}\n\n"
    "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

std::string anthropicStream(std::string_view output_tokens) {
  std::string s(kAnthropicStream);
  s.replace(s.find("OUT"), 3, output_tokens);
  return s;
}

TEST(StreamObserver, AnthropicUsageIsNormalisedAcrossMessageStartAndDelta) {
  StreamObserver observer(Protocol::Anthropic);
  std::string stream = anthropicStream("7");
  // Fed a few bytes at a time, as a socket delivers it.
  for (std::size_t i = 0; i < stream.size(); i += 13) observer.feed(std::string_view(stream).substr(i, 13));
  observer.finish();
  ASSERT_TRUE(observer.usage());
  EXPECT_EQ(observer.usage()->input, 125) << "input includes cache reads and writes";
  EXPECT_EQ(observer.usage()->cache_read, 100);
  EXPECT_EQ(observer.usage()->cache_write, 5);
  EXPECT_EQ(observer.usage()->output, 7);
  EXPECT_EQ(observer.usage()->total(), 132);
  EXPECT_FALSE(observer.usage()->estimated);
  EXPECT_TRUE(observer.contentStarted());
  EXPECT_FALSE(observer.failureBeforeContent());
}

TEST(StreamObserver, ContentStartsAtTheFirstDeltaNotAtThePreambleOrAnEmptyBlock) {
  StreamObserver observer(Protocol::Anthropic);
  std::string stream = anthropicStream("7");
  std::size_t delta = stream.find("event: content_block_delta");
  ASSERT_NE(stream.find("event: content_block_start"), std::string::npos);
  ASSERT_LT(stream.find("event: content_block_start"), delta);
  observer.feed(std::string_view(stream).substr(0, delta));
  EXPECT_FALSE(observer.contentStarted())
      << "message_start, ping and an empty text block's start are not content (the first token is)";
  observer.feed(std::string_view(stream).substr(delta));
  EXPECT_TRUE(observer.contentStarted());
}

TEST(StreamObserver, AToolCallsStartIsContent) {
  StreamObserver observer(Protocol::Anthropic);
  observer.feed(
      "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
      "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":3,"
      "\"output_tokens\":1}}}\n\n"
      "event: content_block_start\n"
      "data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\","
      "\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}\n\n");
  EXPECT_TRUE(observer.contentStarted());
}

TEST(StreamObserver, ZeroOutputForProducedContentIsEstimated) {
  StreamObserver observer(Protocol::Anthropic);
  observer.feed(anthropicStream("0"));
  observer.finish();
  ASSERT_TRUE(observer.usage());
  EXPECT_EQ(observer.usage()->output, 3) << "\"Hello there\": 11 bytes, one token per 4";
  EXPECT_TRUE(observer.usage()->estimated);
}

TEST(StreamObserver, AnErrorBeforeContentIsAFailureWithItsStatus) {
  StreamObserver observer(Protocol::Anthropic);
  observer.feed(
      "event: message_start\n"
      "data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
      "\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":3,"
      "\"output_tokens\":1}}}\n\n"
      "event: error\n"
      "data: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}"
      "\n\n");
  ASSERT_TRUE(observer.failureBeforeContent());
  EXPECT_EQ(observer.failureBeforeContent()->status, 529);
  EXPECT_EQ(observer.failureBeforeContent()->message, "Overloaded");
  EXPECT_FALSE(observer.contentStarted());
}

TEST(StreamObserver, AnErrorAfterContentIsNotAFailureBeforeContent) {
  StreamObserver observer(Protocol::OpenAiChat);
  observer.feed(
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},"
      "\"finish_reason\":null}]}\n\n"
      "data: {\"error\":{\"message\":\"boom\",\"type\":\"server_error\"}}\n\n");
  EXPECT_TRUE(observer.contentStarted());
  EXPECT_FALSE(observer.failureBeforeContent());
}

TEST(StreamObserver, ChatUsageComesFromTheFinalUsageChunk) {
  StreamObserver observer(Protocol::OpenAiChat);
  observer.feed(
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hi\"},"
      "\"finish_reason\":\"stop\"}]}\n\n"
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[],\"usage\":{\"prompt_tokens\":50,\"completion_tokens\":9,"
      "\"total_tokens\":999,\"prompt_tokens_details\":{\"cached_tokens\":30},"
      "\"completion_tokens_details\":{\"reasoning_tokens\":4}}}\n\n"
      "data: [DONE]\n\n");
  observer.finish();
  ASSERT_TRUE(observer.usage());
  EXPECT_EQ(observer.usage()->input, 50);
  EXPECT_EQ(observer.usage()->cache_read, 30);
  EXPECT_EQ(observer.usage()->output, 9);
  EXPECT_EQ(observer.usage()->reasoning, 4);
  EXPECT_EQ(observer.usage()->total(), 59) << "the upstream's own total is not trusted";
}

TEST(StreamObserver, NoUsageReportedIsNoUsage) {
  StreamObserver observer(Protocol::OpenAiChat);
  observer.feed(
      "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\","
      "\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n"
      "data: [DONE]\n\n");
  observer.finish();
  EXPECT_FALSE(observer.usage());
  auto estimate = observer.usageOrEstimate(50);
  ASSERT_TRUE(estimate) << "content was produced: its size is charged";
  EXPECT_EQ(estimate->input, 50);
  EXPECT_EQ(estimate->output, 1) << "\"Hi\": 2 bytes, one token";
  EXPECT_TRUE(estimate->estimated);
}

TEST(AnswerUsage, ReadsAWholeAnswer) {
  auto usage = answerUsage(Protocol::Gemini,
                           R"({"candidates":[{"content":{"role":"model","parts":[{"text":"Hi"}]},)"
                           R"("finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,)"
                           R"("candidatesTokenCount":5,"thoughtsTokenCount":3,"totalTokenCount":18}})");
  ASSERT_TRUE(usage);
  EXPECT_EQ(usage->input, 10);
  EXPECT_EQ(usage->output, 8) << "thoughts are part of the output";
  EXPECT_EQ(usage->reasoning, 3);
  EXPECT_FALSE(answerUsage(Protocol::Gemini, "not json"));
}

// The fast path (only the usage member parsed) agrees with decoding the whole answer, on every
// recorded answer.
TEST(AnswerUsage, AgreesWithTheFullDecoderOnEveryRecordedAnswer) {
  namespace fs = std::filesystem;
  std::size_t compared = 0;
  for (auto [protocol, folder] : {std::pair{Protocol::OpenAiChat, "openai-chat"},
                                  std::pair{Protocol::OpenAiResponses, "openai-responses"},
                                  std::pair{Protocol::Anthropic, "anthropic"},
                                  std::pair{Protocol::Gemini, "gemini"}}) {
    for (auto const& entry : fs::directory_iterator(fs::path(LLMUX_TEST_DATA_DIR) / "fixtures" / folder)) {
      std::string name = entry.path().filename().string();
      if (!name.ends_with(".response.json")) continue;
      std::ifstream in(entry.path());
      std::stringstream text;
      text << in.rdbuf();
      auto full = decodeResponse(protocol, text.str());
      if (!full || !full->usage) continue;
      SCOPED_TRACE(name);
      EXPECT_EQ(answerUsage(protocol, text.str()), full->usage);
      ++compared;
    }
  }
  EXPECT_GE(compared, 15u);
}

TEST(UsageTally, FixesUpAZeroOutputSnapshotBeforeItIsSent) {
  UsageTally tally;
  tally.observe(Event{.type = EventType::BlockStart, .block = Block{.type = BlockType::Text}});
  tally.observe(Event{.type = EventType::TextDelta, .text = std::string(16, 'x')});
  Event usage{.type = EventType::UsageUpdate, .usage = Usage{.input = 4, .output = 0}};
  tally.fixUp(usage);
  EXPECT_EQ(usage.usage.output, 4);
  EXPECT_TRUE(usage.usage.estimated);
  Event reported{.type = EventType::UsageUpdate, .usage = Usage{.input = 4, .output = 2}};
  tally.fixUp(reported);
  EXPECT_EQ(reported.usage.output, 2) << "a reported output is kept";
  EXPECT_FALSE(reported.usage.estimated);
}

}  // namespace
}  // namespace llmux::translate

namespace llmux::translate {
namespace {

// An upstream that streams one endless event (no blank line) must not grow memory without
// bound: the decoders of the SSE protocols end the stream with an error past the parser's limit.
TEST(StreamDecoders, AnEndlessEventEndsTheStreamWithAnError) {
  for (Protocol protocol : kAllProtocols) {
    SCOPED_TRACE(std::string(protocolName(protocol)));
    auto decoder = makeStreamDecoder(protocol);
    std::vector<Event> events;
    decoder->feed("data: {\"text\":\"", events);
    std::string chunk(1u << 20, 'x');
    for (std::size_t total = 0; total <= (17u << 20) && events.empty(); total += chunk.size()) {
      decoder->feed(chunk, events);
    }
    ASSERT_FALSE(events.empty());
    EXPECT_EQ(events.back().type, EventType::Error);
  }
}

}  // namespace
}  // namespace llmux::translate
