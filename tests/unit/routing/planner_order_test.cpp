// planRoute's order over random pools (up to 30 channels of up to 40 keys, several priorities,
// translated and native rows, learned state, sessions): every plan follows its strategy's
// criteria as docs/routing.md states them, hop by hop, with no candidate twice.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "routing/freezes.h"
#include "routing/key_health.h"
#include "routing/planner.h"
#include "routing/rng.h"
#include "routing/router_state.h"
#include "settings_fixture.h"

namespace llmux::routing {
namespace {

using config::Strategy;

struct Gen {
  std::mt19937_64 engine;
  std::uint64_t below(std::uint64_t n) { return engine() % n; }
  bool chance(int percent) { return below(100) < static_cast<std::uint64_t>(percent); }
};

char const* const kProtocols[] = {"openai-chat", "openai-responses", "anthropic", "gemini"};

/// A pool serving "m" (some channels under an alias), with a fallback "f".
std::string poolYaml(Gen& g, int channels) {
  std::string y = "listen: 127.0.0.1:0\ngateway_keys:\n  - {name: dev, key: sk-dev}\nchannels:\n";
  for (int c = 0; c < channels; ++c) {
    y += "  - name: c" + std::to_string(c) + "\n    base_url: http://127.0.0.1:" + std::to_string(2000 + c) +
         "\n    protocol: " + kProtocols[g.below(4)] + "\n    priority: " + std::to_string(g.below(4)) + "\n";
    if (g.chance(30)) y += "    weight: " + std::to_string(1 + g.below(3)) + "\n";
    y += "    keys: [";
    int keys = 1 + static_cast<int>(g.below(g.chance(25) ? 40 : 6));
    for (int k = 0; k < keys; ++k) {
      y += (k ? ", " : "") + std::string("{key: s") + std::to_string(c) + "-" + std::to_string(k) +
           (g.chance(10) ? ", enabled: false" : "") + (g.chance(20) ? ", billing: per_request" : "") + "}";
    }
    y += "]\n";
    // Some channels send both names upstream as one (the fallback then lists none of them again).
    std::string upstream = "m-" + std::to_string(g.below(2));
    y += g.chance(30) ? "    model_map: {m: " + upstream + ", f: " + (g.chance(50) ? upstream : "m") + "}\n"
                      : "    models: [m, f]\n";
  }
  return y + "fallbacks:\n  m: [f]\n";
}

/// What the plan's order must respect, per strategy; returns the candidates checked.
std::size_t expectOrdered(Catalog const& catalog, RoutePlan const& plan, Strategy strategy, bool rotated) {
  auto const& settings = catalog.settings();
  std::set<std::tuple<std::size_t, std::size_t, std::string>> seen;
  for (auto const& c : plan.candidates) {
    EXPECT_TRUE(seen.emplace(c.channel, c.key, std::string(c.upstream_model)).second) << "listed twice";
  }
  for (std::size_t i = 1; i < plan.candidates.size(); ++i) {
    auto const& x = plan.candidates[i - 1];
    auto const& y = plan.candidates[i];
    EXPECT_LE(x.depth, y.depth) << "hops stay in order";
    if (x.depth != y.depth) continue;
    // Fast's exploration may move one candidate to the front of its hop.
    if (strategy == Strategy::Fast && (i == 1 || plan.candidates[i - 2].depth != x.depth)) continue;
    auto demoted = [](PlannedCandidate const& c) { return c.factors.cooldown == 0 || c.factors.affinity <= 0; };
    auto priority = [&](PlannedCandidate const& c) { return settings.channels[c.channel].priority; };
    auto tier = [&](PlannedCandidate const& c) { return std::make_tuple(demoted(c), -priority(c)); };
    switch (strategy) {
      case Strategy::Intelligent:
      case Strategy::Fast:
        EXPECT_LE(std::make_tuple(demoted(x), -priority(x), -x.factors.score, !x.passthrough),
                  std::make_tuple(demoted(y), -priority(y), -y.factors.score, !y.passthrough));
        break;
      case Strategy::Sequential:
        if (rotated) {
          EXPECT_LE(std::make_tuple(demoted(x), -priority(x), !x.passthrough),
                    std::make_tuple(demoted(y), -priority(y), !y.passthrough));
        } else {
          EXPECT_LT(std::make_tuple(demoted(x), -priority(x), !x.passthrough, x.channel, x.key),
                    std::make_tuple(demoted(y), -priority(y), !y.passthrough, y.channel, y.key));
        }
        break;
      case Strategy::Random: EXPECT_LE(tier(x), tier(y)); break;
      case Strategy::ModelRandom:
      case Strategy::GlobalRandom: EXPECT_LE(demoted(x), demoted(y)); break;
    }
  }
  // Random and model-random draw a channel, then its keys: a channel's candidates of one tier
  // come together.
  if (strategy == Strategy::Random || strategy == Strategy::ModelRandom) {
    std::set<std::tuple<int, bool, int, std::size_t>> closed;  // (depth, demoted, priority, channel)
    for (std::size_t i = 0; i < plan.candidates.size(); ++i) {
      auto const& c = plan.candidates[i];
      bool demoted = c.factors.cooldown == 0 || c.factors.affinity <= 0;
      int priority = strategy == Strategy::Random ? settings.channels[c.channel].priority : 0;
      auto group = std::make_tuple(c.depth, demoted, priority, c.channel);
      EXPECT_FALSE(closed.contains(group)) << "channel " << c.channel << " split";
      bool next_same = i + 1 < plan.candidates.size() && plan.candidates[i + 1].channel == c.channel &&
                       plan.candidates[i + 1].depth == c.depth;
      if (!next_same) closed.insert(group);
    }
  }
  return plan.candidates.size();
}

TEST(PlannerOrder, EveryStrategyFollowsItsCriteriaOverRandomPools) {
  Gen g{std::mt19937_64(99)};
  std::size_t checked = 0, largest = 0;
  for (int pool = 0; pool < 40; ++pool) {
    auto catalog = testing::catalogFrom(poolYaml(g, 1 + static_cast<int>(g.below(30))));
    ManualTimeSource clock;
    RouterState state(clock);
    KeyHealth health(clock);
    FreezeTable freezes(clock);
    Rng rng(static_cast<std::uint64_t>(pool));
    Rotation rotation;
    auto const& settings = catalog->settings();
    for (int round = 0; round < 12; ++round) {
      // Learned state: failures (some keys cool down), latencies, a session.
      for (int a = 0; a < 30; ++a) {
        auto const& channel = settings.channels[g.below(settings.channels.size())];
        auto const& key = channel.keys[g.below(channel.keys.size())];
        state.attemptStarted(key.id, key, 100);
        AttemptReport r;
        r.channel = channel.name;
        r.key_id = key.id;
        // upstreamModel may return its argument: the name must outlive the report.
        std::string const client_model = g.chance(50) ? "m" : "f";
        r.upstream_model = channel.upstreamModel(client_model);
        r.session = g.chance(30) ? "s" : "";
        r.outcome = g.chance(30) ? Outcome::ServerError : Outcome::Success;
        r.first_token = Millis(100 + static_cast<int>(g.below(2000)));
        state.attemptFinished(r, key);
      }
      clock.advance(std::chrono::seconds(g.below(20)));
      RouteRequest request;
      request.model = "m";
      request.client_protocol = static_cast<Protocol>(g.below(4));
      request.strategy = static_cast<Strategy>(g.below(6));
      request.session = g.chance(50) ? "s" : "";
      request.needs.prompt_tokens = static_cast<std::int64_t>(g.below(5000));
      bool rotated = g.chance(50);
      auto plan = planRoute(*catalog, state, health, freezes, request, rng, rotated ? &rotation : nullptr);
      checked += expectOrdered(*catalog, plan, request.strategy, rotated);
      largest = std::max(largest, plan.candidates.size());
    }
  }
  EXPECT_GT(checked, 20'000u);
  EXPECT_GT(largest, 256u) << "some hop holds more candidates than a prefix can number";
}

}  // namespace
}  // namespace llmux::routing
