#include "net/resolver.h"

#include <gtest/gtest.h>

#include <optional>
#include <stop_token>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address.hpp>

#include "support/blocking_lookup.h"
#include "support/run_task.h"

namespace llmux::net {
namespace {

using test_support::BlockingLookup;
using test_support::run;
using test_support::runUntil;
using test_support::spawnInto;
using Endpoints = std::vector<tcp::endpoint>;
using Answer = Result<Endpoints>;

Endpoints someAddress() {
  return {tcp::endpoint(asio::ip::make_address("192.0.2.7"), 443)};
}

MonoTime in(Millis delay) { return MonoClock::now() + delay; }

class ResolverTest : public ::testing::Test {
 protected:
  // Declared first so it is destroyed last: the frames of the waits die before it.
  asio::io_context io;
  BlockingLookup lookup;
  CachingResolver resolver{lookup.function()};
};

TEST_F(ResolverTest, IpLiteralsAreAnsweredWithoutALookup) {
  auto v4 = run(io, resolver.resolve("127.0.0.1", 8080));
  ASSERT_TRUE(v4.ok()) << v4.error().message;
  ASSERT_EQ(v4->size(), 1u);
  EXPECT_EQ(v4->front(), tcp::endpoint(asio::ip::make_address("127.0.0.1"), 8080));
  auto v6 = run(io, resolver.resolve("::1", 443));
  ASSERT_TRUE(v6.ok()) << v6.error().message;
  EXPECT_TRUE(v6->front().address().is_v6());
  EXPECT_EQ(lookup.calls(), 0);
}

TEST_F(ResolverTest, AWaiterGivesUpAtItsDeadlineNamingTheDnsLookup) {
  MonoTime start = MonoClock::now();
  auto answer = run(io, resolver.resolve("slow.example", 443, in(Millis(150))));
  double elapsed = millisBetween(start, MonoClock::now());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().kind, ErrorKind::Timeout);
  EXPECT_NE(answer.error().message.find("DNS lookup of slow.example"), std::string::npos)
      << answer.error().message;
  EXPECT_GE(elapsed, 140);
  EXPECT_LT(elapsed, 1'500) << "the waiter waited for the lookup";
  EXPECT_EQ(lookup.calls(), 1);
}

TEST_F(ResolverTest, ConcurrentWaitersOnTwoLoopsShareOneLookup) {
  asio::io_context other;
  std::optional<Answer> first, second, third;
  spawnInto(io, resolver.resolve("api.example", 443), first);
  spawnInto(other, resolver.resolve("api.example", 443), second);
  spawnInto(io, resolver.resolve("api.example", 443), third);
  io.poll();
  other.poll();
  ASSERT_TRUE(lookup.waitForCalls(1));
  EXPECT_FALSE(first || second || third) << "nobody is answered before the lookup ends";

  lookup.release(someAddress());
  runUntil(io, [&] { return first && third; });
  runUntil(other, [&] { return second.has_value(); });
  for (auto* answer : {&first, &second, &third}) {
    ASSERT_TRUE((*answer)->ok()) << (*answer)->error().message;
    EXPECT_EQ(**(*answer), someAddress());
  }
  EXPECT_EQ(lookup.calls(), 1);
}

TEST_F(ResolverTest, ALateAnswerStillFillsTheCache) {
  auto gave_up = run(io, resolver.resolve("late.example", 443, in(Millis(50))));
  ASSERT_FALSE(gave_up.ok());
  EXPECT_EQ(gave_up.error().kind, ErrorKind::Timeout);

  lookup.release(someAddress());
  // A wait whose deadline has passed is answered only from the cache: once the lookup thread
  // has stored the answer, it comes at once.
  std::optional<Answer> cached;
  for (MonoTime until = in(Millis(2'000)); MonoClock::now() < until;) {
    cached = run(io, resolver.resolve("late.example", 443, MonoClock::now()));
    if (cached->ok()) break;
  }
  ASSERT_TRUE(cached && cached->ok()) << "the late answer never reached the cache";
  EXPECT_EQ(**cached, someAddress());
  EXPECT_EQ(lookup.calls(), 1) << "the cached answer needed another lookup";
}

TEST_F(ResolverTest, AStopEndsTheWaitAtOnce) {
  std::stop_source stop;
  std::optional<Answer> answer;
  spawnInto(io, resolver.resolve("stuck.example", 443, MonoTime::max(), stop.get_token()), answer);
  io.poll();
  ASSERT_TRUE(lookup.waitForCalls(1));
  EXPECT_FALSE(answer.has_value());
  stop.request_stop();
  runUntil(io, [&] { return answer.has_value(); });
  ASSERT_FALSE(answer->ok());
  EXPECT_EQ(answer->error().kind, ErrorKind::Cancelled);
  EXPECT_NE(answer->error().message.find("DNS lookup of stuck.example"), std::string::npos);

  std::stop_source already;
  already.request_stop();
  auto refused = run(io, resolver.resolve("stuck.example", 443, MonoTime::max(),
                                          already.get_token()));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().kind, ErrorKind::Cancelled);
}

TEST_F(ResolverTest, FailedLookupsAreNotCached) {
  lookup.release(makeError(ErrorKind::Connect, "cannot resolve upstream host nx.example"));
  auto first = run(io, resolver.resolve("nx.example", 443));
  ASSERT_FALSE(first.ok());
  EXPECT_EQ(first.error().kind, ErrorKind::Connect);
  auto second = run(io, resolver.resolve("nx.example", 443));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(lookup.calls(), 2);
}

TEST_F(ResolverTest, AResolverMayGoAwayWithALookupRunning) {
  std::optional<Answer> answer;
  {
    CachingResolver short_lived(lookup.function());
    spawnInto(io, short_lived.resolve("gone.example", 443, in(Millis(100))), answer);
    io.poll();
    ASSERT_TRUE(lookup.waitForCalls(1));
  }
  lookup.release(someAddress());
  runUntil(io, [&] { return answer.has_value(); });
  // Nothing was posted to the wait after the resolver went: it ends at its deadline.
  ASSERT_FALSE(answer->ok());
  EXPECT_EQ(answer->error().kind, ErrorKind::Timeout);
}

TEST(SystemLookup, ResolvesLocalhost) {
  auto endpoints = systemLookup("localhost", 80);
  ASSERT_TRUE(endpoints.ok()) << endpoints.error().message;
  ASSERT_FALSE(endpoints->empty());
  for (auto const& endpoint : *endpoints) {
    EXPECT_TRUE(endpoint.address().is_loopback()) << endpoint.address().to_string();
    EXPECT_EQ(endpoint.port(), 80);
  }
}

}  // namespace
}  // namespace llmux::net
