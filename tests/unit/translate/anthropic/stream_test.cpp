#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "anthropic/support.h"
#include "translate/anthropic/codec.h"
#include "validators/anthropic_validator.h"

namespace llmux::translate::anthropic {
namespace {

namespace json = boost::json;
using testing::accumulate;
using testing::decodeStream;
using testing::describe;
using testing::encodeStream;
using testing::streamBody;

std::string joined(std::vector<std::string> const& problems) {
  std::string out;
  for (auto const& p : problems) out += p + "\n";
  return out;
}

std::vector<std::string> streamFixtures() {
  auto names = testing::fixturesEnding(".response.sse");
  for (auto const& n : testing::fixturesEnding(".chunks.txt")) names.push_back(n);
  return names;
}

bool hasEvent(std::vector<Event> const& events, EventType type) {
  return std::any_of(events.begin(), events.end(), [&](Event const& e) { return e.type == type; });
}

void expectSameAnswer(Response const& a, Response const& b, std::string const& where) {
  ASSERT_EQ(a.content.size(), b.content.size()) << where;
  for (std::size_t i = 0; i < a.content.size(); ++i) {
    EXPECT_EQ(a.content[i].type, b.content[i].type) << where << " block " << i;
    EXPECT_EQ(a.content[i].text, b.content[i].text) << where << " block " << i;
    EXPECT_EQ(a.content[i].signature, b.content[i].signature) << where << " block " << i;
    EXPECT_EQ(a.content[i].id, b.content[i].id) << where << " block " << i;
    EXPECT_EQ(a.content[i].name, b.content[i].name) << where << " block " << i;
    std::string x = a.content[i].arguments.empty() ? "{}" : a.content[i].arguments;
    std::string y = b.content[i].arguments.empty() ? "{}" : b.content[i].arguments;
    if (a.content[i].type == BlockType::ToolCall) {
      EXPECT_EQ(json::parse(x), json::parse(y)) << where << " block " << i;
    }
  }
  EXPECT_EQ(a.stop, b.stop) << where;
  ASSERT_TRUE(a.usage && b.usage) << where;
  EXPECT_EQ(a.usage->input, b.usage->input) << where;
  EXPECT_EQ(a.usage->cache_read, b.usage->cache_read) << where;
  EXPECT_EQ(a.usage->cache_write, b.usage->cache_write) << where;
  EXPECT_EQ(a.usage->output, b.usage->output) << where;
}

TEST(AnthropicStream, EveryRecordedStreamDecodesTheSameInAnySplit) {
  auto names = streamFixtures();
  ASSERT_GE(names.size(), 11u);
  for (auto const& name : names) {
    std::string body = streamBody(name);
    auto whole = decodeStream(body);
    std::string expected = describe(whole);
    EXPECT_EQ(whole.front().type, EventType::MessageStart) << name;
    EXPECT_EQ(whole.back().type, EventType::MessageStop) << name << "\n" << expected;
    EXPECT_FALSE(hasEvent(whole, EventType::Error)) << name << "\n" << expected;
    EXPECT_EQ(describe(decodeStream(body, 1)), expected) << name << " byte by byte";
    for (std::uint32_t seed : {1u, 2u, 3u}) {
      EXPECT_EQ(describe(testing::decodeStreamRandomly(body, seed)), expected)
          << name << " random split " << seed;
    }
    // Blocks are sequential: start i, deltas of i, stop i, for i = 0, 1, 2...
    int open = -1;
    int next = 0;
    for (Event const& e : whole) {
      if (e.type == EventType::BlockStart) {
        EXPECT_EQ(open, -1) << name;
        EXPECT_EQ(e.index, next++) << name;
        open = e.index;
      } else if (e.type == EventType::BlockStop) {
        EXPECT_EQ(e.index, open) << name;
        open = -1;
      } else if (e.type == EventType::TextDelta || e.type == EventType::ThinkingDelta ||
                 e.type == EventType::SignatureDelta || e.type == EventType::ArgumentsDelta) {
        EXPECT_EQ(e.index, open) << name;
      }
    }
  }
}

TEST(AnthropicStream, EveryRecordedStreamReencodesIntoAValidStreamWithNothingLost) {
  for (auto const& name : streamFixtures()) {
    std::string body = streamBody(name);
    auto problems = validators::anthropic::validateStream(body);
    EXPECT_TRUE(problems.empty()) << name << " (recorded): " << joined(problems);
    auto events = decodeStream(body);
    EncodeOptions options;
    options.model = "client-model";
    options.id = "fallback";
    std::string encoded = encodeStream(events, options);
    problems = validators::anthropic::validateStream(encoded);
    EXPECT_TRUE(problems.empty()) << name << ": " << joined(problems) << encoded;
    auto again = decodeStream(encoded);
    expectSameAnswer(accumulate(events), accumulate(again), name);
  }
}

TEST(AnthropicStream, ThinkingSignatureAndToolUseRecording) {
  auto events =
      decodeStream(streamBody("llm-anthropic--stream_thinking_signature_tool_use.i0.response.sse"));
  Response r = accumulate(events);
  EXPECT_EQ(r.id, "msg_01JdU4xqNHXL9QCFWkwCDKGr");
  EXPECT_EQ(r.model, "claude-haiku-4-5-20251001");
  ASSERT_EQ(r.content.size(), 2u);
  EXPECT_EQ(r.content[0].type, BlockType::Thinking);
  EXPECT_EQ(r.content[0].signature_origin, Protocol::Anthropic);
  EXPECT_TRUE(
      r.content[0].text.starts_with("The user wants me to:\n1. Use the fixed_version tool"));
  EXPECT_TRUE(r.content[0].signature.starts_with("EoQDCm0IDhgCKkCDzGs2"));
  EXPECT_TRUE(r.content[0].signature.ends_with("SBwUxgB"));
  EXPECT_EQ(r.content[1].type, BlockType::ToolCall);
  EXPECT_EQ(r.content[1].id, "toolu_01825dXWLSoJwCst1qTsiWdb");
  EXPECT_EQ(r.content[1].name, "fixed_version");
  EXPECT_EQ(r.content[1].arguments, "{}");  // no arguments: one empty fragment upstream
  EXPECT_EQ(r.stop, StopReason::ToolUse);
  ASSERT_TRUE(r.usage);
  EXPECT_EQ(r.usage->input, 598);
  EXPECT_EQ(r.usage->output, 92);
  EXPECT_EQ(r.usage->reasoning, 53);

  std::string encoded = encodeStream(events, {});
  // One signature_delta, right before the thinking block closes, the signature unchanged.
  auto sig = encoded.find("signature_delta");
  ASSERT_NE(sig, std::string::npos);
  EXPECT_EQ(encoded.find("signature_delta", sig + 1), std::string::npos);
  EXPECT_NE(encoded.find(r.content[0].signature), std::string::npos);
  EXPECT_LT(sig, encoded.find("content_block_stop"));
}

TEST(AnthropicStream, ServerToolBlocksAreSkippedAndIndexesStayContinuous) {
  auto events = decodeStream(streamBody("pydantic-ai--stream_thinking_server_tool.response.sse"));
  Response r = accumulate(events);
  for (Block const& b : r.content) {
    EXPECT_TRUE(b.type == BlockType::Text || b.type == BlockType::Thinking) << describe(events);
  }
  EXPECT_EQ(r.content.front().type, BlockType::Thinking);
  auto web = decodeStream(streamBody("vercel-ai--anthropic-web-search-tool.1.chunks.txt"));
  EXPECT_EQ(web.back().type, EventType::MessageStop);
  std::string encoded = encodeStream(web, {});
  EXPECT_TRUE(validators::anthropic::validateStream(encoded).empty());
}

TEST(AnthropicStream, UsageFieldsKeepTheirLastValue) {
  // message_start says 43 input tokens, message_delta 61: the later count wins.
  auto events =
      decodeStream(streamBody("vercel-ai--anthropic-message-delta-input-tokens.chunks.txt"));
  Response r = accumulate(events);
  ASSERT_TRUE(r.usage);
  EXPECT_EQ(r.usage->input, 61);
  EXPECT_EQ(r.usage->output, 2);
  EXPECT_EQ(r.content[0].text, "pong");
}

TEST(AnthropicStream, ErrorsTruncationAndGarbage) {
  std::string head =
      "event: message_start\ndata: "
      "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"model\":\"m\",\"usage\":{"
      "\"input_tokens\":3,\"output_tokens\":1}}}\n\n"
      "event: content_block_start\ndata: "
      "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":"
      "\"\"}}\n\n"
      "event: content_block_delta\ndata: "
      "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":"
      "\"Hel\"}}\n\n";
  auto overloaded = decodeStream(head +
                                 "event: error\ndata: "
                                 "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                                 "\"message\":\"Overloaded\"}}\n\n"
                                 "event: content_block_delta\ndata: "
                                 "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{"
                                 "\"type\":\"text_delta\",\"text\":\"lo\"}}\n\n");
  ASSERT_EQ(overloaded.back().type, EventType::Error) << describe(overloaded);
  EXPECT_EQ(overloaded.back().error_status, 529);
  EXPECT_EQ(overloaded.back().text, "Overloaded");
  EXPECT_EQ(accumulate(overloaded).content[0].text, "Hel");  // nothing after the error

  auto cut = decodeStream(head);
  ASSERT_EQ(cut.back().type, EventType::Error);
  EXPECT_EQ(cut.back().error_status, 502);

  struct Case {
    std::string frame;
  };
  for (std::string bad : {
           std::string("data: {not json}\n\n"),
           std::string("event: content_block_delta\ndata: "
                       "{\"type\":\"content_block_delta\",\"index\":7,\"delta\":{\"type\":\"text_"
                       "delta\",\"text\":\"x\"}}\n\n"),
           std::string("event: content_block_start\ndata: "
                       "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":"
                       "\"text\",\"text\":\"\"}}\n\n"),
           std::string("event: content_block_start\ndata: {\"type\":\"content_block_start\"}\n\n"),
       }) {
    auto events = decodeStream(head + bad);
    ASSERT_EQ(events.back().type, EventType::Error) << bad;
    EXPECT_EQ(events.back().error_status, 502) << bad;
    EXPECT_EQ(std::count_if(events.begin(), events.end(),
                            [](Event const& e) { return e.type == EventType::Error; }),
              1)
        << bad;
  }
}

Event ev(EventType type, int index = 0, std::string text = {}) {
  Event e;
  e.type = type;
  e.index = index;
  e.text = std::move(text);
  return e;
}

Event start(int index, BlockType type, std::string id = {}, std::string name = {}) {
  Event e = ev(EventType::BlockStart, index);
  e.block.type = type;
  e.block.id = std::move(id);
  e.block.name = std::move(name);
  return e;
}

TEST(AnthropicStream, EncoderTurnsAChatLikeStreamIntoAnthropicEvents) {
  // What an OpenAI Chat upstream yields: reasoning text, text, two parallel calls, the finish
  // reason held until usage arrived.
  Event begin = ev(EventType::MessageStart);
  begin.id = "chatcmpl-9";
  begin.model = "gpt-4.1";
  Event usage = ev(EventType::UsageUpdate);
  usage.usage = Usage{120, 100, 0, 40, 10, false};
  Event stop = ev(EventType::MessageStop);
  stop.stop = StopReason::EndTurn;  // "stop" with calls: the encoder says tool_use
  Event reasoning = start(0, BlockType::Thinking);
  reasoning.block.signature_origin = Protocol::OpenAiChat;
  std::vector<Event> events = {begin,
                               reasoning,
                               ev(EventType::ThinkingDelta, 0, "let me think"),
                               ev(EventType::BlockStop, 0),
                               start(1, BlockType::Text),
                               ev(EventType::TextDelta, 1, "Checking."),
                               ev(EventType::BlockStop, 1),
                               start(2, BlockType::ToolCall, "call_a", "get"),
                               ev(EventType::ArgumentsDelta, 2, "{\"ci"),
                               ev(EventType::ArgumentsDelta, 2, "ty\":\"Par"),
                               ev(EventType::ArgumentsDelta, 2, "is\"}"),
                               ev(EventType::BlockStop, 2),
                               start(3, BlockType::ToolCall, "call_b", "put"),
                               ev(EventType::ArgumentsDelta, 3, "{}"),
                               ev(EventType::BlockStop, 3),
                               usage,
                               stop};
  EncodeOptions options;
  options.model = "claude-alias";
  std::string out = encodeStream(events, options);
  auto problems = validators::anthropic::validateStream(out);
  EXPECT_TRUE(problems.empty()) << joined(problems) << out;
  EXPECT_TRUE(out.starts_with("event: message_start\ndata: "));
  EXPECT_NE(out.find(R"("id":"msg_chatcmpl-9")"), std::string::npos);
  EXPECT_NE(out.find(R"("model":"claude-alias")"), std::string::npos);
  EXPECT_NE(out.find(R"({"type":"tool_use","id":"call_a","name":"get","input":{}})"),
            std::string::npos);
  // A Chat upstream signs nothing: the client still gets a signature, the tag alone.
  EXPECT_NE(out.find(R"("delta":{"type":"signature_delta","signature":"llmux:openai-chat:"})"),
            std::string::npos)
      << out;
  EXPECT_NE(
      out.find(
          R"("delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"input_tokens":20,"cache_creation_input_tokens":0,"cache_read_input_tokens":100,"output_tokens":40,"output_tokens_details":{"thinking_tokens":10}})"),
      std::string::npos)
      << out;
  auto back = accumulate(decodeStream(out));
  ASSERT_EQ(back.content.size(), 4u);
  EXPECT_EQ(back.content[2].arguments, R"({"city":"Paris"})");  // fragments in order
  EXPECT_EQ(back.content[3].name, "put");
  EXPECT_EQ(back.usage->input, 120);
  EXPECT_EQ(back.usage->output, 40);
  EXPECT_EQ(back.usage->reasoning, 10);
}

TEST(AnthropicStream, MessageStartCarriesTheInputUsageThatFollowsIt) {
  Event begin = ev(EventType::MessageStart);
  begin.id = "msg_x";
  Event usage = ev(EventType::UsageUpdate);
  usage.usage = Usage{50, 0, 10, 1, 0, false};
  Event stop = ev(EventType::MessageStop);
  std::string out =
      encodeStream({begin, usage, start(0, BlockType::Text), ev(EventType::TextDelta, 0, "hi"),
                    ev(EventType::BlockStop, 0), stop},
                   {});
  auto first = out.substr(0, out.find("\n\n"));
  EXPECT_NE(first.find(R"("usage":{"input_tokens":40,"cache_creation_input_tokens":10)"),
            std::string::npos)
      << first;
  EXPECT_TRUE(validators::anthropic::validateStream(out).empty()) << out;
}

TEST(AnthropicStream, SignaturesReachTheClientOnlyWhenTheyCanComeBack) {
  struct Case {
    std::optional<Protocol> origin;
    std::string expect;
  };
  std::vector<Case> cases = {{Protocol::Anthropic, "Sig+/="},
                             {Protocol::Gemini, "llmux:gemini:Sig+/="},
                             {Protocol::OpenAiResponses, "llmux:openai-responses:Sig+/="}};
  for (auto const& c : cases) {
    Event s = start(0, BlockType::Thinking);
    s.block.signature_origin = c.origin;
    std::string out = encodeStream(
        {ev(EventType::MessageStart), s, ev(EventType::ThinkingDelta, 0, "hmm"),
         ev(EventType::SignatureDelta, 0, "Sig"), ev(EventType::SignatureDelta, 0, "+/="),
         ev(EventType::BlockStop, 0), ev(EventType::MessageStop)},
        {});
    EXPECT_TRUE(validators::anthropic::validateStream(out).empty()) << out;
    EXPECT_NE(out.find(R"("signature":")" + c.expect + "\""), std::string::npos) << out;
  }
}

TEST(AnthropicStream, EncoderErrorEvents) {
  Event error = ev(EventType::Error);
  error.error_status = 429;
  error.text = "slow down";
  std::string mid =
      encodeStream({ev(EventType::MessageStart), start(0, BlockType::Text),
                    ev(EventType::TextDelta, 0, "par"), error, ev(EventType::TextDelta, 0, "tial")},
                   {});
  EXPECT_TRUE(validators::anthropic::validateStream(mid).empty()) << mid;
  EXPECT_NE(mid.find("event: error\n"), std::string::npos);
  EXPECT_NE(mid.find("rate_limit_error"), std::string::npos);
  EXPECT_EQ(mid.find("tial"), std::string::npos);
  std::string early = encodeStream({error}, {});
  EXPECT_TRUE(early.starts_with("event: error\n")) << early;
  EXPECT_TRUE(validators::anthropic::validateStream(early).empty()) << early;
}

TEST(AnthropicStream, MockProviderStreamsDecodeAndReencode) {
  std::vector<std::string> bodies = {
      R"({"model":"claude-sonnet-4-5","max_tokens":4096,"stream":true,"messages":[{"role":"user","content":"hello"}]})",
      R"({"model":"claude-sonnet-4-5","max_tokens":4096,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},
         "tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer"}},"required":["city","days"]}},
                  {"name":"get_time","input_schema":{"type":"object","properties":{"tz":{"type":"string"}}}}],
         "messages":[{"role":"user","content":"weather?"}]})",
  };
  for (auto const& body : bodies) {
    auto answer = testing::askMock(body);
    ASSERT_EQ(answer.status, 200) << answer.body;
    EXPECT_TRUE(validators::anthropic::validateStream(answer.body).empty()) << answer.body;
    auto events = decodeStream(answer.body);
    ASSERT_EQ(events.back().type, EventType::MessageStop) << describe(events);
    EXPECT_EQ(describe(decodeStream(answer.body, 1)), describe(events));
    Response r = accumulate(events);
    bool tools = body.find("get_weather") != std::string::npos;
    EXPECT_EQ(std::count_if(r.content.begin(), r.content.end(),
                            [](Block const& b) { return b.type == BlockType::ToolCall; }),
              tools ? 2 : 0);
    EXPECT_EQ(r.content.front().type, tools ? BlockType::Thinking : BlockType::Text);
    for (Block const& b : r.content) {
      if (b.type == BlockType::ToolCall) {
        EXPECT_TRUE(json::parse(b.arguments.empty() ? "{}" : b.arguments).is_object())
            << b.arguments;
      }
    }
    std::string encoded = encodeStream(events, {});
    EXPECT_TRUE(validators::anthropic::validateStream(encoded).empty()) << encoded;
    expectSameAnswer(r, accumulate(decodeStream(encoded)), body);
  }
}

}  // namespace
}  // namespace llmux::translate::anthropic
