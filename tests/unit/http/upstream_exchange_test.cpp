// One request/response on a real loopback connection: interim heads, a refused upgrade, the head
// deadline, and when a failed request may be sent again.
#include "http/upstream_exchange.h"

#include <thread>

#include "upstream_fixture.h"

namespace llmux::http::testing {
namespace {

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
constexpr std::string_view kEarlyHints =
    "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload; as=style\r\n\r\n";

class UpstreamExchangeTest : public UpstreamTest {
 protected:
  std::unique_ptr<UpstreamConnection> connect() {
    auto connection = run(io, pool.acquire(peer(), in(Millis(2'000))));
    EXPECT_TRUE(connection.ok()) << connection.error().message;
    return connection.ok() ? std::move(*connection) : nullptr;
  }

  void send(UniqueFd const& fd, std::string_view bytes) {
    ASSERT_TRUE(e2e::sendAll(fd.get(), bytes, in(Millis(2'000))).ok());
  }
};

TEST_F(UpstreamExchangeTest, InterimHeadsAreSkippedAndTheFinalAnswerPooled) {
  auto connection = connect();
  ASSERT_TRUE(connection);
  UniqueFd upstream = acceptPeer();
  // Each head in a segment of its own, ahead of the request: the reads see them one by one.
  send(upstream, kContinue);
  send(upstream, kEarlyHints);
  send(upstream, jsonAnswer(R"({"answer":1})"));

  UpstreamExchange exchange(pool, std::move(connection));
  auto started = run(io, exchange.start(request(), in(Millis(2'000))));
  ASSERT_TRUE(started.ok()) << started.error().message;
  EXPECT_EQ(exchange.status(), 200);
  EXPECT_FALSE(exchange.headers().has("Link"));
  EXPECT_EQ(readAll(exchange), R"({"answer":1})");
  exchange.finish();
  EXPECT_EQ(pool.idleCount(), 1u);

  // The next request on the pooled connection gets its own answer, nothing left over.
  auto reused = connect();
  ASSERT_TRUE(reused);
  EXPECT_TRUE(reused->reused);
  send(upstream, std::string(kContinue) + jsonAnswer(R"({"answer":2})"));
  UpstreamExchange second(pool, std::move(reused));
  auto again = run(io, second.start(request(), in(Millis(2'000))));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(second.status(), 200);
  EXPECT_EQ(readAll(second), R"({"answer":2})");

  std::string received;
  while (received.size() < 2 * (kRequestHead.size() + 2)) {
    auto n = e2e::receiveSome(upstream.get(), received, in(Millis(2'000)));
    ASSERT_TRUE(n.ok() && *n > 0);
  }
  EXPECT_EQ(received, std::string(kRequestHead) + "{}" + std::string(kRequestHead) + "{}");
}

TEST_F(UpstreamExchangeTest, SwitchingProtocolsFailsAndTheConnectionIsClosed) {
  auto connection = connect();
  ASSERT_TRUE(connection);
  UniqueFd upstream = acceptPeer();
  send(upstream, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                 "Connection: Upgrade\r\n\r\n");
  UpstreamExchange exchange(pool, std::move(connection));
  auto started = run(io, exchange.start(request(), in(Millis(2'000))));
  ASSERT_FALSE(started.ok());
  EXPECT_EQ(started.error().kind, ErrorKind::UpstreamProtocol);
  EXPECT_FALSE(exchange.staleConnection());
  exchange.finish();
  EXPECT_EQ(pool.idleCount(), 0u);
  // The upstream sees the connection closed.
  std::string rest;
  for (;;) {
    auto n = e2e::receiveSome(upstream.get(), rest, in(Millis(2'000)));
    if (!n.ok()) {
      EXPECT_EQ(n.error().kind, ErrorKind::Cancelled) << n.error().message;  // a reset
      break;
    }
    if (*n == 0) break;
  }
}

TEST_F(UpstreamExchangeTest, EndlessEarlyHintsEndAtTheHeadDeadline) {
  auto connection = connect();
  ASSERT_TRUE(connection);
  UniqueFd upstream = acceptPeer();
  UpstreamExchange exchange(pool, std::move(connection));
  std::optional<Result<void>> started;
  MonoTime start = MonoClock::now();
  spawnInto(io, exchange.start(request(), in(Millis(300))), started);
  // A hint every 50 ms, fewer than the cap by the deadline: only the deadline can end it.
  for (int i = 0; i < 40 && !started; ++i) {
    send(upstream, kEarlyHints);
    for (MonoTime next = in(Millis(50)); MonoClock::now() < next && !started;) {
      io.run_one_for(std::chrono::milliseconds(5));
    }
  }
  runUntil(io, [&] { return started.has_value(); });
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_FALSE(started->ok());
  EXPECT_EQ(started->error().kind, ErrorKind::Timeout) << started->error().message;
  EXPECT_LT(elapsed, 1'000) << "the interim heads extended the deadline";
}

TEST_F(UpstreamExchangeTest, AWrittenRequestIsNeverSentAgainOnAPooledConnection) {
  auto connection = connect();
  ASSERT_TRUE(connection);
  connection->reused = true;  // as if it had served a request before
  UniqueFd upstream = acceptPeer();
  UpstreamExchange exchange(pool, std::move(connection));
  std::optional<Result<void>> started;
  spawnInto(io, exchange.start(request(), in(Millis(2'000))), started);
  // The upstream reads the request, then closes without a word.
  std::string received;
  while (received.size() < kRequestHead.size() + 2) {
    io.poll();
    auto n = e2e::receiveSome(upstream.get(), received, in(Millis(50)));
    if (!n.ok() && n.error().kind == ErrorKind::Timeout) continue;
    ASSERT_TRUE(n.ok() && *n > 0);
  }
  e2e::closeSocket(upstream, e2e::CloseMode::Graceful);
  runUntil(io, [&] { return started.has_value(); });
  ASSERT_FALSE(started->ok());
  EXPECT_EQ(started->error().kind, ErrorKind::Connect) << started->error().message;
  EXPECT_FALSE(exchange.staleConnection()) << "a written request would be sent twice";
}

TEST_F(UpstreamExchangeTest, ARequestThatCouldNotBeWrittenOnAPooledConnectionIsStale) {
  for (bool reused : {true, false}) {
    auto connection = connect();
    ASSERT_TRUE(connection);
    connection->reused = reused;
    UniqueFd upstream = acceptPeer();
    e2e::closeSocket(upstream, e2e::CloseMode::Reset);
    // The reset reaches the connection before the request is written.
    for (MonoTime until = in(Millis(2'000)); connection->stillIdle() && MonoClock::now() < until;) {
      std::this_thread::yield();
    }
    ASSERT_FALSE(connection->stillIdle());
    UpstreamExchange exchange(pool, std::move(connection));
    auto started = run(io, exchange.start(request(), in(Millis(2'000))));
    ASSERT_FALSE(started.ok());
    EXPECT_EQ(started.error().kind, ErrorKind::Connect) << started.error().message;
    EXPECT_EQ(exchange.staleConnection(), reused)
        << "only a pooled connection's unwritten request is resent";
  }
}

}  // namespace
}  // namespace llmux::http::testing
