// A deterministic simulation of the router: 10,000 requests over 5 channels × 3 keys whose
// upstreams behave as scripted (a 429 storm, one that turns slow after the first fifth, one
// answering 403, one failing 20 % of the time with a 5xx, a healthy one), driven through planRoute, RouterState, KeyHealth and
// FreezeTable the way the forwarder drives them, on a manual clock and seeded randomness.

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <set>

#include "routing/freezes.h"
#include "routing/key_health.h"
#include "routing/planner.h"
#include "routing/rng.h"
#include "routing/router_state.h"
#include "settings_fixture.h"

namespace llmux::routing {
namespace {

using namespace std::chrono_literals;

// The slow channel comes first so that it wins the ties while it is still fast.
constexpr char kSimulation[] = R"(
listen: 127.0.0.1:0
gateway_keys:
  - {name: dev, key: sk-dev}
channels:
  - {name: slow, protocol: openai-chat, base_url: http://127.0.0.1:1, keys: [s0, s1, s2], models: [sim-model]}
  - {name: storm, protocol: openai-chat, base_url: http://127.0.0.1:2, keys: [r0, r1, r2], models: [sim-model]}
  - {name: forbidden, protocol: openai-chat, base_url: http://127.0.0.1:3, keys: [f0, f1, f2], models: [sim-model]}
  - {name: flaky, protocol: openai-chat, base_url: http://127.0.0.1:4, keys: [k0, k1, k2], models: [sim-model]}
  - name: healthy
    protocol: openai-chat
    base_url: http://127.0.0.1:5
    keys: [h0, h1, {key: h2, rpm: 20}]
    models: [sim-model]
)";

constexpr int kRequests = 10'000;
constexpr int kSessions = 40;
constexpr int kSlowFrom = kRequests / 5;  ///< the "slow" channel answers in 2 s from this request on
constexpr auto kStormReset = 20s;

struct Simulation {
  std::shared_ptr<const Catalog> catalog = testing::catalogFrom(kSimulation);
  config::Settings const& settings = catalog->settings();
  ManualTimeSource clock;
  RouterState state{clock};
  KeyHealth health{clock};
  FreezeTable freezes{clock};
  Rng planner_rng{7};
  Rng upstream_rng{11};
  config::FreezeRule forbidden_rule{.name = "403-today", .status = 403};

  // What the simulation knows to be true, to check every attempt against.
  std::map<std::string, MonoTime> storm_blocked_until;
  std::set<std::string> frozen_keys;
  std::map<std::string, std::deque<MonoTime>> starts;  ///< the rpm-limited key's attempt starts
  std::map<std::string, int> forbidden_hits;

  int violations = 0;
  int succeeded = 0;
  /// First attempts of session-less requests by channel, before the slow channel turns slow and
  /// in the second half of the run (sessions rightly stay on a slow but healthy key).
  std::map<std::string, int> first_attempts_early, first_attempts_late;
  int early_requests = 0, late_requests = 0;
  int request_index = 0;

  // Sessions: the key that last served each one, and the key that last failed it.
  std::map<int, std::string> session_key;
  std::map<int, std::string> session_failed_key;
  int session_stays = 0, session_stay_violations = 0, session_moves = 0, session_move_violations = 0;

  std::string const& channelName(PlannedCandidate const& c) { return settings.channels[c.channel].name; }
  config::ChannelKey const& keyOf(PlannedCandidate const& c) { return settings.channels[c.channel].keys[c.key]; }

  /// Whether the key is usable now by everything the simulation knows: nothing excludes it and
  /// nothing lowered it for everyone (no cooldown, no consecutive failure).
  bool healthyNow(PlannedCandidate const& c) {
    auto const& key = keyOf(c);
    if (health.pausedUntil(key.id, c.upstream_model) ||
        freezes.frozen(channelName(c), key.id, c.upstream_model))
      return false;
    RouterState::Snapshot snapshot(state);
    auto cs = snapshot.candidate(key, c.upstream_model);
    return !cs.exhausted && !cs.cooling && cs.consecutive_failures == 0;
  }

  /// One attempt, answered as the channel's script says; true on success.
  bool attempt(PlannedCandidate const& c, std::string const& session) {
    auto const& key = keyOf(c);
    auto const& channel = channelName(c);
    MonoTime now = clock.now();
    // Never an attempt on a key known to be exhausted, paused or frozen.
    if (auto it = storm_blocked_until.find(key.id); it != storm_blocked_until.end() && now < it->second) ++violations;
    if (frozen_keys.contains(key.id)) ++violations;
    if (key.limits.rpm) {
      auto& window = starts[key.id];
      while (!window.empty() && window.front() + 60s <= now) window.pop_front();
      if (static_cast<std::int64_t>(window.size()) >= *key.limits.rpm) ++violations;
      window.push_back(now);
    }

    state.attemptStarted(key.id, key, 500);
    AttemptReport report;
    report.channel = channel;
    report.key_id = key.id;
    report.upstream_model = c.upstream_model;
    report.session = session;
    report.tokens = 800;
    HeaderList headers;
    if (channel == "storm") {
      report.outcome = Outcome::RateLimited;
      headers.add("x-ratelimit-remaining-requests", "0");
      headers.add("x-ratelimit-reset-requests", "20s");
      health.pauseModel(key.id, c.upstream_model, KeyPause::RateLimited, kStormReset);
      storm_blocked_until[key.id] = now + kStormReset;
    } else if (channel == "forbidden") {
      report.outcome = Outcome::KeyRejected;
      ++forbidden_hits[key.id];
      freezes.apply(forbidden_rule, FreezeTarget{channel, key.id, key.label, c.upstream_model}, std::nullopt,
                    "status 403: forbidden");
      frozen_keys.insert(key.id);
    } else if (channel == "flaky" && upstream_rng.uniform() < 0.2) {
      report.outcome = Outcome::ServerError;
    } else {
      report.outcome = Outcome::Success;
      bool slow = channel == "slow" && request_index >= kSlowFrom;
      report.first_token = Millis(slow ? 2000 : channel == "flaky" ? 250 : 200);
    }
    report.headers = &headers;
    state.attemptFinished(report, key);
    return report.outcome == Outcome::Success;
  }

  void request(int i) {
    clock.advance(100ms);
    request_index = i;
    int session_id = i % 2 == 0 ? static_cast<int>(upstream_rng.below(kSessions)) : -1;
    RouteRequest request;
    request.model = "sim-model";
    request.strategy = config::Strategy::Intelligent;
    if (session_id >= 0) request.session = "session-" + std::to_string(session_id);
    auto plan = planRoute(*catalog, state, health, freezes, request, planner_rng);
    ASSERT_EQ(plan.status, RouteStatus::Ready) << "request " << i;
    auto const& first = plan.candidates.front();
    if (session_id < 0 && i < kSlowFrom) {
      ++first_attempts_early[channelName(first)];
      ++early_requests;
    } else if (session_id < 0 && i >= kRequests / 2) {
      ++first_attempts_late[channelName(first)];
      ++late_requests;
    }

    if (session_id >= 0) {
      // Sessions stay on their key while it is healthy, and move when it failed them.
      if (auto it = session_key.find(session_id); it != session_key.end()) {
        for (auto const& c : plan.candidates) {
          if (keyOf(c).id != it->second) continue;
          if (healthyNow(c)) {
            ++session_stays;
            session_stay_violations += keyOf(first).id != it->second;
          }
          break;
        }
      }
      if (auto it = session_failed_key.find(session_id); it != session_failed_key.end()) {
        ++session_moves;
        session_move_violations += keyOf(first).id == it->second;
        session_failed_key.erase(it);
      }
    }

    int attempts = 0;
    for (auto const& c : plan.candidates) {
      if (attempts++ == settings.retry.max_attempts) break;
      if (attempt(c, request.session)) {
        ++succeeded;
        if (session_id >= 0) session_key[session_id] = keyOf(c).id;
        return;
      }
      if (session_id >= 0 && session_key[session_id] == keyOf(c).id) session_failed_key[session_id] = keyOf(c).id;
    }
  }
};

TEST(RoutingSimulation, TenThousandRequestsOverFiveScriptedChannels) {
  Simulation sim;
  for (int i = 0; i < kRequests; ++i) {
    sim.request(i);
    if (::testing::Test::HasFatalFailure()) return;
  }

  EXPECT_EQ(sim.violations, 0) << "an attempt on an exhausted, paused or frozen key";

  // The 403 keys: one hit each, then frozen until the end of the UTC day.
  auto end_of_day = WallTime(std::chrono::seconds(1'700'006'400));  // 2023-11-15T00:00:00Z
  for (auto const& key : sim.settings.channels[2].keys) {
    EXPECT_EQ(sim.forbidden_hits[key.id], 1) << key.label;
    auto freeze = sim.freezes.frozen("forbidden", key.id, "sim-model");
    ASSERT_TRUE(freeze) << key.label;
    EXPECT_EQ(freeze->until, end_of_day);
  }

  // The slow channel's share of first attempts falls once its latency is known.
  double early_slow = sim.first_attempts_early["slow"] / double(sim.early_requests);
  double late_slow = sim.first_attempts_late["slow"] / double(sim.late_requests);
  EXPECT_GT(early_slow, 0.2);
  EXPECT_LT(late_slow, early_slow / 4) << early_slow << " then " << late_slow;
  EXPECT_GT(sim.first_attempts_late["healthy"], sim.first_attempts_late["slow"]);

  // Sessions keep their key while it is healthy and move when it failed them.
  EXPECT_GT(sim.session_stays, 1000);
  EXPECT_EQ(sim.session_stay_violations, 0);
  EXPECT_GT(sim.session_moves, 0);
  EXPECT_EQ(sim.session_move_violations, 0);

  // Clients see at least 99.9 % success while a healthy candidate exists.
  EXPECT_GE(sim.succeeded, kRequests * 999 / 1000) << sim.succeeded;

  std::printf("simulation: %d/%d succeeded; slow share %.3f then %.3f; sessions stayed %d, moved %d; "
              "cooldowns active %zu\n",
              sim.succeeded, kRequests, early_slow, late_slow, sim.session_stays, sim.session_moves,
              sim.state.cooldownsActive());
}

}  // namespace
}  // namespace llmux::routing
