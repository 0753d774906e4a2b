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

TEST(SseParser, MixedLineEndingsInOnePieceAndACrLfCutBetweenPieces) {
  // One piece with \n, \r\n and a lone \r, then an \r\n split across two pieces.
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed("data: a\n\ndata: b\r\n\r\ndata: c\r\rdata: d\r", events);
  parser.feed("\n\r\ndata: e\n\n", events);
  parser.finish(events);
  ASSERT_EQ(events.size(), 5u);
  EXPECT_EQ(events[2].data, "c");
  EXPECT_EQ(events[3].data, "d") << "the \\n after a piece's last \\r belongs to it";
  EXPECT_EQ(events[4].data, "e");
}

TEST(SseParser, AnEventPastTheLimitStopsTheParserInsteadOfGrowing) {
  SseParser parser;
  std::vector<SseEvent> events;
  parser.feed("data: small\n\n", events);
  std::string chunk(1u << 20, 'x');
  parser.feed("data: ", events);
  for (std::size_t total = 0; total <= SseParser::kMaxEventBytes; total += chunk.size()) {
    parser.feed(chunk, events);
  }
  EXPECT_TRUE(parser.overflowed());
  parser.feed("\n\ndata: after\n\n", events);
  parser.finish(events);
  ASSERT_EQ(events.size(), 1u) << "nothing after the overflow";
  EXPECT_EQ(events[0].data, "small");

  // Many data lines of one event count too.
  SseParser lines;
  std::string line = "data: " + std::string(1u << 16, 'y') + "\n";
  for (std::size_t total = 0; total <= SseParser::kMaxEventBytes; total += line.size()) {
    lines.feed(line, events);
  }
  EXPECT_TRUE(lines.overflowed());
}

}  // namespace
}  // namespace llmux::protocol
