#include "routing/router_state.h"

#include <gtest/gtest.h>

#include <string>

namespace llmux::routing {
namespace {

using namespace std::chrono_literals;

config::ChannelKey keyNamed(std::string id) {
  config::ChannelKey key;
  key.id = std::move(id);
  key.label = key.id;
  return key;
}

AttemptReport report(config::ChannelKey const& key, Outcome outcome, std::string_view session = "",
                     std::string_view model = "m") {
  AttemptReport r;
  r.channel = "ch";
  r.key_id = key.id;
  r.upstream_model = model;
  r.session = session;
  r.outcome = outcome;
  return r;
}

struct RouterStateTest : ::testing::Test {
  ManualTimeSource clock;
  RouterState state{clock};

  CandidateState view(config::ChannelKey const& key, std::string_view model = "m") {
    RouterState::Snapshot snapshot(state);
    return snapshot.candidate(key, model);
  }
  void finish(config::ChannelKey const& key, Outcome outcome, std::string_view session = "") {
    state.attemptStarted(key.id, key, 0);
    state.attemptFinished(report(key, outcome, session), key);
  }
};

TEST_F(RouterStateTest, ConcurrencyLimitLeavesNoHeadroomUntilAnAttemptEnds) {
  auto key = keyNamed("ch/a");
  key.limits.concurrency = 2;
  state.attemptStarted(key.id, key, 0);
  EXPECT_FALSE(view(key).exhausted);
  state.attemptStarted(key.id, key, 0);
  EXPECT_TRUE(view(key).exhausted);
  EXPECT_FALSE(view(key).exhausted_until) << "when an attempt ends is not known";
  state.attemptFinished(report(key, Outcome::Success), key);
  EXPECT_FALSE(view(key).exhausted);
}

TEST_F(RouterStateTest, RpmWindowFreesAMinuteAfterTheOldestStart) {
  auto key = keyNamed("ch/a");
  key.limits.rpm = 2;
  MonoTime first = clock.now();
  state.attemptStarted(key.id, key, 0);
  clock.advance(10s);
  state.attemptStarted(key.id, key, 0);
  auto v = view(key);
  ASSERT_TRUE(v.exhausted);
  EXPECT_EQ(v.exhausted_until, first + 60s);
  clock.advance(50s);
  EXPECT_FALSE(view(key).exhausted);
}

TEST_F(RouterStateTest, TpmCountsEstimatedTokensInTheWindow) {
  auto key = keyNamed("ch/a");
  key.limits.tpm = 1000;
  state.attemptStarted(key.id, key, 600);
  EXPECT_FALSE(view(key).exhausted);
  state.attemptStarted(key.id, key, 500);
  EXPECT_TRUE(view(key).exhausted);
  clock.advance(61s);
  EXPECT_FALSE(view(key).exhausted);
}

TEST_F(RouterStateTest, ConsecutiveFailuresResetBySuccessNotByRateLimitsOrClientsLeaving) {
  auto key = keyNamed("ch/a");
  finish(key, Outcome::ServerError);
  finish(key, Outcome::RateLimited);
  finish(key, Outcome::ClientGone);
  finish(key, Outcome::ClientError);
  EXPECT_EQ(view(key).consecutive_failures, 1);
  clock.advance(10min);  // out of the cooldown window
  finish(key, Outcome::TimeoutFirstByte);
  EXPECT_EQ(view(key).consecutive_failures, 2);
  finish(key, Outcome::Success);
  EXPECT_EQ(view(key).consecutive_failures, 0);
  EXPECT_EQ(view(key).success_streak, 1);
  EXPECT_EQ(view(key, "other-model").consecutive_failures, 0) << "per (key, upstream model)";
}

TEST_F(RouterStateTest, TwoFailuresWithinFiveMinutesStartAGrowingCooldown) {
  auto key = keyNamed("ch/a");
  finish(key, Outcome::ServerError);
  clock.advance(4min);
  finish(key, Outcome::Success);  // not necessarily consecutive
  finish(key, Outcome::ServerError);
  EXPECT_TRUE(view(key).cooling);
  EXPECT_EQ(state.cooldownsActive(), 1u);
  clock.advance(14'999ms);
  EXPECT_TRUE(view(key).cooling);
  clock.advance(1ms);
  EXPECT_FALSE(view(key).cooling) << "15 s";
  EXPECT_EQ(state.cooldownsActive(), 0u);

  // Each repeat: 15 s more, at most 120 s.
  std::chrono::milliseconds expected[] = {30s, 45s, 60s, 75s, 90s, 105s, 120s, 120s};
  for (auto want : expected) {
    finish(key, Outcome::ServerError);
    finish(key, Outcome::ServerError);
    clock.advance(want - 1ms);
    EXPECT_TRUE(view(key).cooling) << want.count();
    clock.advance(1ms);
    EXPECT_FALSE(view(key).cooling) << want.count();
  }

  // Five quiet minutes forgive: back to 15 s.
  clock.advance(6min);
  finish(key, Outcome::ServerError);
  finish(key, Outcome::ServerError);
  clock.advance(15s);
  EXPECT_FALSE(view(key).cooling);
}

TEST_F(RouterStateTest, FailuresFurtherApartThanTheWindowStartNoCooldown) {
  auto key = keyNamed("ch/a");
  finish(key, Outcome::ServerError);
  clock.advance(5min + 1s);
  finish(key, Outcome::ServerError);
  EXPECT_FALSE(view(key).cooling);
}

TEST_F(RouterStateTest, DecayedSuccessRateAndFirstTokenLatency) {
  auto key = keyNamed("ch/a");
  EXPECT_EQ(view(key).success_rate, 1.0);
  EXPECT_FALSE(view(key).first_token_ms);
  clock.advance(10min);
  finish(key, Outcome::ServerError);
  EXPECT_NEAR(view(key).success_rate, 0.9, 1e-12);
  auto r = report(key, Outcome::Success);
  r.first_token = Millis(100);
  state.attemptFinished(r, key);
  EXPECT_NEAR(view(key).success_rate, 0.91, 1e-12);
  EXPECT_DOUBLE_EQ(*view(key).first_token_ms, 100);
  r.first_token = Millis(200);
  state.attemptFinished(r, key);
  EXPECT_DOUBLE_EQ(*view(key).first_token_ms, 120);
}

TEST_F(RouterStateTest, SessionRemembersTheLastGoodKeyAndItsFailures) {
  auto a = keyNamed("ch/a");
  auto b = keyNamed("ch/b");
  finish(a, Outcome::Success, "s1");
  {
    RouterState::Snapshot snapshot(state);
    auto s = snapshot.session("s1");
    ASSERT_TRUE(s.known);
    EXPECT_EQ(s.last_key_id, "ch/a");
    EXPECT_EQ(s.last_model, "m");
    EXPECT_EQ(s.failuresOn("ch/a"), 0);
    EXPECT_FALSE(snapshot.session("other").known);
    EXPECT_FALSE(snapshot.session("").known);
  }
  finish(a, Outcome::ServerError, "s1");
  finish(a, Outcome::ServerError, "s1");
  finish(b, Outcome::RateLimited, "s1");
  {
    RouterState::Snapshot snapshot(state);
    auto s = snapshot.session("s1");
    EXPECT_EQ(s.failuresOn("ch/a"), 2);
    EXPECT_EQ(s.failuresOn("ch/b"), 0);
  }
  finish(a, Outcome::Success, "s1");
  RouterState::Snapshot snapshot(state);
  EXPECT_EQ(snapshot.session("s1").failuresOn("ch/a"), 0);
}

TEST_F(RouterStateTest, SessionsAreForgottenAfterAnHourIdleAndBounded) {
  auto a = keyNamed("ch/a");
  finish(a, Outcome::Success, "old");
  clock.advance(59min);
  {
    RouterState::Snapshot snapshot(state);
    EXPECT_TRUE(snapshot.session("old").known);
  }
  clock.advance(2min);
  {
    RouterState::Snapshot snapshot(state);
    EXPECT_FALSE(snapshot.session("old").known);
  }
  for (int i = 0; i < 100'010; ++i) {
    state.attemptFinished(report(a, Outcome::Success, "s" + std::to_string(i)), a);
  }
  EXPECT_EQ(state.sessionCount(), 100'000u);
  RouterState::Snapshot snapshot(state);
  EXPECT_FALSE(snapshot.session("s0").known) << "least recently used goes first";
  EXPECT_TRUE(snapshot.session("s100009").known);
}

TEST_F(RouterStateTest, DailyQuotaOfRequestsAndTokensResetsAtMidnightUtc) {
  auto per_request = keyNamed("ch/r");
  per_request.billing = config::Billing::PerRequest;
  per_request.daily_quota = 5;
  for (int i = 0; i < 4; ++i) finish(per_request, Outcome::Success);
  finish(per_request, Outcome::ServerError);  // failed requests are not billed
  EXPECT_DOUBLE_EQ(*view(per_request).quota_remaining, 0.2);
  EXPECT_FALSE(view(per_request).exhausted);
  finish(per_request, Outcome::Success);
  auto v = view(per_request);
  ASSERT_TRUE(v.exhausted);
  // The manual clock starts at 2023-11-14T22:13:20Z: midnight is 1 h 46 min 40 s away.
  EXPECT_EQ(v.exhausted_until, clock.now() + 1h + 46min + 40s);

  auto per_token = keyNamed("ch/t");
  per_token.daily_quota = 1000;
  auto r = report(per_token, Outcome::Success);
  r.tokens = 900;
  state.attemptFinished(r, per_token);
  EXPECT_NEAR(*view(per_token).quota_remaining, 0.1, 1e-12);

  clock.advance(1h + 46min + 40s);
  EXPECT_FALSE(view(per_request).exhausted);
  EXPECT_DOUBLE_EQ(*view(per_token).quota_remaining, 1.0);
}

TEST_F(RouterStateTest, OpenAiRateLimitHeadersWithDurations) {
  auto key = keyNamed("ch/a");
  HeaderList headers;
  headers.add("x-ratelimit-remaining-requests", "0");
  headers.add("x-ratelimit-reset-requests", "6m0s");
  headers.add("x-ratelimit-remaining-tokens", "0");
  headers.add("x-ratelimit-reset-tokens", "20ms");
  auto r = report(key, Outcome::RateLimited);
  r.headers = &headers;
  state.attemptFinished(r, key);
  auto v = view(key);
  ASSERT_TRUE(v.exhausted);
  EXPECT_EQ(v.exhausted_until, clock.now() + 6min) << "the later of the two resets";
  EXPECT_EQ(v.consecutive_failures, 0) << "a 429 is not the key failing";

  HeaderList room;
  room.add("x-ratelimit-remaining-requests", "10");
  room.add("x-ratelimit-reset-requests", "1s");
  r.headers = &room;
  r.outcome = Outcome::Success;
  state.attemptFinished(r, key);
  EXPECT_FALSE(view(key).exhausted) << "the upstream says there is room";

  HeaderList fractional;
  fractional.add("x-ratelimit-remaining-tokens", "0");
  fractional.add("x-ratelimit-reset-tokens", "1.5s");
  r.headers = &fractional;
  state.attemptFinished(r, key);
  EXPECT_EQ(view(key).exhausted_until, clock.now() + 1500ms);

  HeaderList no_reset;
  no_reset.add("x-ratelimit-remaining-requests", "0");
  r.headers = &no_reset;
  state.attemptFinished(r, key);
  EXPECT_EQ(view(key).exhausted_until, clock.now() + 60s) << "no reset given: a minute";
}

TEST_F(RouterStateTest, AnthropicRateLimitHeadersWithRfc3339Resets) {
  auto key = keyNamed("ch/a");
  HeaderList headers;
  // The manual clock's wall time is 2023-11-14T22:13:20Z.
  headers.add("anthropic-ratelimit-requests-remaining", "3");
  headers.add("anthropic-ratelimit-requests-reset", "2023-11-14T22:14:00Z");
  headers.add("anthropic-ratelimit-input-tokens-remaining", "0");
  headers.add("anthropic-ratelimit-input-tokens-reset", "2023-11-14T22:13:50.5Z");
  auto r = report(key, Outcome::Success);
  r.headers = &headers;
  state.attemptFinished(r, key);
  auto v = view(key);
  ASSERT_TRUE(v.exhausted);
  EXPECT_EQ(v.exhausted_until, clock.now() + 30500ms);

  HeaderList offset;
  offset.add("anthropic-ratelimit-tokens-remaining", "0");
  offset.add("anthropic-ratelimit-tokens-reset", "2023-11-14T23:15:20+01:00");
  r.headers = &offset;
  state.attemptFinished(r, key);
  EXPECT_EQ(view(key).exhausted_until, clock.now() + 2min);
  clock.advance(2min);
  EXPECT_FALSE(view(key).exhausted);
}

}  // namespace
}  // namespace llmux::routing
