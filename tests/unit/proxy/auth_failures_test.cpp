#include "proxy/auth_failures.h"

#include <gtest/gtest.h>

#include "proxy/listeners.h"

namespace llmux::proxy {
namespace {

using namespace std::chrono_literals;

TEST(AuthFailureLimiter, AnAddressPastItsFailuresWaitsForItsWindowOthersDoNot) {
  ManualTimeSource clock;
  AuthFailureLimiter limiter(clock, 3, 60s);
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(limiter.blockedFor("10.0.0.1")) << i;
    limiter.recordFailure("10.0.0.1");
  }
  auto wait = limiter.blockedFor("10.0.0.1");
  ASSERT_TRUE(wait);
  EXPECT_EQ(*wait, Millis(60'000));
  EXPECT_FALSE(limiter.blockedFor("10.0.0.2")) << "one address cannot lock out the others";
  clock.advance(59s);
  ASSERT_TRUE(limiter.blockedFor("10.0.0.1"));
  EXPECT_EQ(*limiter.blockedFor("10.0.0.1"), Millis(1'000));
  clock.advance(1s);
  EXPECT_FALSE(limiter.blockedFor("10.0.0.1")) << "the window is over";
  limiter.recordFailure("10.0.0.1");
  EXPECT_FALSE(limiter.blockedFor("10.0.0.1")) << "a new window counts from one";
}

TEST(AuthFailureLimiter, TrackingIsBoundedOldestFirst) {
  ManualTimeSource clock;
  AuthFailureLimiter limiter(clock, 1, 60s, 2);
  limiter.recordFailure("a");
  clock.advance(1s);
  limiter.recordFailure("b");
  clock.advance(1s);
  limiter.recordFailure("c");  // "a" is forgotten to make room
  EXPECT_FALSE(limiter.blockedFor("a"));
  EXPECT_TRUE(limiter.blockedFor("b"));
  EXPECT_TRUE(limiter.blockedFor("c"));
}

TEST(Listeners, OperatorRoutesLiveOnTheirOwnAddressWhenOneIsConfigured) {
  using protocol::RouteKind;
  ListenerPlan shared;
  ListenerPlan separate{true, true};
  EXPECT_TRUE(listenerServes(Listener::Client, RouteKind::Metrics, shared));
  EXPECT_TRUE(listenerServes(Listener::Client, RouteKind::AdminFreezes, shared));
  EXPECT_FALSE(listenerServes(Listener::Client, RouteKind::Metrics, separate));
  EXPECT_FALSE(listenerServes(Listener::Client, RouteKind::AdminFreezes, separate));
  EXPECT_TRUE(listenerServes(Listener::Metrics, RouteKind::Metrics, separate));
  EXPECT_FALSE(listenerServes(Listener::Metrics, RouteKind::AdminFreezes, separate));
  EXPECT_TRUE(listenerServes(Listener::Admin, RouteKind::AdminFreezes, separate));
  EXPECT_TRUE(listenerServes(Listener::AdminAndMetrics, RouteKind::Metrics, separate));
  EXPECT_TRUE(listenerServes(Listener::AdminAndMetrics, RouteKind::AdminBreakers, separate));
  for (Listener l : {Listener::Client, Listener::Admin, Listener::Metrics}) {
    EXPECT_TRUE(listenerServes(l, RouteKind::Healthz, separate));
    EXPECT_TRUE(listenerServes(l, RouteKind::Readyz, separate));
  }
  EXPECT_TRUE(listenerServes(Listener::Client, RouteKind::ChatCompletions, separate));
  EXPECT_FALSE(listenerServes(Listener::Admin, RouteKind::ChatCompletions, separate));
  EXPECT_FALSE(listenerServes(Listener::Metrics, RouteKind::ListModels, separate));
}

}  // namespace
}  // namespace llmux::proxy
