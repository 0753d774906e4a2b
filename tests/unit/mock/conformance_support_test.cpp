// The comparison helpers must catch what they claim to catch, or the conformance tests prove
// nothing.
#include "conformance_support.h"

#include <gtest/gtest.h>

namespace llmux::mock::testing {
namespace {

TEST(ShapeDiff, ReportsMissingExtraAndRetypedKeys) {
  auto recorded = parseJson(R"({"a":1,"b":{"c":"x","d":null},"e":[{"f":true}]})");
  EXPECT_TRUE(
      shapeDiff(parseJson(R"({"a":7,"b":{"c":"y","d":null},"e":[{"f":false}]})"), recorded, {})
          .empty());
  auto diffs = shapeDiff(parseJson(R"({"a":"1","b":{"c":"x","z":1},"e":[{"f":1}]})"), recorded, {});
  EXPECT_EQ(join(diffs),
            "a: mock string, recorded number | b.d: missing in mock | b.z: not in recording | "
            "e[].f: mock number, recorded bool");
}

TEST(ShapeDiff, ToleranceSilencesOnlyTheNamedPaths) {
  auto recorded = parseJson(R"({"a":null,"b":1,"t":{"x":1}})");
  auto mock = parseJson(R"({"a":"s","t":{"y":2}})");
  EXPECT_EQ(shapeDiff(mock, recorded, {}).size(), 4u);  // a, b, t.x, t.y
  EXPECT_TRUE(
      shapeDiff(mock, recorded, {.optional = {"b"}, .any_type = {"a"}, .opaque = {"t"}}).empty());
}

TEST(ShapeDiff, MatchesTypedArrayElementsByType) {
  auto recorded = parseJson(
      R"({"content":[{"type":"text","text":"a"},{"type":"tool_use","id":"x","input":{}}]})");
  EXPECT_TRUE(
      shapeDiff(
          parseJson(
              R"({"content":[{"type":"tool_use","id":"y","input":{}},{"type":"text","text":"b"}]})"),
          recorded, {})
          .empty());
  auto diffs = shapeDiff(
      parseJson(R"({"content":[{"type":"thinking","thinking":""},{"type":"text","text":"b"}]})"),
      recorded, {});
  EXPECT_EQ(join(diffs),
            "content[]: element of type 'thinking' not in recording | "
            "content[]: recorded element of type 'tool_use' missing in mock");
  EXPECT_EQ(join(shapeDiff(parseJson(R"({"content":[{"type":"tool_use","id":1,"input":{}}]})"),
                           recorded, {.optional = {"content[]=text"}})),
            "content[]=tool_use.id: mock number, recorded string");
}

TEST(Framing, DistinguishesSeparatorsEventLinesAndDone) {
  Framing chat = framingOf("data: {}\n\ndata: [DONE]\n\n");
  EXPECT_EQ(chat.separator, "\\n\\n");
  EXPECT_TRUE(chat.done_sentinel);
  EXPECT_EQ(chat.field_layouts, (std::set<std::string>{"data"}));
  Framing named = framingOf("event: a\ndata: {}\n\n");
  EXPECT_EQ(named.field_layouts, (std::set<std::string>{"event,data"}));
  EXPECT_FALSE(named.done_sentinel);
  EXPECT_EQ(framingOf("data: {}\r\n\r\ndata: {}\r\n\r\n").separator, "\\r\\n\\r\\n");
  EXPECT_NE(framingOf("data: {}\r\n\r\n"), framingOf("data: {}\n\n"));
}

TEST(KindSequence, CollapsesRepeatsPerProtocol) {
  auto events = parseSse(
      "event: content_block_delta\ndata: "
      "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\"}}\n\n"
      "event: content_block_delta\ndata: "
      "{\"type\":\"content_block_delta\",\"delta\":{\"type\":\"text_delta\"}}\n\n"
      "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n");
  EXPECT_EQ(join(kindSequence(Protocol::Anthropic, events)),
            "content_block_delta:text_delta | message_stop");
  auto chunks = parseSse(
      "data: "
      "{\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}]}"
      "\n\n"
      "data: "
      "{\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\"}]},\"finish_reason\":"
      "null}]}\n\n"
      "data: {\"choices\":[],\"usage\":{}}\n\ndata: [DONE]\n\n");
  EXPECT_EQ(join(kindSequence(Protocol::OpenAiChat, chunks)),
            "role | tool_call.start | usage | [DONE]");
}

}  // namespace
}  // namespace llmux::mock::testing
