#include <gtest/gtest.h>

#include "validators/anthropic_validator.h"

namespace llmux::translate::validators::anthropic {
namespace {

std::string frame(std::string_view event, std::string_view data) {
  return "event: " + std::string(event) + "\ndata: " + std::string(data) + "\n\n";
}

const std::string kStart = frame(
    "message_start",
    R"({"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}})");
const std::string kThinking =
    frame(
        "content_block_start",
        R"({"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}})") +
    frame(
        "content_block_delta",
        R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"hmm"}})") +
    frame(
        "content_block_delta",
        R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}})") +
    frame("content_block_stop", R"({"type":"content_block_stop","index":0})");
const std::string kTool =
    frame(
        "content_block_start",
        R"({"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get","input":{}}})") +
    frame("ping", R"({"type": "ping"})") +
    frame(
        "content_block_delta",
        R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"a\":"}})") +
    frame(
        "content_block_delta",
        R"({"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"1}"}})") +
    frame("content_block_stop", R"({"type":"content_block_stop","index":1})");
const std::string kDelta = frame(
    "message_delta",
    R"({"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":9}})");
const std::string kStop = frame("message_stop", R"({"type":"message_stop"})");

std::string valid() {
  return kStart + kThinking + kTool + kDelta + kStop;
}

std::string replaced(std::string s, std::string_view from, std::string_view to) {
  auto at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

bool mentions(std::vector<std::string> const& problems, std::string_view what) {
  for (auto const& p : problems) {
    if (p.find(what) != std::string::npos) return true;
  }
  return false;
}

TEST(AnthropicValidator, AcceptsAWellFormedStream) {
  auto problems = validateStream(valid());
  EXPECT_TRUE(problems.empty()) << (problems.empty() ? "" : problems.front());
  // Padding spaces inside the JSON, as the API sends them, are fine.
  EXPECT_TRUE(validateStream(replaced(valid(), R"("index":1})", R"("index":1}      )")).empty());
}

TEST(AnthropicValidator, CatchesBrokenStreams) {
  struct Case {
    std::string name;
    std::string stream;
    std::string expect;
  };
  std::string v = valid();
  std::vector<Case> cases = {
      {"empty", "", "empty stream"},
      {"no event line", replaced(v, "event: ping\n", ""), "`event: ` line"},
      {"crlf framing", replaced(v, "\n\n", "\r\n\r\n"), "\\n line endings"},
      {"truncated last frame", v.substr(0, v.size() - 1), "complete frame"},
      {"two data lines",
       replaced(v, R"(data: {"type": "ping"})", "data: {\"type\":\ndata: \"ping\"}"),
       "exactly one data line"},
      {"bad json", replaced(v, R"({"type":"message_stop"})", R"({"type":"message_stop")"),
       "not valid JSON"},
      {"event name differs", replaced(v, "event: message_stop", "event: message_end"),
       "differs from the event name"},
      {"no message_start", kThinking + kTool + kDelta + kStop, "message_start must come first"},
      {"bad id", replaced(v, R"("id":"msg_1")", R"("id":"chatcmpl-1")"), "msg_"},
      {"missing input usage", replaced(v, R"("input_tokens":5,)", ""), "usage.input_tokens"},
      {"index gap",
       replaced(kStart + kThinking + kTool + kDelta + kStop, R"("index":1,"content_block")",
                R"("index":2,"content_block")"),
       "index must be 1"},
      {"block interleaving",
       kStart +
           replaced(kThinking,
                    frame("content_block_stop", R"({"type":"content_block_stop","index":0})"), "") +
           kTool + kDelta + kStop,
       "while block 0 is open"},
      {"delta of the wrong kind",
       replaced(v, R"({"type":"thinking_delta","thinking":"hmm"})",
                R"({"type":"text_delta","text":"hmm"})"),
       "does not belong to a thinking block"},
      {"delta for another block",
       replaced(v, R"("index":1,"delta":{"type":"input_json_delta","partial_json":"1}"})",
                R"("index":0,"delta":{"type":"input_json_delta","partial_json":"1}"})"),
       "must name the open block"},
      {"thinking after signature",
       kStart +
           replaced(
               kThinking, frame("content_block_stop", R"({"type":"content_block_stop","index":0})"),
               frame(
                   "content_block_delta",
                   R"({"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"more"}})") +
                   frame("content_block_stop", R"({"type":"content_block_stop","index":0})")) +
           kTool + kDelta + kStop,
       "after the signature_delta"},
      // Anthropic's SDKs and Claude Code need every thinking block signed.
      {"thinking without a signature",
       replaced(v,
                frame(
                    "content_block_delta",
                    R"({"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sig"}})"),
                ""),
       "ends without a signature"},
      {"empty signature_delta",
       replaced(v, R"("signature":"sig")", R"("signature":"")"), "signature_delta needs"},
      {"tool arguments not an object",
       replaced(v, R"("partial_json":"1}")", R"("partial_json":"1")"),
       "do not join into a JSON object"},
      {"tool id", replaced(v, R"("id":"toolu_1")", R"("id":"functions.get:0")"), "tool_use id"},
      {"tool_use stop without a tool", kStart + kThinking + kDelta + kStop, "without any tool_use"},
      {"stop reason", replaced(v, R"("stop_reason":"tool_use")", R"("stop_reason":"tool_calls")"),
       "stop_reason must be"},
      {"message_delta without output_tokens",
       replaced(v, R"("usage":{"output_tokens":9})", R"("usage":{})"), "usage.output_tokens"},
      {"no message_stop", kStart + kThinking + kTool + kDelta, "ends without message_stop"},
      {"event after stop", v + frame("ping", R"({"type":"ping"})"), "may follow message_stop"},
      {"message_delta with an open block",
       kStart +
           replaced(kThinking,
                    frame("content_block_stop", R"({"type":"content_block_stop","index":0})"), "") +
           kDelta + kStop,
       "block still open"},
      {"unknown event",
       replaced(v, "event: ping\ndata: {\"type\": \"ping\"}",
                "event: hello\ndata: {\"type\":\"hello\"}"),
       "unknown event type"},
      {"started tool with input",
       replaced(v, R"("name":"get","input":{})", R"("name":"get","input":{"a":1})"),
       "starts with input {}"},
  };
  for (auto const& c : cases) {
    auto problems = validateStream(c.stream);
    EXPECT_TRUE(mentions(problems, c.expect))
        << c.name << ": got " << problems.size() << " problems"
        << (problems.empty() ? "" : ", first: " + problems.front());
  }
}

TEST(AnthropicValidator, AnErrorEventEndsAStream) {
  std::string error = frame(
      "error", R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})");
  EXPECT_TRUE(validateStream(kStart + error).empty());
  EXPECT_TRUE(validateStream(error).empty());
  EXPECT_TRUE(
      mentions(validateStream(kStart + frame("error", R"({"type":"error"})")), "error.type"));
  EXPECT_TRUE(mentions(validateStream(kStart + error + kStop), "may follow"));
}

TEST(AnthropicValidator, ChecksWholeMessages) {
  std::string ok = R"({"id":"msg_1","type":"message","role":"assistant","model":"m","content":[
    {"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"x"},
    {"type":"tool_use","id":"toolu_1","name":"f","input":{}}],
    "stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":2}})";
  EXPECT_TRUE(validateResponse(ok).empty());
  struct Case {
    std::string from, to, expect;
  };
  std::vector<Case> cases = {
      {R"("type":"message")", R"("type":"msg")", "type must be"},
      {R"("id":"msg_1")", R"("id":"resp_1")", "id must start"},
      {R"("role":"assistant")", R"("role":"user")", "role"},
      {R"("stop_reason":"tool_use")", R"("stop_reason":null)", "stop_reason"},
      {R"("stop_reason":"tool_use")", R"("stop_reason":"stop_sequence")", "needs the matched"},
      {R"("input":{})", R"("input":"{}")", "input must be an object"},
      {R"("signature":"s")", R"("sig":"s")", "signature"},
      {R"("signature":"s")", R"("signature":"")", "non-empty signature"},
      {R"("output_tokens":2)", R"("output_tokens":-2)", "usage.output_tokens"},
      {R"({"type":"text","text":"x"})", R"({"type":"image","text":"x"})", "unknown content block"},
      {R"("stop_reason":"tool_use")", R"("stop_reason":"tool_use","x":1,"y":[)", "not valid JSON"},
  };
  for (auto const& c : cases) {
    auto problems = validateResponse(replaced(ok, c.from, c.to));
    EXPECT_TRUE(mentions(problems, c.expect))
        << c.to << ": " << (problems.empty() ? "valid" : problems.front());
  }
  std::string no_tool = replaced(ok, R"(,
    {"type":"tool_use","id":"toolu_1","name":"f","input":{}})",
                                 "");
  EXPECT_TRUE(mentions(validateResponse(no_tool), "without any tool_use"));
}

}  // namespace
}  // namespace llmux::translate::validators::anthropic
