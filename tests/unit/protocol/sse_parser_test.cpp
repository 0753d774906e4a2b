#include "protocol/sse_parser.h"

#include <gtest/gtest.h>

namespace llmux::protocol {
namespace {

std::vector<SseEvent> parseInPieces(std::string_view bytes, std::size_t piece) {
  SseParser parser;
  std::vector<SseEvent> events;
  for (std::size_t i = 0; i < bytes.size(); i += piece) parser.feed(bytes.substr(i, piece), events);
  parser.finish(events);
  return events;
}

TEST(SseParser, SplitsOnAnyLineEndingWhateverThePieceSize) {
  std::string_view lf = "event: a\ndata: {\"x\":1}\n\ndata: [DONE]\n\n";
  std::string_view crlf = "data: {\"x\":1}\r\n\r\ndata: two\r\n\r\n";
  std::string_view cr = "data: one\r\rdata: two\r\r";
  for (std::size_t piece : {1u, 2u, 3u, 7u, 1000u}) {
    auto a = parseInPieces(lf, piece);
    ASSERT_EQ(a.size(), 2u) << piece;
    EXPECT_EQ(a[0].event, "a");
    EXPECT_EQ(a[0].data, "{\"x\":1}");
    EXPECT_EQ(a[1].event, "");
    EXPECT_EQ(a[1].data, "[DONE]");
    auto b = parseInPieces(crlf, piece);
    ASSERT_EQ(b.size(), 2u) << piece;
    EXPECT_EQ(b[1].data, "two");
    auto c = parseInPieces(cr, piece);
    ASSERT_EQ(c.size(), 2u) << piece;
    EXPECT_EQ(c[0].data, "one");
  }
}

TEST(SseParser, JoinsDataLinesAndSkipsComments) {
  auto events = parseInPieces(": keep-alive\n\ndata:a\ndata: b\nid: 7\n\n", 5);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "a\nb");
}

TEST(SseParser, KeepsTrailingSpacesInsideData) {
  // Anthropic pads some data lines with spaces after the JSON.
  auto events = parseInPieces("event: ping\ndata: {\"type\": \"ping\"}   \n\n", 4);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "{\"type\": \"ping\"}   ");
}

TEST(SseParser, FinishDispatchesAnUnterminatedEvent) {
  auto events = parseInPieces("data: last", 3);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0].data, "last");
}

}  // namespace
}  // namespace llmux::protocol
