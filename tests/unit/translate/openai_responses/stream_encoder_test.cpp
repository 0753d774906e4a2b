#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "openai_responses/support.h"
#include "translate/openai_responses/codec.h"
#include "validators/openai_responses_validator.h"

namespace llmux::translate::openai_responses {
namespace {

using testing::assemble;
using testing::Assembled;
using testing::describe;
using testing::joined;

Event start(std::string id = "msg_01abc", std::string model = "claude-x") {
  Event e{.type = EventType::MessageStart};
  e.id = std::move(id);
  e.model = std::move(model);
  return e;
}
Event blockStart(int index, Block block) {
  return Event{.type = EventType::BlockStart, .index = index, .block = std::move(block)};
}
Event delta(EventType type, int index, std::string text) {
  return Event{.type = type, .index = index, .text = std::move(text)};
}
Event blockStop(int index) {
  return Event{.type = EventType::BlockStop, .index = index};
}
Event usage(Usage u) {
  Event e{.type = EventType::UsageUpdate};
  e.usage = u;
  return e;
}
Event stop(StopReason reason) {
  Event e{.type = EventType::MessageStop};
  e.stop = reason;
  return e;
}

EncodeOptions options() {
  return EncodeOptions{.model = "client-model", .id = "gw1", .created = 1700000000};
}

/// The `data:` objects of a stream, in order.
std::vector<boost::json::object> datas(std::string_view bytes) {
  std::vector<boost::json::object> out;
  std::size_t pos = 0;
  while ((pos = bytes.find("data: ", pos)) != std::string_view::npos) {
    std::size_t end = bytes.find('\n', pos);
    out.push_back(boost::json::parse(bytes.substr(pos + 6, end - pos - 6)).as_object());
    pos = end;
  }
  return out;
}

std::vector<std::string> types(std::string_view bytes) {
  std::vector<std::string> out;
  for (auto const& d : datas(bytes)) out.emplace_back(d.at("type").as_string());
  return out;
}

TEST(ResponsesStreamEncoder, TextStreamExactFrames) {
  std::string out = testing::encodeStream(
      {start(), blockStart(0, Block{.type = BlockType::Text}),
       delta(EventType::TextDelta, 0, "Hel"), delta(EventType::TextDelta, 0, "lo"), blockStop(0),
       usage(Usage{.input = 10, .cache_read = 4, .output = 2}), stop(StopReason::EndTurn)},
      options());
  EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << out;
  EXPECT_EQ(types(out),
            (std::vector<std::string>{"response.created", "response.in_progress",
                                      "response.output_item.added", "response.content_part.added",
                                      "response.output_text.delta", "response.output_text.delta",
                                      "response.output_text.done", "response.content_part.done",
                                      "response.output_item.done", "response.completed"}));
  EXPECT_TRUE(out.starts_with(
      "event: response.created\ndata: {\"type\":\"response.created\",\"sequence_number\":0,"
      "\"response\":{\"id\":\"resp_msg_01abc\",\"object\":\"response\",\"created_at\":1700000000,"
      "\"status\":\"in_progress\","))
      << out;
  EXPECT_NE(
      out.find("event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\","
               "\"sequence_number\":4,\"item_id\":\"msg_msg_01abc_0\",\"output_index\":0,"
               "\"content_index\":0,\"delta\":\"Hel\",\"logprobs\":[]}\n\n"),
      std::string::npos)
      << out;
  auto last = datas(out).back();
  EXPECT_EQ(last.at("response").at("model"), "client-model");
  EXPECT_EQ(last.at("response").at("output").at(0).at("content").at(0).at("text"), "Hello");
  EXPECT_EQ(last.at("response").at("usage").at("total_tokens"), 12);
}

TEST(ResponsesStreamEncoder, ToolCallsReasoningAndFragments) {
  std::vector<Event> events = {
      start(),
      blockStart(0, Block{.type = BlockType::Thinking, .signature_origin = Protocol::Anthropic}),
      delta(EventType::ThinkingDelta, 0, "I should "),
      delta(EventType::ThinkingDelta, 0, "call f."),
      delta(EventType::SignatureDelta, 0, "EqQB-anthropic"),
      blockStop(0),
      blockStart(1, Block{.type = BlockType::ToolCall, .id = "toolu_1", .name = "f"}),
      delta(EventType::ArgumentsDelta, 1, "{\"a\""),
      delta(EventType::ArgumentsDelta, 1, ":[1,"),
      delta(EventType::ArgumentsDelta, 1, "2]}"),
      blockStop(1),
      blockStart(2, Block{.type = BlockType::ToolCall, .id = "toolu_2", .name = "g"}),
      blockStop(2),
      usage(Usage{.input = 50, .output = 20, .reasoning = 8}),
      stop(StopReason::ToolUse)};
  std::string out = testing::encodeStream(events, options());
  EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << out;
  EXPECT_NE(out.find(R"("encrypted_content":"llmux:anthropic:EqQB-anthropic")"), std::string::npos)
      << "an Anthropic signature is carried tagged (once in output_item.done, once in the "
         "terminal response)";
  EXPECT_EQ(out.find("\"EqQB"), std::string::npos) << "never untagged, as if it were OpenAI's";
  // Decoding what a Responses client receives gives the same content back.
  Assembled a = assemble(testing::decodeStream(out));
  ASSERT_EQ(a.response.content.size(), 3u);
  EXPECT_EQ(a.response.content[0].text, "I should call f.");
  EXPECT_EQ(a.response.content[1].id, "toolu_1") << "call ids pass through";
  EXPECT_EQ(a.response.content[1].arguments, R"({"a":[1,2]})");
  EXPECT_EQ(a.response.content[2].arguments, "{}") << "a call without arguments takes {}";
  EXPECT_EQ(a.response.stop, StopReason::ToolUse);
  EXPECT_EQ(a.response.usage->reasoning, 8);
}

TEST(ResponsesStreamEncoder, ForeignOpaqueReasoningIsCarriedTagged) {
  std::string out = testing::encodeStream(
      {start(),
       blockStart(0, Block{.type = BlockType::RedactedThinking,
                           .signature = "opaque",
                           .signature_origin = Protocol::Anthropic}),
       blockStop(0),
       blockStart(1, Block{.type = BlockType::Thinking, .signature_origin = Protocol::Gemini}),
       delta(EventType::SignatureDelta, 1, "gemini-sig"), blockStop(1),
       blockStart(2, Block{.type = BlockType::Text}), delta(EventType::TextDelta, 2, "Hi"),
       blockStop(2), stop(StopReason::EndTurn)},
      options());
  EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "");
  boost::json::array output = datas(out).back().at("response").at("output").as_array();
  ASSERT_EQ(output.size(), 3u) << out;
  EXPECT_EQ(output[0].at("type"), "reasoning");
  EXPECT_EQ(output[0].at("encrypted_content"), "llmux:anthropic:redacted:opaque");
  EXPECT_TRUE(output[0].at("id").as_string().starts_with("rs_llmux_"));
  EXPECT_EQ(output[1].at("encrypted_content"), "llmux:gemini:gemini-sig");
  EXPECT_EQ(output[2].at("type"), "message");
}

TEST(ResponsesStreamEncoder, OwnEncryptedReasoningIsKept) {
  std::string out = testing::encodeStream(
      {start("resp_up", "gpt-5"),
       blockStart(0, Block{.type = BlockType::Thinking,
                           .signature_origin = Protocol::OpenAiResponses,
                           .item_id = "rs_up"}),
       delta(EventType::SignatureDelta, 0, "gAAAA"), blockStop(0), stop(StopReason::EndTurn)},
      EncodeOptions{});
  EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << out;
  auto last = datas(out).back();
  EXPECT_EQ(last.at("response").at("id"), "resp_up");
  EXPECT_EQ(last.at("response").at("model"), "gpt-5") << "the upstream's model when none was asked";
  EXPECT_EQ(last.at("response").at("output").at(0).at("id"), "rs_up");
  EXPECT_EQ(last.at("response").at("output").at(0).at("encrypted_content"), "gAAAA");
}

TEST(ResponsesStreamEncoder, MadeUpReasoningIdsAreRecognisable) {
  std::string out = testing::encodeStream(
      {start("msg_01", "claude"),
       blockStart(0, Block{.type = BlockType::Thinking,
                           .signature_origin = Protocol::Anthropic,
                           .item_id = "rs_up"}),
       delta(EventType::ThinkingDelta, 0, "plan"), delta(EventType::SignatureDelta, 0, "EqQB"),
       blockStop(0), stop(StopReason::EndTurn)},
      EncodeOptions{});
  EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << out;
  auto output = datas(out).back().at("response").at("output");
  EXPECT_TRUE(output.at(0).at("id").as_string().starts_with("rs_llmux_")) << out;
}

TEST(ResponsesStreamEncoder, StopReasonsChooseTheTerminalEvent) {
  struct Case {
    StopReason stop;
    std::string type;
    std::string reason;
  };
  for (auto const& c :
       std::vector<Case>{{StopReason::EndTurn, "response.completed", ""},
                         {StopReason::ToolUse, "response.completed", ""},
                         {StopReason::MaxTokens, "response.incomplete", "max_output_tokens"},
                         {StopReason::ContentFilter, "response.incomplete", "content_filter"}}) {
    std::string out =
        testing::encodeStream({start(), blockStart(0, Block{.type = BlockType::Text}),
                               delta(EventType::TextDelta, 0, "x"), blockStop(0), stop(c.stop)},
                              options());
    EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << out;
    auto last = datas(out).back();
    EXPECT_EQ(last.at("type").as_string(), c.type);
    if (!c.reason.empty()) {
      EXPECT_EQ(last.at("response").at("incomplete_details").at("reason").as_string(), c.reason);
    }
  }
}

TEST(ResponsesStreamEncoder, ErrorsUseTheInStreamForm) {
  std::string out = testing::encodeStream(
      {start(), blockStart(0, Block{.type = BlockType::Text}),
       delta(EventType::TextDelta, 0, "par"),
       Event{.type = EventType::Error, .text = "Overloaded", .error_status = 529},
       delta(EventType::TextDelta, 0, "ignored")},
      options());
  EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << out;
  auto d = datas(out);
  ASSERT_GE(d.size(), 2u);
  EXPECT_EQ(d[d.size() - 2].at("type"), "error");
  EXPECT_EQ(d[d.size() - 2].at("error").at("message"), "Overloaded");
  EXPECT_EQ(d.back().at("type"), "response.failed");
  EXPECT_EQ(d.back().at("response").at("status"), "failed");
  EXPECT_EQ(out.find("ignored"), std::string::npos) << "nothing after the failure";

  std::string early = testing::encodeStream(
      {Event{.type = EventType::Error, .text = "rate limited", .error_status = 429}}, options());
  EXPECT_EQ(joined(validators::openai_responses::validateStream(early)), "") << early;
  EXPECT_EQ(types(early), (std::vector<std::string>{"response.created", "response.in_progress",
                                                    "error", "response.failed"}));
  EXPECT_EQ(datas(early)[2].at("code"), "rate_limit_exceeded");

  std::string overflow = testing::encodeStream(
      {start(), Event{.type = EventType::Error,
                      .text = "prompt is too long: 219898 tokens > 200000 maximum",
                      .error_status = 400}},
      options());
  EXPECT_EQ(joined(validators::openai_responses::validateStream(overflow)), "");
  EXPECT_EQ(datas(overflow)[2].at("code"), "context_length_exceeded") << "what Codex looks for";
  EXPECT_EQ(datas(overflow)[3].at("response").at("error").at("code"), "context_length_exceeded");
}

TEST(ResponsesStreamEncoder, SloppyInputStillMakesAValidStream) {
  // Deltas without their BlockStart, a block never stopped, no MessageStart.
  std::string out = testing::encodeStream(
      {delta(EventType::TextDelta, 0, "a"),
       blockStart(1, Block{.type = BlockType::ToolCall, .id = "c", .name = "f"}),
       blockStart(2, Block{.type = BlockType::Text}), delta(EventType::TextDelta, 2, "b"),
       blockStart(3, Block{.type = BlockType::Image, .url = "https://x"}), blockStop(3),
       stop(StopReason::EndTurn), stop(StopReason::EndTurn)},
      options());
  EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << out;
}

TEST(ResponsesStreamEncoder, FixtureStreamsRoundTrip) {
  // Every recorded Responses stream: decode, encode for a Responses client, validate, decode again.
  for (auto const& s : testing::responsesStreams()) {
    std::vector<Event> events = testing::decodeStream(s.bytes);
    std::string out = testing::encodeStream(events, options());
    EXPECT_EQ(joined(validators::openai_responses::validateStream(out)), "") << s.name;
    Assembled a = assemble(events);
    Assembled b = assemble(testing::decodeStream(out));
    EXPECT_EQ(b.error.empty(), a.error.empty()) << s.name;
    if (!a.error.empty()) {
      EXPECT_EQ(b.error, a.error) << s.name;
      continue;
    }
    EXPECT_EQ(b.response.stop, a.response.stop) << s.name;
    ASSERT_EQ(b.response.content.size(), a.response.content.size()) << s.name;
    for (std::size_t i = 0; i < a.response.content.size(); ++i) {
      Block const& x = a.response.content[i];
      Block const& y = b.response.content[i];
      EXPECT_EQ(y.type, x.type) << s.name << " block " << i;
      EXPECT_EQ(y.text, x.text) << s.name << " block " << i;
      EXPECT_EQ(y.id, x.id) << s.name << " block " << i;
      EXPECT_EQ(y.name, x.name) << s.name << " block " << i;
      EXPECT_EQ(y.arguments, x.arguments) << s.name << " block " << i;
      EXPECT_EQ(y.signature, x.signature) << s.name << " block " << i;
      bool openai_id = x.item_id.starts_with("rs_") || x.item_id.starts_with("msg_") ||
                       x.item_id.starts_with("fc_");
      if (openai_id) {
        EXPECT_EQ(y.item_id, x.item_id) << s.name << " block " << i;
      } else {
        EXPECT_FALSE(y.item_id.empty()) << "made-up ids replace ones OpenAI would not mint";
      }
    }
    ASSERT_EQ(b.response.usage.has_value(), a.response.usage.has_value()) << s.name;
    if (a.response.usage) {
      EXPECT_EQ(b.response.usage->input, a.response.usage->input);
      EXPECT_EQ(b.response.usage->cache_read, a.response.usage->cache_read);
      EXPECT_EQ(b.response.usage->output, a.response.usage->output);
      EXPECT_EQ(b.response.usage->reasoning, a.response.usage->reasoning);
    }
  }
}

TEST(ResponsesStreamEncoder, EachEventIsFlushedAsItArrives) {
  auto encoder = makeStreamEncoder(options());
  std::string out;
  encoder->encode(start(), out);
  EXPECT_NE(out.find("response.in_progress"), std::string::npos);
  out.clear();
  encoder->encode(blockStart(0, Block{.type = BlockType::ToolCall, .id = "c", .name = "f"}), out);
  EXPECT_NE(out.find("response.output_item.added"), std::string::npos);
  out.clear();
  encoder->encode(delta(EventType::ArgumentsDelta, 0, "{\"q\":"), out);
  EXPECT_NE(out.find("{\\\"q\\\":"), std::string::npos) << "a fragment goes out at once";
  EXPECT_TRUE(out.ends_with("\n\n"));
}

}  // namespace
}  // namespace llmux::translate::openai_responses
