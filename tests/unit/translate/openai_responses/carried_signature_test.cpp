// Another provider's reasoning signature shown to a Responses client travels in the reasoning
// item's encrypted_content, tagged with its origin, and goes back to that provider on the client's
// next turn (REFERENCE.md §9.5): a Codex conversation served by Claude keeps its thinking across
// tool calls.
#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <utility>

#include "openai_responses/support.h"
#include "translate/codec.h"
#include "translate/signature_tag.h"

namespace llmux::translate {
namespace {

namespace json = boost::json;

TEST(SignatureTag, TagsAndUntags) {
  EXPECT_EQ(tagSignature("EqQB", Protocol::Anthropic), "llmux:anthropic:EqQB");
  EXPECT_EQ(tagSignature("RD", Protocol::Anthropic, SignatureKind::Redacted),
            "llmux:anthropic:redacted:RD");
  EXPECT_EQ(tagSignature("Ep", Protocol::Gemini, SignatureKind::NextPart), "llmux:gemini:next:Ep");
  CarriedSignature s = untagSignature("llmux:gemini:CpUB", Protocol::OpenAiResponses);
  EXPECT_EQ(s.value, "CpUB");
  EXPECT_EQ(s.origin, Protocol::Gemini);
  EXPECT_EQ(s.kind, SignatureKind::Reasoning);
  s = untagSignature("llmux:anthropic:redacted:RD", Protocol::OpenAiResponses);
  EXPECT_EQ(s.value, "RD");
  EXPECT_EQ(s.origin, Protocol::Anthropic);
  EXPECT_EQ(s.kind, SignatureKind::Redacted);
  s = untagSignature("gAAAAB", Protocol::OpenAiResponses);
  EXPECT_EQ(s.value, "gAAAAB") << "untagged: the client protocol's own";
  EXPECT_EQ(s.origin, Protocol::OpenAiResponses);
  s = untagSignature("llmux:nobody:x", Protocol::Anthropic);
  EXPECT_EQ(s.value, "llmux:nobody:x") << "an unknown protocol is no tag";
  EXPECT_EQ(s.origin, Protocol::Anthropic);
  EXPECT_FALSE(untagSignature("", Protocol::Anthropic).origin);
  s = untagSignature("llmux:gemini:next:Ep+/", Protocol::Anthropic);
  EXPECT_EQ(s.value, "Ep+/");
  EXPECT_EQ(s.origin, Protocol::Gemini);
  EXPECT_EQ(s.kind, SignatureKind::NextPart);
  // The tag alone: reasoning its provider did not sign.
  s = untagSignature("llmux:gemini:", Protocol::Anthropic);
  EXPECT_EQ(s.value, "");
  EXPECT_EQ(s.origin, Protocol::Gemini);
  EXPECT_EQ(s.kind, SignatureKind::Reasoning);
}

TEST(ResponsesCarriedSignature, TheRequestDecoderRestoresTheOrigin) {
  auto r = decodeRequest(Protocol::OpenAiResponses, R"({"model":"m","input":[
      {"role":"user","content":"Hi"},
      {"type":"reasoning","id":"rs_llmux_a_0","summary":[{"type":"summary_text","text":"plan"}],
       "encrypted_content":"llmux:anthropic:EqQB"},
      {"type":"reasoning","id":"rs_llmux_a_1","summary":[],
       "encrypted_content":"llmux:anthropic:redacted:RD"},
      {"type":"reasoning","id":"rs_up","summary":[],"encrypted_content":"gAAAAB"},
      {"type":"message","role":"assistant","content":[{"type":"output_text","text":"ok"}]}]})",
                         "", false);
  ASSERT_TRUE(r.ok()) << r.error().message;
  ASSERT_EQ(r->messages.size(), 2u);
  std::vector<Block> const& blocks = r->messages[1].blocks;
  ASSERT_EQ(blocks.size(), 4u);
  EXPECT_EQ(blocks[0].type, BlockType::Thinking);
  EXPECT_EQ(blocks[0].text, "plan");
  EXPECT_EQ(blocks[0].signature, "EqQB");
  EXPECT_EQ(blocks[0].signature_origin, Protocol::Anthropic);
  EXPECT_EQ(blocks[1].type, BlockType::RedactedThinking);
  EXPECT_EQ(blocks[1].signature, "RD");
  EXPECT_EQ(blocks[1].signature_origin, Protocol::Anthropic);
  EXPECT_EQ(blocks[2].signature, "gAAAAB");
  EXPECT_EQ(blocks[2].signature_origin, Protocol::OpenAiResponses);
  EXPECT_EQ(blocks[2].item_id, "rs_up");
}

/// An Anthropic answer with thinking and a tool call, as a Responses client gets it (streamed or
/// not): its output items.
json::array responsesOutput(bool stream) {
  Response answer;
  answer.id = "msg_01";
  answer.content = {Block{.type = BlockType::Thinking,
                          .text = "I should call get_weather.",
                          .signature = "EqQBCkYIBxgCKkBsig",
                          .signature_origin = Protocol::Anthropic},
                    Block{.type = BlockType::RedactedThinking,
                          .signature = "RDdata",
                          .signature_origin = Protocol::Anthropic},
                    Block{.type = BlockType::ToolCall,
                          .id = "toolu_1",
                          .name = "get_weather",
                          .arguments = R"({"city":"Paris"})"}};
  answer.stop = StopReason::ToolUse;
  answer.usage = Usage{.input = 10, .output = 5};
  if (!stream) {
    return json::parse(encodeResponse(Protocol::OpenAiResponses, answer, {}))
        .at("output")
        .as_array();
  }
  std::vector<Event> events{Event{.type = EventType::MessageStart, .id = answer.id}};
  for (std::size_t i = 0; i < answer.content.size(); ++i) {
    Block start = answer.content[i];
    int index = static_cast<int>(i);
    std::string signature = std::exchange(start.signature, {});
    std::string arguments = std::exchange(start.arguments, {});
    std::string text = std::exchange(start.text, {});
    if (start.type == BlockType::RedactedThinking) start.signature = signature;
    events.push_back(Event{.type = EventType::BlockStart, .index = index, .block = start});
    if (!text.empty()) {
      events.push_back(Event{.type = EventType::ThinkingDelta, .index = index, .text = text});
    }
    if (!arguments.empty()) {
      events.push_back(Event{.type = EventType::ArgumentsDelta, .index = index, .text = arguments});
    }
    if (start.type == BlockType::Thinking) {
      events.push_back(Event{.type = EventType::SignatureDelta, .index = index, .text = signature});
    }
    events.push_back(Event{.type = EventType::BlockStop, .index = index});
  }
  events.push_back(Event{.type = EventType::UsageUpdate, .usage = *answer.usage});
  events.push_back(Event{.type = EventType::MessageStop, .stop = StopReason::ToolUse});
  std::string bytes = openai_responses::testing::encodeStream(events, EncodeOptions{});
  // The terminal event's response holds every item as the client keeps it.
  json::object last = json::parse(bytes.substr(bytes.rfind("data: ") + 6)).as_object();
  EXPECT_EQ(last.at("type"), "response.completed");
  return last.at("response").at("output").as_array();
}

TEST(ResponsesCarriedSignature, AnthropicThinkingComesBackToAnthropicAndNowhereElse) {
  for (bool stream : {false, true}) {
    json::array output = responsesOutput(stream);
    ASSERT_EQ(output.size(), 3u) << json::serialize(output);
    // The client's next turn, as Codex sends it: every output item, then the tool's output.
    json::array input{json::parse(R"({"role":"user","content":"Weather in Paris?"})")};
    for (auto const& item : output) input.push_back(item);
    input.push_back(
        json::parse(R"({"type":"function_call_output","call_id":"toolu_1","output":"sunny"})"));
    json::object body{{"model", "gpt-5"},
                      {"input", input},
                      {"reasoning", json::parse(R"({"effort":"low","summary":"auto"})")}};
    auto request = decodeRequest(Protocol::OpenAiResponses, json::serialize(body), "", false);
    ASSERT_TRUE(request.ok()) << request.error().message;

    auto to_anthropic = encodeRequest(Protocol::Anthropic, *request, "claude-sonnet-4-5");
    ASSERT_TRUE(to_anthropic.ok()) << to_anthropic.error().message;
    json::object sent = json::parse(*to_anthropic).as_object();
    EXPECT_EQ(sent.at("thinking").at("type"), "enabled")
        << "the tool turn starts with its thinking, so thinking stays on (stream " << stream << ")";
    json::array const& messages = sent.at("messages").as_array();
    ASSERT_EQ(messages.size(), 3u);
    EXPECT_EQ(json::serialize(messages[1].at("content").at(0)),
              R"({"type":"thinking","thinking":"I should call get_weather.",)"
              R"("signature":"EqQBCkYIBxgCKkBsig"})");
    EXPECT_EQ(json::serialize(messages[1].at("content").at(1)),
              R"({"type":"redacted_thinking","data":"RDdata"})");
    EXPECT_EQ(messages[1].at("content").at(2).at("type"), "tool_use");

    for (Protocol other : {Protocol::OpenAiResponses, Protocol::OpenAiChat, Protocol::Gemini}) {
      auto elsewhere = encodeRequest(other, *request, "m");
      ASSERT_TRUE(elsewhere.ok()) << elsewhere.error().message;
      EXPECT_EQ(elsewhere->find("EqQBCkYIBxgCKkBsig"), std::string::npos)
          << "only Anthropic can read it: " << *elsewhere;
      EXPECT_EQ(elsewhere->find("RDdata"), std::string::npos) << *elsewhere;
    }
  }
}

}  // namespace
}  // namespace llmux::translate
