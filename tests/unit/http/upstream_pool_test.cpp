// Taking connections: which pooled ones are reused, and how a new connect (DNS, TCP) ends at its
// deadline or when its request is cancelled.
#include <sys/socket.h>

#include <thread>

#include "http/cancellation.h"
#include "upstream_fixture.h"

namespace llmux::http::testing {
namespace {

class UpstreamPoolTest : public UpstreamTest {
 protected:
  Connection acquire(Millis timeout = Millis(2'000)) {
    return run(io, pool.acquire(peer(), in(timeout)));
  }

  /// One complete exchange on `connection`, answered by `upstream`; the connection is pooled.
  void serveOne(std::unique_ptr<UpstreamConnection> connection, UniqueFd const& upstream) {
    ASSERT_TRUE(e2e::sendAll(upstream.get(), jsonAnswer("{}"), in(Millis(2'000))).ok());
    UpstreamExchange exchange(pool, std::move(connection));
    auto started = run(io, exchange.start(request(), in(Millis(2'000))));
    ASSERT_TRUE(started.ok()) << started.error().message;
    EXPECT_EQ(readAll(exchange), "{}");
    exchange.finish();
    ASSERT_EQ(pool.idleCount(), 1u);
  }

  /// Connections reused sooner than this are not probed (UpstreamPool::kProbeAfterIdle).
  static void waitPastProbeThreshold() { std::this_thread::sleep_for(std::chrono::milliseconds(150)); }

  /// Whether the pool connected again (a connection waits on the listener).
  bool connectedAgain() {
    return e2e::acceptOne(listener.get(), in(Millis(200))).ok();
  }

  /// Fills the listener's accept queue: new connects then hang, their SYNs dropped.
  void fillBacklog(std::vector<UniqueFd>& fillers) {
    ASSERT_EQ(::listen(listener.get(), 0), 0);
    for (int i = 0; i < 3; ++i) {
      auto fd = e2e::connectLoopback(e2e::localPort(listener.get()), Millis(100));
      if (fd.ok()) fillers.push_back(std::move(*fd));
    }
  }
};

TEST_F(UpstreamPoolTest, AStillIdleConnectionIsReused) {
  auto first = acquire();
  ASSERT_TRUE(first.ok()) << first.error().message;
  UniqueFd upstream = acceptPeer();
  serveOne(std::move(*first), upstream);

  auto second = acquire();
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_TRUE((*second)->reused);
  EXPECT_FALSE(connectedAgain());
}

TEST_F(UpstreamPoolTest, AnIdleConnectionThePeerClosedIsNotReused) {
  auto first = acquire();
  ASSERT_TRUE(first.ok()) << first.error().message;
  UniqueFd upstream = acceptPeer();
  serveOne(std::move(*first), upstream);
  e2e::closeSocket(upstream, e2e::CloseMode::Graceful);
  waitPastProbeThreshold();

  auto second = acquire();
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE((*second)->reused) << "a request would go to a connection the peer closed";
  EXPECT_TRUE(connectedAgain());
  EXPECT_EQ(pool.idleCount(), 0u);
}

TEST_F(UpstreamPoolTest, AnIdleConnectionThatReceivedUnaskedBytesIsNotReused) {
  auto first = acquire();
  ASSERT_TRUE(first.ok()) << first.error().message;
  UniqueFd upstream = acceptPeer();
  serveOne(std::move(*first), upstream);
  ASSERT_TRUE(e2e::sendAll(upstream.get(), jsonAnswer("{\"stray\":1}"), in(Millis(2'000))).ok());
  waitPastProbeThreshold();

  auto second = acquire();
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_FALSE((*second)->reused) << "the stray answer would be taken for the next request's";
  EXPECT_TRUE(connectedAgain());
}

TEST_F(UpstreamPoolTest, AConnectThatHangsEndsAtTheConnectDeadline) {
  std::vector<UniqueFd> fillers;
  fillBacklog(fillers);
  MonoTime start = MonoClock::now();
  auto connection = acquire(Millis(300));
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.error().kind, ErrorKind::Timeout);
  EXPECT_NE(connection.error().message.find("connect to 127.0.0.1:"), std::string::npos)
      << connection.error().message;
  EXPECT_GE(elapsed, 290);
  EXPECT_LT(elapsed, 900);
}

TEST_F(UpstreamPoolTest, TheConnectDeadlineCoversTheDnsLookup) {
  PeerAddress slow{false, "upstream.example", 443, ""};
  MonoTime start = MonoClock::now();
  auto connection = run(io, pool.connectNew(slow, in(Millis(200))));
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.error().kind, ErrorKind::Timeout);
  EXPECT_NE(connection.error().message.find("DNS lookup of upstream.example"), std::string::npos)
      << connection.error().message;
  EXPECT_LT(elapsed, 900) << "the connect waited for the resolver";
  EXPECT_EQ(lookup.calls(), 1);
}

TEST_F(UpstreamPoolTest, ACancelledRequestStopsWaitingForTheDnsLookup) {
  PeerAddress slow{false, "upstream.example", 443, ""};
  Cancellation cancellation;
  std::optional<Connection> connection;
  spawnInto(io, pool.connectNew(slow, MonoTime::max(), &cancellation), connection);
  io.poll();
  ASSERT_TRUE(lookup.waitForCalls(1));
  EXPECT_FALSE(connection.has_value());
  cancellation.cancel(CancelReason::ClientGone);
  runUntil(io, [&] { return connection.has_value(); });
  ASSERT_FALSE(connection->ok());
  EXPECT_EQ(connection->error().kind, ErrorKind::Cancelled) << connection->error().message;
}

TEST_F(UpstreamPoolTest, ACancelledRequestStopsAConnectInProgress) {
  std::vector<UniqueFd> fillers;
  fillBacklog(fillers);
  Cancellation cancellation;
  std::optional<Connection> connection;
  PeerAddress const target = peer();  // outlives the spawned connect, which refers to it
  spawnInto(io, pool.connectNew(target, MonoTime::max(), &cancellation), connection);
  io.poll();
  EXPECT_FALSE(connection.has_value());
  cancellation.cancel(CancelReason::ClientGone);
  runUntil(io, [&] { return connection.has_value(); });
  ASSERT_FALSE(connection->ok());
  EXPECT_EQ(connection->error().kind, ErrorKind::Cancelled) << connection->error().message;

  Cancellation already;
  already.cancel(CancelReason::Shutdown);
  auto refused = run(io, pool.connectNew(peer(), MonoTime::max(), &already));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::Cancelled);
}

TEST_F(UpstreamPoolTest, AConnectRacingItsDeadlineEndsOpenOrTimedOut) {
  // Deadlines around the time a loopback connect takes, so the watchdog fires before, during or
  // after the connect: whatever the interleaving, an open connection or a timeout, never a socket
  // the watchdog closed. (On one epoll loop a connect that completed is resumed before a timer
  // from the same poll, so this checks the rule over many runs rather than forcing the race.)
  int connected = 0, timed_out = 0;
  for (int i = 0; i < 200; ++i) {
    MonoTime deadline = MonoClock::now() + std::chrono::microseconds(i * 2);
    auto connection = run(io, pool.connectNew(peer(), deadline));
    if (connection.ok()) {
      ++connected;
      EXPECT_TRUE((*connection)->isOpen()) << "a closed socket came back at " << i * 2 << " us";
    } else {
      ++timed_out;
      EXPECT_EQ(connection.error().kind, ErrorKind::Timeout) << connection.error().message;
    }
    while (e2e::acceptOne(listener.get(), MonoClock::now()).ok()) {
    }
  }
  EXPECT_EQ(connected + timed_out, 200);
}

}  // namespace
}  // namespace llmux::http::testing
