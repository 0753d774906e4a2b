#include "shared_state/redis_client.h"

#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <optional>

#include "redis_fixture.h"

namespace llmux::shared_state::testing {
namespace {

using Kind = RedisReply::Kind;
using Args = std::vector<std::string>;

class RedisClientTest : public RedisTest {
 protected:
  Result<RedisReply> call(RedisClient& client, Args args) {
    return run(io, client.call(std::move(args)));
  }
};

TEST_F(RedisClientTest, CommandsAndReplies) {
  RedisClient client(io, connectOptions());
  auto pong = call(client, {"PING"});
  ASSERT_TRUE(pong.ok()) << pong.error().message;
  EXPECT_EQ(*pong, RedisReply::simple("PONG"));

  EXPECT_EQ(*call(client, {"SET", "greeting", std::string("hi\r\n\0there", 11)}), RedisReply::simple("OK"));
  EXPECT_EQ(*call(client, {"GET", "greeting"}), RedisReply::bulk(std::string("hi\r\n\0there", 11)));
  EXPECT_EQ(*call(client, {"GET", "missing"}), RedisReply::nil());
  EXPECT_EQ(*call(client, {"INCRBY", "n", "41"}), RedisReply::number(41));
  EXPECT_EQ(*call(client, {"RPUSH", "list", "a", "b"}), RedisReply::number(2));
  EXPECT_EQ(*call(client, {"LRANGE", "list", "0", "-1"}),
            RedisReply::array({RedisReply::bulk("a"), RedisReply::bulk("b")}));
  // An error reply is an answer: the connection stays.
  auto wrong = call(client, {"INCR", "greeting"});
  ASSERT_TRUE(wrong.ok());
  EXPECT_TRUE(wrong->isErrorCode("ERR")) << describe(*wrong);
  EXPECT_EQ(*call(client, {"INCRBY", "n", "1"}), RedisReply::number(42));
  EXPECT_EQ(client.connectionsOpened(), 1u);
}

TEST_F(RedisClientTest, ConcurrentCallsArePipelinedOnOneConnection) {
  RedisClient client(io, connectOptions());
  constexpr int kCalls = 200;
  std::vector<std::optional<Result<RedisReply>>> replies(kCalls);
  for (int i = 0; i < kCalls; ++i) {
    spawnInto(io, client.call({"INCR", "counter"}), replies[i]);
  }
  runUntil(io, [&] {
    for (auto const& r : replies) {
      if (!r) return false;
    }
    return true;
  });
  // Redis answers in order: the i-th call sees the i-th increment.
  for (int i = 0; i < kCalls; ++i) {
    ASSERT_TRUE(replies[i]->ok());
    EXPECT_EQ(**replies[i], RedisReply::number(i + 1));
  }
  EXPECT_EQ(client.connectionsOpened(), 1u);
}

TEST_F(RedisClientTest, RefusedConnectionIsAConnectError) {
  auto options = connectOptions();
  options.port = freeLoopbackPort();
  RedisClient client(io, options);
  auto reply = call(client, {"PING"});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error().kind, ErrorKind::Connect);
  EXPECT_NE(reply.error().message.find("cannot connect"), std::string::npos) << reply.error().message;
}

TEST_F(RedisClientTest, SelectsTheConfiguredDatabase) {
  auto options = connectOptions();
  options.db = 3;
  RedisClient in_three(io, options);
  RedisClient in_zero(io, connectOptions());
  ASSERT_TRUE(call(in_three, {"SET", "where", "three"}).ok());
  EXPECT_EQ(*call(in_zero, {"GET", "where"}), RedisReply::nil());
  EXPECT_EQ(*call(in_zero, {"SELECT", "3"}), RedisReply::simple("OK"));
  EXPECT_EQ(*call(in_zero, {"GET", "where"}), RedisReply::bulk("three"));
}

TEST_F(RedisClientTest, SilentServerTimesOutAndTheConnectionIsDropped) {
  RedisClient client(io, connectOptions(Millis(50)));
  ASSERT_TRUE(call(client, {"PING"}).ok());
  server->pause();
  auto started = std::chrono::steady_clock::now();
  auto reply = call(client, {"PING"});
  auto elapsed = std::chrono::duration_cast<Millis>(std::chrono::steady_clock::now() - started);
  server->resume();
  std::cout << "[ measured ] a call to a stopped redis-server failed after " << elapsed.count()
            << " ms (timeout 50 ms)\n";
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error().kind, ErrorKind::Timeout);
  EXPECT_GE(elapsed, Millis(45));
  EXPECT_LT(elapsed, Millis(150));
  // The next call opens a new connection; the server answers again.
  auto again = call(client, {"PING"});
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(*again, RedisReply::simple("PONG"));
  EXPECT_EQ(client.connectionsOpened(), 2u);
}

TEST_F(RedisClientTest, ClosedClientRefusesCalls) {
  RedisClient client(io, connectOptions());
  ASSERT_TRUE(call(client, {"PING"}).ok());
  client.close();
  auto reply = call(client, {"PING"});
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error().kind, ErrorKind::Cancelled);
  // Nothing of the connection is left to keep the context busy.
  io.restart();
  io.run();
  SUCCEED();
}

class RedisAuthTest : public RedisTest {
 protected:
  std::vector<std::string> serverArgs() const override { return {"--requirepass", "s3cret"}; }
};

TEST_F(RedisAuthTest, AuthenticatesOnConnect) {
  auto options = connectOptions();
  options.password = "s3cret";
  RedisClient client(io, options);
  auto reply = run(io, client.call({"SET", "k", "v"}));
  ASSERT_TRUE(reply.ok()) << reply.error().message;
  EXPECT_EQ(*reply, RedisReply::simple("OK"));
}

TEST_F(RedisAuthTest, WrongPasswordIsAConnectError) {
  auto options = connectOptions();
  options.password = "wrong";
  RedisClient client(io, options);
  auto reply = run(io, client.call({"PING"}));
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(reply.error().kind, ErrorKind::Connect);
  EXPECT_NE(reply.error().message.find("refused the connection setup"), std::string::npos)
      << reply.error().message;
  // Without a password the server refuses the command itself (an answer, not a failure).
  RedisClient anonymous(io, connectOptions());
  auto refused = run(io, anonymous.call({"PING"}));
  ASSERT_TRUE(refused.ok());
  EXPECT_TRUE(refused->isErrorCode("NOAUTH")) << describe(*refused);
}

}  // namespace
}  // namespace llmux::shared_state::testing
