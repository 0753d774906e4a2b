#include "e2e/support/http_wire.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llmux::e2e {
namespace {

TEST(ParseResponseHead, ReadsStatusReasonAndFields) {
  auto head = parseResponseHead(
      "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nX-Multi: a\r\nx-multi: b\r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->version, "HTTP/1.1");
  EXPECT_EQ(head->status, 429);
  EXPECT_EQ(head->reason, "Too Many Requests");
  EXPECT_EQ(head->headers.get("retry-after"), "3");
  EXPECT_EQ(head->headers.get("X-MULTI"), "a");
  EXPECT_EQ(head->headers.size(), 3u);
  EXPECT_FALSE(head->isInterim());
}

TEST(ParseResponseHead, AcceptsAnEmptyReasonAndNoFields) {
  auto head = parseResponseHead("HTTP/1.1 100 \r\n\r\n");
  ASSERT_TRUE(head.ok()) << head.error().message;
  EXPECT_EQ(head->status, 100);
  EXPECT_EQ(head->reason, "");
  EXPECT_TRUE(head->isInterim());
  EXPECT_TRUE(parseResponseHead("HTTP/1.1 204\r\n\r\n").ok());
}

TEST(ParseResponseHead, RejectsMalformedHeads) {
  EXPECT_FALSE(parseResponseHead("HTTP/1.1 200 OK\n\r\n").ok());  // bare LF
  EXPECT_FALSE(parseResponseHead("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n").ok());
  EXPECT_FALSE(parseResponseHead("HTTP/1.1 2x0 OK\r\n\r\n").ok());
  EXPECT_FALSE(parseResponseHead("HTTP/1.1 200 OK\r\nA : b\r\n\r\n").ok());  // space before colon
  EXPECT_FALSE(parseResponseHead("HTTP/1.1 200 OK\r\nA: b\nC: d\r\n\r\n").ok());
  EXPECT_FALSE(parseResponseHead("ICY 200 OK\r\n\r\n").ok());
}

ResponseHead headWith(std::string raw) {
  auto head = parseResponseHead(raw);
  EXPECT_TRUE(head.ok()) << raw;
  return head.ok() ? *head : ResponseHead{};
}

TEST(FramingOf, FollowsRfc9112) {
  auto chunked = headWith("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\n\r\n");
  EXPECT_EQ(framingOf(chunked, false)->kind, BodyFraming::Chunked);
  EXPECT_EQ(framingOf(chunked, true)->kind, BodyFraming::None);

  auto sized = headWith("HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n");
  EXPECT_EQ(framingOf(sized, false)->kind, BodyFraming::ContentLength);
  EXPECT_EQ(framingOf(sized, false)->length, 12u);

  EXPECT_EQ(framingOf(headWith("HTTP/1.1 200 OK\r\n\r\n"), false)->kind, BodyFraming::UntilClose);
  EXPECT_EQ(framingOf(headWith("HTTP/1.1 204 No Content\r\n\r\n"), false)->kind, BodyFraming::None);
  EXPECT_EQ(
      framingOf(headWith("HTTP/1.1 304 Not Modified\r\nContent-Length: 9\r\n\r\n"), false)->kind,
      BodyFraming::None);
  EXPECT_FALSE(
      framingOf(headWith("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
                false)
          .ok());
  EXPECT_FALSE(framingOf(headWith("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), false).ok());
}

/// Decodes `wire` delivered as the given pieces; returns the chunks, "<end>" once the body ended.
std::vector<std::string> decodeInPieces(std::vector<std::string> const& pieces,
                                        std::string* rest = nullptr) {
  ChunkedDecoder decoder;
  std::vector<std::string> out;
  std::string buffer;
  for (auto const& piece : pieces) {
    buffer += piece;
    while (!decoder.done()) {
      auto step = decoder.next(buffer);
      EXPECT_TRUE(step.ok()) << step.error().message;
      if (!step.ok() || step->kind == ChunkStep::Kind::NeedMore) break;
      buffer.erase(0, step->consumed);
      out.push_back(step->kind == ChunkStep::Kind::Chunk ? step->data : "<end>");
    }
  }
  if (rest) *rest = buffer;
  return out;
}

TEST(ChunkedDecoder, YieldsChunksAsFramedWhateverTheSplitPoint) {
  std::string const wire =
      "5;ext=1\r\nhello\r\n1\r\n \r\nC\r\nworld!\r\n\r\nxy\r\n0\r\nX-Tail: t\r\n\r\nNEXT";
  std::vector<std::string> const expected = {"hello", " ", "world!\r\n\r\nxy", "<end>"};
  for (std::size_t split = 0; split <= wire.size(); ++split) {
    for (std::size_t second = split; second <= wire.size(); second += 7) {
      std::string rest;
      auto chunks = decodeInPieces(
          {wire.substr(0, split), wire.substr(split, second - split), wire.substr(second)}, &rest);
      EXPECT_EQ(chunks, expected) << "split at " << split << " and " << second;
      EXPECT_EQ(rest, "NEXT") << "bytes after the body must stay for the next response";
    }
  }
}

TEST(ChunkedDecoder, ReadsTrailers) {
  ChunkedDecoder decoder;
  std::string wire = "0\r\nX-Usage: 12\r\nX-Other: a\r\n\r\n";
  auto step = decoder.next(wire);
  ASSERT_TRUE(step.ok()) << step.error().message;
  EXPECT_EQ(step->kind, ChunkStep::Kind::End);
  EXPECT_EQ(step->consumed, wire.size());
  EXPECT_TRUE(decoder.done());
  EXPECT_EQ(decoder.trailers().get("x-usage"), "12");
  EXPECT_EQ(decoder.trailers().size(), 2u);
}

TEST(ChunkedDecoder, RejectsBrokenFraming) {
  EXPECT_FALSE(ChunkedDecoder().next("zz\r\nhello\r\n").ok());
  EXPECT_FALSE(ChunkedDecoder().next("3\r\nhello\r\n").ok());  // data longer than announced
  EXPECT_FALSE(ChunkedDecoder().next("\r\n").ok());
  EXPECT_FALSE(ChunkedDecoder().next("fffffffffffffffffff\r\n").ok());
  EXPECT_FALSE(ChunkedDecoder().next(std::string(5000, '1')).ok());  // no end of size line
}

}  // namespace
}  // namespace llmux::e2e
