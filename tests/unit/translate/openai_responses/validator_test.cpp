// The validator must catch what breaks a Responses client: each case breaks a valid stream or
// body in one way and expects a problem that names it.
#include <gtest/gtest.h>

#include "openai_responses/support.h"
#include "translate/openai_responses/codec.h"
#include "validators/openai_responses_validator.h"

namespace llmux::translate::openai_responses {
namespace {

using validators::openai_responses::validateResponse;
using validators::openai_responses::validateStream;

std::string validStream() {
  std::vector<Event> events;
  Event s{.type = EventType::MessageStart};
  s.id = "resp_abc";
  events.push_back(s);
  events.push_back(Event{.type = EventType::BlockStart,
                         .index = 0,
                         .block = Block{.type = BlockType::Thinking,
                                        .signature_origin = Protocol::OpenAiResponses,
                                        .item_id = "rs_1"}});
  events.push_back(Event{.type = EventType::ThinkingDelta, .index = 0, .text = "think"});
  events.push_back(Event{.type = EventType::SignatureDelta, .index = 0, .text = "gAAAA"});
  events.push_back(Event{.type = EventType::BlockStop, .index = 0});
  events.push_back(
      Event{.type = EventType::BlockStart, .index = 1, .block = Block{.type = BlockType::Text}});
  events.push_back(Event{.type = EventType::TextDelta, .index = 1, .text = "Hello"});
  events.push_back(Event{.type = EventType::BlockStop, .index = 1});
  events.push_back(Event{.type = EventType::BlockStart,
                         .index = 2,
                         .block = Block{.type = BlockType::ToolCall, .id = "call_1", .name = "f"}});
  events.push_back(Event{.type = EventType::ArgumentsDelta, .index = 2, .text = "{\"a\":"});
  events.push_back(Event{.type = EventType::ArgumentsDelta, .index = 2, .text = "1}"});
  events.push_back(Event{.type = EventType::BlockStop, .index = 2});
  Event u{.type = EventType::UsageUpdate};
  u.usage = Usage{.input = 10, .cache_read = 2, .output = 5, .reasoning = 1};
  events.push_back(u);
  Event stop{.type = EventType::MessageStop};
  stop.stop = StopReason::ToolUse;
  events.push_back(stop);
  return testing::encodeStream(events, EncodeOptions{.model = "m"});
}

std::string replaceOnce(std::string s, std::string_view from, std::string_view to) {
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << "mutation target missing: " << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

/// The frame (with its trailing blank line) whose data holds `needle`.
std::string dropFrame(std::string s, std::string_view needle) {
  auto at = s.find(needle);
  EXPECT_NE(at, std::string::npos) << needle;
  auto begin = s.rfind("event: ", at);
  auto end = s.find("\n\n", at);
  s.erase(begin, end + 2 - begin);
  return s;
}

bool mentions(std::vector<std::string> const& problems, std::string_view word) {
  for (auto const& p : problems) {
    if (p.find(word) != std::string::npos) return true;
  }
  return false;
}

TEST(ResponsesValidator, AcceptsAValidStream) {
  EXPECT_EQ(testing::joined(validateStream(validStream())), "") << validStream();
}

TEST(ResponsesValidator, CatchesBrokenStreams) {
  std::string ok = validStream();
  struct Case {
    std::string name;
    std::string bytes;
    std::string expect;  ///< a word of the problem
  };
  std::string no_event_line = ok;
  no_event_line.erase(0, no_event_line.find('\n') + 1);
  std::vector<Case> cases = {
      {"no event: line", no_event_line, "event:"},
      {"CRLF framing", replaceOnce(ok, "\n\n", "\r\n\r\n"), "carriage"},
      {"[DONE]", ok + "data: [DONE]\n\n", "[DONE]"},
      {"type differs",
       replaceOnce(ok, "\"type\":\"response.in_progress\"", "\"type\":\"response.queued\""),
       "differs from the event name"},
      {"sequence gap", replaceOnce(ok, "\"sequence_number\":3,", "\"sequence_number\":33,"),
       "sequence_number"},
      {"not created first", dropFrame(ok, "\"type\":\"response.created\""), "first"},
      {"bad JSON", replaceOnce(ok, "\"delta\":\"Hello\"", "\"delta\":\"Hello"), "JSON"},
      {"delta for another output_index",
       replaceOnce(ok, "\"output_index\":1,\"content_index\":0,\"delta\"",
                   "\"output_index\":0,\"content_index\":0,\"delta\""),
       "output_index"},
      {"text done differs",
       replaceOnce(ok, "\"text\":\"Hello\",\"logprobs\"", "\"text\":\"Hell\",\"logprobs\""),
       "differs from the deltas"},
      {"part added twice",
       replaceOnce(ok, "\"content_index\":0,\"part\"", "\"content_index\":1,\"part\""),
       "content_index"},
      {"arguments fragment lost", dropFrame(ok, "\"delta\":\"1}\""), "arguments"},
      {"arguments not JSON",
       replaceOnce(replaceOnce(replaceOnce(replaceOnce(ok, "\"delta\":\"1}\"", "\"delta\":\"1\""),
                                           "\"arguments\":\"{\\\"a\\\":1}\"",
                                           "\"arguments\":\"{\\\"a\\\":1\""),
                               "\"arguments\":\"{\\\"a\\\":1}\"", "\"arguments\":\"{\\\"a\\\":1\""),
                   "\"arguments\":\"{\\\"a\\\":1}\"", "\"arguments\":\"{\\\"a\\\":1\""),
       "valid JSON"},
      {"item done missing",
       dropFrame(ok, "\"type\":\"response.output_item.done\",\"sequence_number\":7"), "open"},
      {"no terminal", dropFrame(ok, "\"type\":\"response.completed\""), "ended without"},
      {"event after terminal",
       ok + "event: response.in_progress\ndata: "
            "{\"type\":\"response.in_progress\",\"sequence_number\":99}\n\n",
       "after the terminal"},
      {"usage total", replaceOnce(ok, "\"total_tokens\":15", "\"total_tokens\":17"),
       "total_tokens"},
      {"cached above input", replaceOnce(ok, "\"cached_tokens\":2", "\"cached_tokens\":12"),
       "cached"},
      {"call_id missing",
       replaceOnce(ok, "\"call_id\":\"call_1\",\"name\":\"f\"}}",
                   "\"call_id\":\"\",\"name\":\"f\"}}"),
       "call_id"},
      {"wrong terminal status",
       replaceOnce(ok, "\"status\":\"completed\",\"background\"",
                   "\"status\":\"incomplete\",\"background\""),
       "status"},
      {"output not repeated",
       replaceOnce(ok, "\"output\":[{\"id\":\"rs_1\"", "\"output\":[{\"id\":\"rs_2\""),
       "differs from the streamed item"},
      {"unknown event",
       replaceOnce(ok,
                   "response.content_part.added\ndata: {\"type\":\"response.content_part.added\"",
                   "response.content_part.new\ndata: {\"type\":\"response.content_part.new\""),
       "unknown event"},
  };
  for (auto const& c : cases) {
    auto problems = validateStream(c.bytes);
    EXPECT_FALSE(problems.empty()) << c.name;
    EXPECT_TRUE(mentions(problems, c.expect)) << c.name << ":\n" << testing::joined(problems);
  }
}

TEST(ResponsesValidator, ErrorMustPrecedeResponseFailed) {
  std::vector<Event> events;
  events.push_back(Event{.type = EventType::Error, .text = "boom", .error_status = 500});
  std::string failed = testing::encodeStream(events, EncodeOptions{});
  EXPECT_EQ(testing::joined(validateStream(failed)), "");
  auto problems = validateStream(dropFrame(failed, "\"type\":\"response.failed\""));
  EXPECT_TRUE(mentions(problems, "ended without")) << testing::joined(problems);
}

TEST(ResponsesValidator, CatchesBrokenResponses) {
  Response r;
  r.id = "resp_1";
  r.content = {
      Block{.type = BlockType::Text, .text = "hi"},
      Block{.type = BlockType::ToolCall, .id = "c1", .name = "f", .arguments = "{\"a\":1}"}};
  r.usage = Usage{.input = 3, .output = 4};
  std::string ok = encodeResponse(r, EncodeOptions{.model = "m"});
  EXPECT_EQ(testing::joined(validateResponse(ok)), "") << ok;
  struct Case {
    std::string name;
    std::string body;
    std::string expect;
  };
  for (auto const& c : std::vector<Case>{
           {"not JSON", ok.substr(0, ok.size() - 1), "JSON"},
           {"bad id", replaceOnce(ok, "\"id\":\"resp_1\"", "\"id\":\"chatcmpl-1\""), "resp_"},
           {"incomplete without reason",
            replaceOnce(ok, "\"status\":\"completed\",\"background\"",
                        "\"status\":\"incomplete\",\"background\""),
            "incomplete_details"},
           {"arguments not JSON",
            replaceOnce(ok, "\"arguments\":\"{\\\"a\\\":1}\"", "\"arguments\":\"{a:1}\""),
            "valid JSON"},
           {"total", replaceOnce(ok, "\"total_tokens\":7", "\"total_tokens\":9"), "total_tokens"},
           {"unknown item", replaceOnce(ok, "\"type\":\"function_call\"", "\"type\":\"tool_use\""),
            "unknown output item"},
           {"no role", replaceOnce(ok, "\"role\":\"assistant\"", "\"role\":\"model\""), "role"},
       }) {
    auto problems = validateResponse(c.body);
    EXPECT_TRUE(mentions(problems, c.expect)) << c.name << ":\n" << testing::joined(problems);
  }
}

}  // namespace
}  // namespace llmux::translate::openai_responses
