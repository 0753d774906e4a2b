#include "routing/router_state.h"

#include <gtest/gtest.h>

#include <string>

#include "settings_fixture.h"

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

// --- Slots: a catalog's keys bound to the state's entries ---------------------------------------

constexpr char kSlotConfig[] = R"(
listen: 127.0.0.1:0
gateway_keys:
  - {name: dev, key: sk-dev}
channels:
  - name: a
    protocol: openai-chat
    base_url: http://127.0.0.1:1
    keys: [{key: k0, rpm: 3}, {key: k1, daily_quota: 10, billing: per_request}]
    models: [m, n]
    model_map: {alias: m}
  - name: b
    protocol: openai-chat
    base_url: http://127.0.0.1:2
    keys: [k2, k3]
    models: [m]
)";

std::string describe(CandidateState const& c) {
  auto ms = [](std::optional<MonoTime> t) { return t ? std::to_string(t->time_since_epoch().count()) : "-"; };
  auto num = [](std::optional<double> v) { return v ? std::to_string(*v) : "-"; };
  return std::to_string(c.exhausted) + " " + ms(c.exhausted_until) + " " + std::to_string(c.consecutive_failures) +
         " " + std::to_string(c.cooling) + " " + num(c.quota_remaining) + " " + std::to_string(c.success_streak) +
         " " + std::to_string(c.success_rate) + " " + num(c.first_token_ms);
}

/// Through the catalog's slots (one by one and as a channel's batch) as by name, for every key
/// of every model of the catalog; returns how many were compared.
int expectSlotsSeeWhatNamesSee(RouterState const& state, Catalog const& catalog) {
  int compared = 0;
  RouterState::Snapshot by_slot(state, catalog);
  std::vector<std::string> by_name;
  {
    RouterState::Snapshot plain(state);
    for (auto const& model : catalog.modelNames()) {
      auto const* plan = catalog.modelPlan(model);
      for (auto const& channel : plan->channels) {
        for (auto k = channel.keys_begin; k != channel.keys_end; ++k) {
          by_name.push_back(describe(plain.candidate(*plan->keys[k].key, *channel.upstream)));
        }
      }
    }
  }
  std::size_t i = 0;
  for (auto const& model : catalog.modelNames()) {
    auto const* plan = catalog.modelPlan(model);
    for (auto const& channel : plan->channels) {
      std::vector<CandidateState> batch(channel.keys_end - channel.keys_begin);
      by_slot.candidates(plan->keys.data() + channel.keys_begin, batch.size(), *channel.upstream, batch.data());
      for (auto k = channel.keys_begin; k != channel.keys_end; ++k, ++i) {
        auto const& key = plan->keys[k];
        EXPECT_EQ(describe(by_slot.candidate(key, *channel.upstream)), by_name[i]) << key.id.id << " " << model;
        EXPECT_EQ(describe(batch[k - channel.keys_begin]), by_name[i]) << key.id.id << " " << model;
        ++compared;
      }
    }
  }
  return compared;
}

struct RouterStateSlotsTest : RouterStateTest {
  std::shared_ptr<const Catalog> catalog = testing::catalogFrom(kSlotConfig);
  config::ChannelKey const& key(std::size_t channel, std::size_t k) {
    return catalog->settings().channels[channel].keys[k];
  }
  void attempt(config::ChannelKey const& key, Outcome outcome, std::string_view model) {
    state.attemptStarted(key.id, key, 0);
    auto r = report(key, outcome, "", model);
    r.first_token = Millis(300);
    state.attemptFinished(r, key);
  }
  CandidateState slotView(std::string const& model, std::size_t channel_position, std::size_t key_position) {
    auto const* plan = catalog->modelPlan(model);
    auto const& channel = plan->channels[channel_position];
    RouterState::Snapshot snapshot(state, *catalog);
    return snapshot.candidate(plan->keys[channel.keys_begin + key_position], *channel.upstream);
  }
};

TEST_F(RouterStateSlotsTest, SlotsSeeEntriesAndStatisticsThatAppearAfterTheyWereBound) {
  // 2 + 2 keys for m, 2 for n and alias: 8 (key, model) lookups.
  EXPECT_EQ(expectSlotsSeeWhatNamesSee(state, *catalog), 8) << "no entry yet";
  EXPECT_EQ(slotView("m", 0, 1).quota_remaining, 1.0);
  attempt(key(0, 0), Outcome::ServerError, "m");  // k0's entry appears after the slots were bound
  EXPECT_EQ(slotView("m", 0, 0).consecutive_failures, 1);
  EXPECT_EQ(slotView("alias", 0, 0).consecutive_failures, 1) << "the alias is sent upstream as m";
  EXPECT_EQ(slotView("n", 0, 0).consecutive_failures, 0);
  expectSlotsSeeWhatNamesSee(state, *catalog);
  // Statistics for another model of a key whose entry is bound already.
  attempt(key(0, 0), Outcome::ServerError, "n");
  attempt(key(0, 0), Outcome::Success, "n");
  EXPECT_EQ(slotView("n", 0, 0).success_streak, 1);
  EXPECT_EQ(slotView("n", 0, 0).first_token_ms, 300.0);
  EXPECT_EQ(slotView("m", 0, 0).consecutive_failures, 1);
  // The RPM limit (3) fills: k0 is exhausted through its slot as by name.
  attempt(key(0, 0), Outcome::Success, "m");
  EXPECT_TRUE(slotView("m", 0, 0).exhausted);
  attempt(key(0, 1), Outcome::Success, "m");
  EXPECT_EQ(slotView("m", 0, 1).quota_remaining, 0.9);
  attempt(key(1, 1), Outcome::ServerError, "m");
  EXPECT_EQ(expectSlotsSeeWhatNamesSee(state, *catalog), 8);
}

TEST_F(RouterStateSlotsTest, EveryCatalogHasItsOwnSlots) {
  attempt(key(0, 0), Outcome::ServerError, "m");
  expectSlotsSeeWhatNamesSee(state, *catalog);
  // A reload that reorders the keys and adds one numbers the slots differently.
  std::string reordered = kSlotConfig;
  reordered.replace(reordered.find("keys: [k2, k3]"), 14, "keys: [k4, k3, k2]");
  auto reloaded = testing::catalogFrom(reordered);
  auto const& old_k2 = catalog->modelPlan("m")->keys[2];
  auto const& new_k4 = reloaded->modelPlan("m")->keys[2];
  ASSERT_EQ(old_k2.key->secret, "k2");
  ASSERT_EQ(new_k4.key->secret, "k4");
  ASSERT_EQ(new_k4.key_slot, old_k2.key_slot) << "the same slot number names another key after the reload";
  attempt(key(1, 0), Outcome::ServerError, "m");  // k2
  EXPECT_EQ(expectSlotsSeeWhatNamesSee(state, *reloaded), 9);
  EXPECT_EQ(expectSlotsSeeWhatNamesSee(state, *catalog), 8) << "the old catalog's slots still hold";
  // More catalogs than the state keeps bindings for, and catalogs that are gone (one may be
  // made at a freed one's address): each still sees the state right.
  for (int i = 0; i < 10; ++i) {
    auto passing = testing::catalogFrom(i % 2 ? kSlotConfig : reordered.c_str());
    attempt(key(0, i % 2), Outcome::ServerError, i % 3 ? "m" : "n");
    expectSlotsSeeWhatNamesSee(state, *passing);
    expectSlotsSeeWhatNamesSee(state, *catalog);
  }
  EXPECT_EQ(slotView("m", 0, 0).consecutive_failures, 4);  // the first failure and those of i = 2, 4, 8
}

}  // namespace
}  // namespace llmux::routing
