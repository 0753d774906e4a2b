#include "routing/planner.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <map>
#include <set>

#include "routing/freezes.h"
#include "routing/key_health.h"
#include "routing/rng.h"
#include "routing/router_state.h"
#include "settings_fixture.h"

namespace llmux::routing {
namespace {

using config::Strategy;
using testing::catalogFrom;
using namespace std::chrono_literals;

constexpr char kPool[] = R"(
listen: 127.0.0.1:0
gateway_keys:
  - {name: dev, key: sk-dev}
channels:
  - name: high
    protocol: openai-chat
    base_url: http://127.0.0.1:1
    keys: [h0, h1, {key: h2, enabled: false}]
    models: [gpt-4o]
    priority: 10
  - name: mid-translated
    protocol: anthropic
    base_url: http://127.0.0.1:2
    keys: [a0]
    models: [gpt-4o]
    priority: 5
  - name: mid-native
    protocol: openai-chat
    base_url: http://127.0.0.1:3
    keys: [n0, n1, n2]
    models: [gpt-4o, o1-mini, my-local]
    model_map: {gpt-4o: gpt-4o-2024-08-06}
    priority: 5
  - name: low
    protocol: openai-chat
    base_url: http://127.0.0.1:4
    keys: [{key: l0, billing: per_request}]
    models: [gpt-4o, o1-mini]
model_groups:
  smart: [gpt-4o, {model: o1-mini, channel: low}]
fallbacks:
  gpt-4o: [o1-mini, my-local]
  o1-mini: [gpt-4o]
)";

struct PlannerTest : ::testing::Test {
  std::shared_ptr<const Catalog> catalog = catalogFrom(kPool);
  ManualTimeSource clock;
  RouterState state{clock};
  KeyHealth health{clock};
  FreezeTable freezes{clock};
  Rng rng{42};

  RoutePlan plan(RouteRequest const& request) { return planRoute(*catalog, state, health, freezes, request, rng); }
  RoutePlan plan(std::string model, Strategy strategy = Strategy::Sequential) {
    RouteRequest request;
    request.model = std::move(model);
    request.strategy = strategy;
    return plan(request);
  }
  config::Channel const& channel(std::string_view name) {
    return catalog->settings().channels[*catalog->channelIndex(name)];
  }
  config::ChannelKey const& key(std::string_view channel_name, std::size_t k) { return channel(channel_name).keys[k]; }
  std::string label(PlannedCandidate const& c) {
    return catalog->settings().channels[c.channel].keys[c.key].label + ":" + std::string(c.upstream_model);
  }
  std::vector<std::string> labels(RoutePlan const& p, int depth = 0) {
    std::vector<std::string> out;
    for (auto const& c : p.candidates) {
      if (c.depth == depth) out.push_back(label(c));
    }
    return out;
  }
  void attempt(std::string_view channel_name, std::size_t k, Outcome outcome, std::string_view session = "",
               std::string_view model = "gpt-4o", std::optional<Millis> first_token = std::nullopt) {
    auto const& key_ = key(channel_name, k);
    state.attemptStarted(key_.id, key_, 0);
    AttemptReport r;
    r.channel = channel_name;
    r.key_id = key_.id;
    r.upstream_model = model;
    r.session = session;
    r.outcome = outcome;
    r.first_token = first_token;
    state.attemptFinished(r, key_);
  }
};

TEST_F(PlannerTest, SequentialIsPriorityThenPassthroughThenConfigurationOrder) {
  auto p = plan("gpt-4o");
  ASSERT_EQ(p.status, RouteStatus::Ready);
  EXPECT_EQ(labels(p), (std::vector<std::string>{
                           "high#0:gpt-4o", "high#1:gpt-4o",  // h2 is disabled
                           "mid-native#0:gpt-4o-2024-08-06", "mid-native#1:gpt-4o-2024-08-06",
                           "mid-native#2:gpt-4o-2024-08-06", "mid-translated#0:gpt-4o", "low#0:gpt-4o"}));
  EXPECT_TRUE(p.candidates[0].passthrough);
  EXPECT_FALSE(p.candidates[5].passthrough);
  EXPECT_EQ(p.candidates[0].model, "gpt-4o");
}

TEST_F(PlannerTest, UnknownModelAndChannel) {
  EXPECT_EQ(plan("nope").status, RouteStatus::UnknownModel);
  RouteRequest request;
  request.model = "gpt-4o";
  request.pinned_channel = "missing";
  EXPECT_EQ(plan(request).status, RouteStatus::UnknownChannel);
  request.model = "my-local";
  request.pinned_channel = "high";  // does not serve it
  EXPECT_EQ(plan(request).status, RouteStatus::UnknownChannel);
}

TEST_F(PlannerTest, PinnedChannelIsTheOnlyOneTried) {
  RouteRequest request;
  request.model = "gpt-4o";
  request.pinned_channel = "low";
  auto p = plan(request);
  ASSERT_EQ(p.status, RouteStatus::Ready);
  for (auto const& c : p.candidates) EXPECT_EQ(c.channel, *catalog->channelIndex("low"));
  // Its fallbacks are served by the pinned channel too (o1-mini), never by another one.
  EXPECT_EQ(labels(p, 0), (std::vector<std::string>{"low#0:gpt-4o"}));
  EXPECT_EQ(labels(p, 1), (std::vector<std::string>{"low#0:o1-mini"}));
}

TEST_F(PlannerTest, ChannelSlashModelAddressesOneChannel) {
  auto p = plan("mid-native/gpt-4o");
  ASSERT_EQ(p.status, RouteStatus::Ready);
  EXPECT_EQ(labels(p).size(), 3u);
  for (auto const& c : labels(p)) EXPECT_EQ(c.rfind("mid-native#", 0), 0u) << c;
}

TEST_F(PlannerTest, FallbacksFollowInOrderWithoutLoopsOrDuplicates) {
  auto p = plan("gpt-4o");
  // gpt-4o → o1-mini (whose own fallback gpt-4o is visited already) → my-local.
  EXPECT_EQ(labels(p, 1), (std::vector<std::string>{"mid-native#0:o1-mini", "mid-native#1:o1-mini",
                                                    "mid-native#2:o1-mini", "low#0:o1-mini"}));
  EXPECT_EQ(labels(p, 2), (std::vector<std::string>{"mid-native#0:my-local", "mid-native#1:my-local",
                                                    "mid-native#2:my-local"}));
  EXPECT_EQ(p.candidates.size(), 14u);
  std::set<std::string> seen;
  for (auto const& c : p.candidates) EXPECT_TRUE(seen.insert(label(c)).second) << label(c);
  EXPECT_EQ(p.candidates.back().model, "my-local");
}

TEST_F(PlannerTest, GroupMembersInOrderAMemberMayNameItsChannel) {
  auto p = plan("smart");
  ASSERT_EQ(p.status, RouteStatus::Ready);
  EXPECT_EQ(labels(p, 0).size(), 7u);
  EXPECT_EQ(labels(p, 1), (std::vector<std::string>{"low#0:o1-mini"}));
  // Then gpt-4o's fallbacks: o1-mini on any channel (low's is listed already), my-local.
  EXPECT_EQ(labels(p, 2), (std::vector<std::string>{"mid-native#0:o1-mini", "mid-native#1:o1-mini",
                                                    "mid-native#2:o1-mini"}));
}

TEST_F(PlannerTest, CapabilityGateSkipsFallbacksKnownToLackWhatTheRequestNeeds) {
  RouteRequest request;
  request.model = "gpt-4o";
  request.strategy = Strategy::Sequential;
  request.needs.tools = true;
  auto p = plan(request);
  EXPECT_TRUE(labels(p, 1).empty()) << "o1-mini has no function calling";
  EXPECT_FALSE(p.gate_skipped.empty());
  EXPECT_NE(p.gate_skipped[0].find("o1-mini"), std::string::npos);
  EXPECT_NE(p.gate_skipped[0].find("tools"), std::string::npos);
  // my-local is unknown to the table: allowed, and reported.
  EXPECT_EQ(labels(p, 2).size(), 3u);
  EXPECT_EQ(p.unknown_capabilities, (std::vector<std::string>{"my-local"}));

  // Never applied to the model the client asked for.
  request.model = "o1-mini";
  auto direct = plan(request);
  EXPECT_EQ(labels(direct, 0).size(), 4u);
}

// The model asked for has no candidate of its own (its channel is disabled) and the gate rules
// out every fallback: the plan says so, with the reasons, instead of "not served".
TEST(PlannerGate, AChainTheGateRulesOutEntirelyIsVetoedWithItsReasons) {
  auto catalog = catalogFrom(R"(
gateway_keys: [{name: dev, key: sk-dev}]
channels:
  - {name: primary, protocol: openai-chat, base_url: "http://127.0.0.1:1", keys: [p0], models: [main], enabled: false}
  - {name: mini, protocol: openai-chat, base_url: "http://127.0.0.1:2", keys: [m0], models: [o1-mini]}
  - name: small
    protocol: openai-chat
    base_url: "http://127.0.0.1:3"
    keys: [s0]
    models: [tiny]
    capabilities: {tiny: {tools: true, context_window: 1000}}
fallbacks:
  main: [o1-mini, tiny]
)");
  ManualTimeSource clock;
  RouterState state(clock);
  KeyHealth health(clock);
  FreezeTable freezes(clock);
  Rng rng(3);
  RouteRequest request;
  request.model = "main";
  request.needs.tools = true;
  request.needs.prompt_tokens = 5000;
  auto p = planRoute(*catalog, state, health, freezes, request, rng);
  EXPECT_EQ(p.status, RouteStatus::CapabilityVetoed);
  EXPECT_TRUE(p.candidates.empty());
  EXPECT_EQ(p.gate_skipped,
            (std::vector<std::string>{
                "o1-mini (mini): no tools",
                "tiny (small): context window of 1000 tokens < a prompt of about 5000"}));

  // What the gate lets through is planned as before.
  request.needs.tools = false;
  request.needs.prompt_tokens = 100;
  EXPECT_EQ(planRoute(*catalog, state, health, freezes, request, rng).status, RouteStatus::Ready);
  // A paused fallback may come back: that stays AllPaused (the gate's reasons still listed).
  request.needs.tools = true;
  health.pauseKey(catalog->settings().channels[2].keys[0].id, KeyPause::Rejected, Millis(1'000));
  request.needs.prompt_tokens = 100;
  auto paused = planRoute(*catalog, state, health, freezes, request, rng);
  EXPECT_EQ(paused.status, RouteStatus::AllPaused);
  EXPECT_EQ(paused.gate_skipped, (std::vector<std::string>{"o1-mini (mini): no tools"}));
}

TEST_F(PlannerTest, PausedFrozenAndExhaustedKeysAreLeftOutWithTheirResumeTime) {
  health.pauseModel(key("high", 0).id, "gpt-4o", KeyPause::RateLimited, 30s);
  config::FreezeRule rule;
  rule.status = 403;
  rule.object = config::FreezeObject::Key;
  rule.period = config::FreezePeriod::Today;
  freezes.apply(rule, FreezeTarget{"high", key("high", 1).id, key("high", 1).label, "gpt-4o"}, std::nullopt,
                "status 403");
  RouteRequest request;
  request.model = "gpt-4o";
  request.pinned_channel = "high";
  auto p = plan(request);
  EXPECT_EQ(p.status, RouteStatus::AllPaused);
  EXPECT_EQ(p.resume_at, clock.now() + 30s);

  // Headroom: the upstream said "0 remaining" for low's only key.
  HeaderList headers;
  headers.add("x-ratelimit-remaining-requests", "0");
  headers.add("x-ratelimit-reset-requests", "10s");
  auto const& l0 = key("low", 0);
  AttemptReport r;
  r.key_id = l0.id;
  r.upstream_model = "gpt-4o";
  r.outcome = Outcome::RateLimited;
  r.headers = &headers;
  state.attemptFinished(r, l0);
  request.pinned_channel = "low";
  request.model = "low/gpt-4o";
  p = plan(request);
  EXPECT_EQ(p.status, RouteStatus::AllPaused);
  EXPECT_EQ(p.resume_at, clock.now() + 10s);

  auto all = plan("gpt-4o");
  for (auto const& c : all.candidates) {
    EXPECT_NE(label(c), "high#0:gpt-4o");
    EXPECT_NE(label(c), "high#1:gpt-4o");
    EXPECT_NE(label(c), "low#0:gpt-4o");
  }
}

TEST_F(PlannerTest, IntelligentScoresEveryCandidateAndFailuresLowerIt) {
  attempt("high", 0, Outcome::ServerError);
  auto p = plan("gpt-4o", Strategy::Intelligent);
  ASSERT_EQ(p.status, RouteStatus::Ready);
  EXPECT_EQ(label(p.candidates[0]), "high#1:gpt-4o") << "untouched, higher priority wins the tie";
  for (auto const& c : p.candidates) {
    EXPECT_GT(c.factors.score, 0);
    if (label(c) == "high#0:gpt-4o") {
      EXPECT_DOUBLE_EQ(c.factors.failures, 0.8);
      EXPECT_NEAR(c.factors.performance, 0.9, 1e-12);
      EXPECT_NEAR(c.factors.score, 0.72, 1e-12);
    }
  }
  EXPECT_NE(formatFactors(p.candidates[0].factors).find("score=1 "), std::string::npos);
}

TEST(FormatFactors, PrintsEveryFactorAsPrintfsPercentPointFourG) {
  Factors f;
  f.score = 0.72;
  f.weight = 1;
  f.headroom = 0.123456;
  f.failures = 1e-7;
  f.cooldown = 12345.678;
  f.affinity = -0.0;
  f.billing = -0.5;
  f.yield = 1.5e300;
  f.performance = 0.99999;
  f.latency = 0.85;
  char expected[512];
  std::snprintf(expected, sizeof expected,
                "score=%.4g weight=%.4g headroom=%.4g failures=%.4g cooldown=%.4g affinity=%.4g "
                "billing=%.4g yield=%.4g performance=%.4g latency=%.4g",
                f.score, f.weight, f.headroom, f.failures, f.cooldown, f.affinity, f.billing,
                f.yield, f.performance, f.latency);
  EXPECT_EQ(formatFactors(f), expected);
  EXPECT_EQ(formatFactors(f), "score=0.72 weight=1 headroom=0.1235 failures=1e-07 cooldown=1.235e+04 "
                              "affinity=-0 billing=-0.5 yield=1.5e+300 performance=1 latency=0.85");
}

TEST_F(PlannerTest, LatencyLearningCostsADegradedKeyFifteenPercentUntilItRecovers) {
  state.setLatencyDegraded(key("high", 1).id, "gpt-4o", true);
  auto p = plan("gpt-4o", Strategy::Intelligent);
  ASSERT_EQ(p.status, RouteStatus::Ready);
  EXPECT_EQ(label(p.candidates[0]), "high#0:gpt-4o") << "the equal, undegraded key leads";
  bool seen = false;
  for (auto const& c : p.candidates) {
    if (label(c) != "high#1:gpt-4o") continue;
    seen = true;  // soft: still a candidate
    EXPECT_DOUBLE_EQ(c.factors.latency, 0.85);
    EXPECT_NEAR(c.factors.score, 0.85, 1e-12);
    EXPECT_NE(formatFactors(c.factors).find("latency=0.85"), std::string::npos);
  }
  EXPECT_TRUE(seen);
  // Recovered: neutral again.
  state.setLatencyDegraded(key("high", 1).id, "gpt-4o", false);
  p = plan("gpt-4o", Strategy::Intelligent);
  for (auto const& c : p.candidates) EXPECT_DOUBLE_EQ(c.factors.latency, 1.0) << label(c);
}

TEST_F(PlannerTest, CoolingCandidatesGoLastInEveryStrategy) {
  attempt("high", 0, Outcome::ServerError);
  attempt("high", 0, Outcome::ServerError);
  for (auto strategy : {Strategy::Sequential, Strategy::Random, Strategy::ModelRandom, Strategy::GlobalRandom,
                        Strategy::Intelligent, Strategy::Fast}) {
    RouteRequest request;
    request.model = "gpt-4o";
    request.strategy = strategy;
    auto p = plan(request);
    auto depth0 = labels(p, 0);
    ASSERT_EQ(depth0.size(), 7u);
    EXPECT_EQ(depth0.back(), "high#0:gpt-4o") << config::strategyName(strategy);
  }
}

TEST_F(PlannerTest, SessionStaysOnItsKeyAndMovesWhenItFails) {
  // Affinity works inside a priority tier: the session's key is in the second one, the first
  // is out (paused) as it was when the session got there.
  health.pauseKey(key("high", 0).id, KeyPause::Rejected, Millis(60'000));
  health.pauseKey(key("high", 1).id, KeyPause::Rejected, Millis(60'000));
  RouteRequest request;
  request.model = "gpt-4o";
  request.session = "s1";
  attempt("mid-native", 2, Outcome::Success, "s1", "gpt-4o-2024-08-06", Millis(300));
  auto p = plan(request);
  EXPECT_EQ(label(p.candidates[0]), "mid-native#2:gpt-4o-2024-08-06");
  EXPECT_DOUBLE_EQ(p.candidates[0].factors.affinity, 4.0);
  // Its sibling keys share the upstream model: the model boost.
  for (auto const& c : p.candidates) {
    if (label(c) == "mid-native#1:gpt-4o-2024-08-06") {
      EXPECT_DOUBLE_EQ(c.factors.affinity, 1.5);
    }
  }
  attempt("mid-native", 2, Outcome::ServerError, "s1", "gpt-4o-2024-08-06");
  p = plan(request);
  EXPECT_NE(label(p.candidates[0]), "mid-native#2:gpt-4o-2024-08-06");
  // Other sessions are not affected by s1's affinity.
  request.session = "s2";
  p = plan(request);
  EXPECT_DOUBLE_EQ(p.candidates[0].factors.affinity, 1.0);
}

TEST_F(PlannerTest, PerRequestKeysLeadForLongPromptsWithinTheirPriorityTier) {
  RouteRequest request;
  request.model = "gpt-4o";
  request.strategy = Strategy::Intelligent;
  request.needs.prompt_tokens = 8000;
  auto p = plan(request);
  // The billing factor is there, but priority stays the operator's word: low (0) comes last.
  EXPECT_EQ(labels(p, 0).back(), "low#0:gpt-4o");
  for (auto const& c : p.candidates) {
    if (c.depth == 0 && label(c) == "low#0:gpt-4o") {
      EXPECT_DOUBLE_EQ(c.factors.billing, 4.0);
    }
  }

  auto equals = catalogFrom(R"(
gateway_keys: [{name: dev, key: sk-dev}]
channels:
  - {name: tok, protocol: openai-chat, base_url: "http://127.0.0.1:1", keys: [t0], models: [m]}
  - {name: req, protocol: openai-chat, base_url: "http://127.0.0.1:2", keys: [{key: r0, billing: per_request}], models: [m]}
)");
  request.model = "m";
  auto lead = [&](std::int64_t tokens) {
    request.needs.prompt_tokens = tokens;
    auto r = planRoute(*equals, state, health, freezes, request, rng);
    return equals->settings().channels[r.candidates[0].channel].name;
  };
  EXPECT_EQ(lead(8000), "req");  // 8000 / 2000 = x4
  EXPECT_EQ(lead(500), "tok");   // 500 / 2000 = x0.25
}

TEST_F(PlannerTest, SuccessRunYieldsToTheOtherKeys) {
  for (int i = 0; i < 10; ++i) attempt("high", 1, Outcome::Success);
  auto p = plan("gpt-4o", Strategy::Intelligent);
  EXPECT_EQ(label(p.candidates[0]), "high#0:gpt-4o");
  for (auto const& c : p.candidates) {
    if (label(c) == "high#1:gpt-4o") {
      EXPECT_DOUBLE_EQ(c.factors.yield, 0.85);
    }
  }
}

TEST_F(PlannerTest, FastPrefersTheQuickestAndExploresAboutFivePercent) {
  attempt("high", 0, Outcome::Success, "", "gpt-4o", Millis(900));
  attempt("high", 1, Outcome::Success, "", "gpt-4o", Millis(100));
  RouteRequest request;
  request.model = "gpt-4o";
  request.pinned_channel = "high";
  request.strategy = Strategy::Fast;
  int explored = 0;
  constexpr int kPlans = 20'000;
  for (int i = 0; i < kPlans; ++i) {
    auto p = plan(request);
    ASSERT_EQ(p.candidates.size(), 2u);
    explored += label(p.candidates[0]) != "high#1:gpt-4o";
  }
  EXPECT_NEAR(explored / double(kPlans), 0.05, 0.01);
}

TEST_F(PlannerTest, RandomStrategiesShareAsDefined) {
  std::map<std::string, int> random_leads, model_random_leads, global_leads;
  constexpr int kPlans = 12'000;
  for (int i = 0; i < kPlans; ++i) {
    auto channel_of = [&](RoutePlan const& p) { return catalog->settings().channels[p.candidates[0].channel].name; };
    // random: the best tier only ("high"), then the rest by tier.
    auto r = plan("gpt-4o", Strategy::Random);
    ++random_leads[channel_of(r)];
    EXPECT_EQ(catalog->settings().channels[r.candidates[2].channel].priority, 5);
    // model-random: every channel, priorities ignored.
    ++model_random_leads[channel_of(plan("gpt-4o", Strategy::ModelRandom))];
    // global-random: every (channel, key): mid-native has 3 of the 7 shares.
    ++global_leads[channel_of(plan("gpt-4o", Strategy::GlobalRandom))];
  }
  EXPECT_EQ(random_leads["high"], kPlans);
  for (auto const& name : {"high", "mid-translated", "mid-native", "low"}) {
    EXPECT_NEAR(model_random_leads[name] / double(kPlans), 0.25, 0.03) << name;
  }
  EXPECT_NEAR(global_leads["mid-native"] / double(kPlans), 3.0 / 7, 0.03);
  EXPECT_NEAR(global_leads["low"] / double(kPlans), 1.0 / 7, 0.03);
}

}  // namespace
}  // namespace llmux::routing
