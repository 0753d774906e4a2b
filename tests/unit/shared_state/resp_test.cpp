#include "shared_state/resp.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llmux::shared_state {
namespace {

using Kind = RedisReply::Kind;

/// Feeds `bytes` at once and returns the one reply they hold.
RedisReply parseOne(std::string_view bytes) {
  RespParser parser;
  parser.feed(bytes);
  auto reply = parser.next();
  EXPECT_TRUE(reply.ok()) << (reply.ok() ? "" : reply.error().message);
  if (!reply.ok() || !*reply) {
    ADD_FAILURE() << "no complete reply in " << bytes;
    return RedisReply::error("none");
  }
  EXPECT_EQ(parser.buffered(), 0u);
  return **reply;
}

Error parseError(std::string_view bytes) {
  RespParser parser;
  parser.feed(bytes);
  auto reply = parser.next();
  EXPECT_FALSE(reply.ok()) << "parsed " << bytes;
  return reply.ok() ? Error{} : reply.error();
}

TEST(RespParser, EveryReplyType) {
  EXPECT_EQ(parseOne("+OK\r\n"), RedisReply::simple("OK"));
  EXPECT_EQ(parseOne("-ERR unknown command 'FOO'\r\n"),
            RedisReply::error("ERR unknown command 'FOO'"));
  EXPECT_EQ(parseOne(":42\r\n"), RedisReply::number(42));
  EXPECT_EQ(parseOne(":-7\r\n"), RedisReply::number(-7));
  EXPECT_EQ(parseOne(":9223372036854775807\r\n"), RedisReply::number(9223372036854775807));
  EXPECT_EQ(parseOne("$5\r\nhello\r\n"), RedisReply::bulk("hello"));
  EXPECT_EQ(parseOne("$0\r\n\r\n"), RedisReply::bulk(""));
  EXPECT_EQ(parseOne("$-1\r\n"), RedisReply::nil());
  EXPECT_EQ(parseOne("*-1\r\n"), RedisReply::nil());
  EXPECT_EQ(parseOne("*0\r\n"), RedisReply::array({}));
  EXPECT_EQ(parseOne("*3\r\n:1\r\n$1\r\na\r\n$-1\r\n"),
            RedisReply::array({RedisReply::number(1), RedisReply::bulk("a"), RedisReply::nil()}));
}

TEST(RespParser, BulkStringsAreBinarySafe) {
  std::string payload("a\r\nb\0c", 6);
  RedisReply reply = parseOne("$6\r\n" + payload + "\r\n");
  EXPECT_EQ(reply.kind, Kind::Bulk);
  EXPECT_EQ(reply.text, payload);
}

TEST(RespParser, NestedArrays) {
  RedisReply reply = parseOne("*2\r\n*2\r\n:1\r\n*1\r\n+deep\r\n-ERR inner\r\n");
  EXPECT_EQ(reply, RedisReply::array({RedisReply::array({RedisReply::number(1),
                                                         RedisReply::array({RedisReply::simple("deep")})}),
                                      RedisReply::error("ERR inner")}));
  EXPECT_EQ(describe(reply), "[[:1, [+deep]], -ERR inner]");
}

TEST(RespParser, ErrorCodes) {
  RedisReply noscript = parseOne("-NOSCRIPT No matching script. Please use EVAL.\r\n");
  EXPECT_TRUE(noscript.isError());
  EXPECT_TRUE(noscript.isErrorCode("NOSCRIPT"));
  EXPECT_FALSE(noscript.isErrorCode("ERR"));
  EXPECT_FALSE(RedisReply::simple("NOSCRIPT").isErrorCode("NOSCRIPT"));
}

TEST(RespParser, RepliesSplitAcrossReadsAtEveryByte) {
  std::string const wire = "*3\r\n$5\r\nhello\r\n*2\r\n:10\r\n$-1\r\n+OK\r\n:5\r\n";
  RedisReply const first = RedisReply::array(
      {RedisReply::bulk("hello"), RedisReply::array({RedisReply::number(10), RedisReply::nil()}),
       RedisReply::simple("OK")});
  for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
    RespParser parser;
    std::vector<RedisReply> replies;
    auto drain = [&] {
      for (;;) {
        auto reply = parser.next();
        ASSERT_TRUE(reply.ok());
        if (!*reply) break;
        replies.push_back(**reply);
      }
    };
    parser.feed(std::string_view(wire).substr(0, cut));
    drain();
    parser.feed(std::string_view(wire).substr(cut));
    drain();
    ASSERT_EQ(replies.size(), 2u) << "cut at " << cut;
    EXPECT_EQ(replies[0], first) << "cut at " << cut;
    EXPECT_EQ(replies[1], RedisReply::number(5)) << "cut at " << cut;
    EXPECT_EQ(parser.buffered(), 0u);
  }
}

TEST(RespParser, ByteByByte) {
  std::string const wire = "$11\r\nhello world\r\n:1\r\n";
  RespParser parser;
  std::vector<RedisReply> replies;
  for (char c : wire) {
    parser.feed(std::string_view(&c, 1));
    for (;;) {
      auto reply = parser.next();
      ASSERT_TRUE(reply.ok());
      if (!*reply) break;
      replies.push_back(**reply);
    }
  }
  ASSERT_EQ(replies.size(), 2u);
  EXPECT_EQ(replies[0], RedisReply::bulk("hello world"));
  EXPECT_EQ(replies[1], RedisReply::number(1));
}

TEST(RespParser, IncompleteInputWaits) {
  RespParser parser;
  parser.feed("$5\r\nhel");
  auto reply = parser.next();
  ASSERT_TRUE(reply.ok());
  EXPECT_FALSE(reply->has_value());
  EXPECT_EQ(parser.buffered(), 7u);
  parser.feed("lo\r\n");
  reply = parser.next();
  ASSERT_TRUE(reply.ok());
  ASSERT_TRUE(reply->has_value());
  EXPECT_EQ(**reply, RedisReply::bulk("hello"));
}

TEST(RespParser, MalformedInputIsAnError) {
  EXPECT_NE(parseError("?what\r\n").message.find("unknown reply type"), std::string::npos);
  EXPECT_NE(parseError(":12x\r\n").message.find("bad integer"), std::string::npos);
  EXPECT_NE(parseError(":\r\n").message.find("bad integer"), std::string::npos);
  EXPECT_NE(parseError("$-2\r\n").message.find("bad bulk length"), std::string::npos);
  EXPECT_NE(parseError("$3\r\nabcd\r\n").message.find("without CRLF"), std::string::npos);
  EXPECT_NE(parseError("*-5\r\n").message.find("bad array length"), std::string::npos);
  EXPECT_NE(parseError("$99999999999\r\n").message.find("too long"), std::string::npos);
  std::string deep;
  for (int i = 0; i <= kMaxReplyDepth + 1; ++i) deep += "*1\r\n";
  deep += ":1\r\n";
  EXPECT_NE(parseError(deep).message.find("nested too deep"), std::string::npos);
  // An error inside an array is found even when the array is not complete yet.
  EXPECT_NE(parseError("*3\r\n:1\r\n:z\r\n").message.find("bad integer"), std::string::npos);
}

TEST(RespEncode, CommandsAreArraysOfBulkStrings) {
  std::vector<std::string> args = {"SET", "k", ""};
  EXPECT_EQ(encodeCommand(args), "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n");
  std::vector<std::string> binary = {"ECHO", std::string("a\r\n\0", 4)};
  EXPECT_EQ(encodeCommand(binary), std::string("*2\r\n$4\r\nECHO\r\n$4\r\na\r\n\0\r\n", 24));
  EXPECT_EQ(encodeCommand({}), "*0\r\n");
}

}  // namespace
}  // namespace llmux::shared_state
