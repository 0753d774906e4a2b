// Every recorded OpenAI Chat Completions answer goes through the neutral model and back into
// Chat: the result must validate and keep what the client sees (text, reasoning, tool calls and
// their arguments, finish reason, usage).

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "openai_chat/chat_test_support.h"
#include "translate/openai_chat/codec.h"
#include "validators/openai_chat_validator.h"

namespace llmux::translate::openai_chat {
namespace {

namespace v = validators::openai_chat;
using testing::decodeStream;
using testing::dump;
using testing::encodeStream;
using testing::readChatFixture;

constexpr std::string_view kStreams[] = {
    "pydantic-ai--chat_stream_parallel_tool_calls.i0.response.sse",
    "pydantic-ai--chat_stream_parallel_tool_calls.i1.response.sse",
    "pydantic-ai--deepseek_reasoning_content_stream.response.sse",
    "envoy-aigw--chat-streaming.response.sse",
    "envoy-aigw--chat-streaming-detailed-usage.response.sse",
};

constexpr std::string_view kResponses[] = {
    "envoy-aigw--chat-parallel-tools.response.json",
    "envoy-aigw--chat-reasoning.response.json",
    "envoy-aigw--chat-image-to-text.response.json",
    "envoy-aigw--chat-detailed-usage.response.json",
};

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += p + "\n";
  return out;
}

bool sameJson(std::string_view a, std::string_view b) {
  boost::system::error_code ea, eb;
  auto va = boost::json::parse(a, ea);
  auto vb = boost::json::parse(b, eb);
  return !ea && !eb && va == vb;
}

/// What a client keeps of an answer must be the same on both sides.
void expectSameAnswer(v::Summary const& original, v::Summary const& translated, std::string_view name) {
  SCOPED_TRACE(std::string(name));
  EXPECT_EQ(translated.content, original.content);
  EXPECT_EQ(translated.reasoning_content, original.reasoning_content);
  ASSERT_EQ(translated.tool_calls.size(), original.tool_calls.size());
  for (std::size_t i = 0; i < original.tool_calls.size(); ++i) {
    EXPECT_EQ(translated.tool_calls[i].id, original.tool_calls[i].id);
    EXPECT_EQ(translated.tool_calls[i].name, original.tool_calls[i].name);
    EXPECT_TRUE(sameJson(translated.tool_calls[i].arguments, original.tool_calls[i].arguments))
        << translated.tool_calls[i].arguments << " vs " << original.tool_calls[i].arguments;
  }
  EXPECT_EQ(translated.finish_reason, original.finish_reason);
  if (original.has_usage) {
    EXPECT_TRUE(translated.has_usage);
    EXPECT_EQ(translated.prompt_tokens, original.prompt_tokens);
    EXPECT_EQ(translated.completion_tokens, original.completion_tokens);
    EXPECT_EQ(translated.total_tokens, original.prompt_tokens + original.completion_tokens);
    EXPECT_EQ(translated.cached_tokens, original.cached_tokens);
    EXPECT_EQ(translated.reasoning_tokens, original.reasoning_tokens);
  }
}

/// A whole answer assembled from stream events, as a proxy answering a non-stream client would.
Response collect(std::vector<Event> const& events) {
  Response r;
  for (Event const& e : events) {
    switch (e.type) {
      case EventType::MessageStart:
        r.id = e.id;
        r.model = e.model;
        break;
      case EventType::BlockStart: r.content.push_back(e.block); break;
      case EventType::TextDelta:
      case EventType::ThinkingDelta: r.content.at(e.index).text += e.text; break;
      case EventType::ArgumentsDelta: r.content.at(e.index).arguments += e.text; break;
      case EventType::SignatureDelta: r.content.at(e.index).signature += e.text; break;
      case EventType::UsageUpdate: r.usage = e.usage; break;
      case EventType::MessageStop: r.stop = e.stop; break;
      default: break;
    }
  }
  return r;
}

TEST(ChatGolden, StreamsTranslateBackIntoEquivalentStreams) {
  for (std::string_view name : kStreams) {
    std::string original = readChatFixture(name);
    ASSERT_FALSE(original.empty()) << name;
    auto events = decodeStream(original, testing::randomPieces(11, 64));
    ASSERT_EQ(events.back().type, EventType::MessageStop) << name << "\n" << dump(events);
    auto before = v::summarizeStream(original);

    std::string with_usage = encodeStream(events, EncodeOptions{.include_usage = true, .created = 1});
    EXPECT_EQ(joined(v::validateStream(with_usage)), "") << name << "\n" << with_usage;
    auto after = v::summarizeStream(with_usage);
    expectSameAnswer(before, after, name);
    EXPECT_TRUE(after.id == before.id || after.id == "chatcmpl-" + before.id)
        << "a chatcmpl- id is kept, another gets the prefix: " << after.id;
    if (!before.has_usage) {
      // The client asked for usage the upstream never sent: the output is estimated.
      EXPECT_GT(after.completion_tokens, 0) << name;
    }
    EXPECT_EQ(after.model, before.model) << "no alias asked: the upstream's model";

    std::string without = encodeStream(events, EncodeOptions{.created = 1});
    EXPECT_EQ(joined(v::validateStream(without)), "") << name;
    EXPECT_FALSE(v::summarizeStream(without).has_usage) << name;
  }
}

TEST(ChatGolden, StreamsAssembledIntoWholeResponses) {
  for (std::string_view name : kStreams) {
    std::string original = readChatFixture(name);
    Response whole = collect(decodeStream(original));
    std::string body = encodeResponse(whole, EncodeOptions{.created = 1});
    EXPECT_EQ(joined(v::validateResponse(body)), "") << name << "\n" << body;
    expectSameAnswer(v::summarizeStream(original), v::summarizeResponse(body), name);
  }
}

TEST(ChatGolden, ResponsesTranslateBackIntoEquivalentResponses) {
  for (std::string_view name : kResponses) {
    std::string original = readChatFixture(name);
    auto response = decodeResponse(original);
    ASSERT_TRUE(response.ok()) << name << ": " << response.error().message;
    std::string body = encodeResponse(*response, EncodeOptions{.created = 1});
    EXPECT_EQ(joined(v::validateResponse(body)), "") << name << "\n" << body;
    auto before = v::summarizeResponse(original);
    auto after = v::summarizeResponse(body);
    expectSameAnswer(before, after, name);
    EXPECT_EQ(after.id, before.id);
    EXPECT_EQ(after.has_usage, before.has_usage);
  }
}

TEST(ChatGolden, RecordedErrorBodiesAreErrors) {
  for (std::string_view name : {"envoy-aigw--chat-bad-request.response.json",
                                "envoy-aigw--chat-unknown-model.response.json",
                                "pydantic-ai--openrouter_429.response.json",
                                "vercel-ai--reasoning-model-legacy-parameter-error.json"}) {
    auto response = decodeResponse(readChatFixture(name));
    ASSERT_FALSE(response.ok()) << name;
    EXPECT_EQ(response.error().kind, ErrorKind::UpstreamStatus) << name;
    EXPECT_FALSE(response.error().message.empty()) << name;
  }
}

}  // namespace
}  // namespace llmux::translate::openai_chat
