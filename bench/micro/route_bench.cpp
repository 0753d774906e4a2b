// llmux-route-bench: what planning a request costs (planRoute over 100 candidates: 20 channels ×
// 5 keys serving one model, every key with learned statistics and a session), for the
// intelligent and the sequential strategies. Prints the median and p99 per plan with the target.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "config/loader.h"
#include "routing/catalog.h"
#include "routing/freezes.h"
#include "routing/key_health.h"
#include "routing/planner.h"
#include "routing/rng.h"
#include "routing/router_state.h"

namespace llmux::bench {
namespace {

using routing::RouteRequest;

constexpr int kChannels = 20;
constexpr int kKeys = 5;
constexpr double kTargetMicros = 5.0;

std::string poolYaml() {
  std::string yaml = "listen: 127.0.0.1:0\ngateway_keys:\n  - {name: dev, key: sk-dev}\nchannels:\n";
  for (int c = 0; c < kChannels; ++c) {
    yaml += "  - name: channel-" + std::to_string(c) + "\n    protocol: " +
            (c % 4 == 3 ? "anthropic" : "openai-chat") + "\n    base_url: http://127.0.0.1:" +
            std::to_string(1000 + c) + "\n    priority: " + std::to_string(c % 3) + "\n    keys: [";
    for (int k = 0; k < kKeys; ++k) {
      yaml += (k ? ", " : "") + std::string("{key: sk-") + std::to_string(c) + "-" + std::to_string(k) +
              (k == 0 ? ", rpm: 100000, daily_quota: 100000000" : "") + "}";
    }
    yaml += "]\n    models: [claude-sonnet-4-5]\n";
    if (c % 2) yaml += "    model_map: {claude-sonnet-4-5: claude-sonnet-4-5-20250929}\n";
  }
  return yaml;
}

struct Figures {
  double median, p99;
};

Figures measure(routing::Catalog const& catalog, routing::RouterState const& state,
                routing::KeyHealth const& health, routing::FreezeTable const& freezes,
                RouteRequest const& request) {
  routing::Rng rng(1);
  constexpr int kBatch = 100, kSamples = 2000;
  std::size_t sink = 0;
  for (int i = 0; i < 2000; ++i) sink += planRoute(catalog, state, health, freezes, request, rng).candidates.size();
  std::vector<double> samples;
  samples.reserve(kSamples);
  for (int s = 0; s < kSamples; ++s) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) {
      sink += planRoute(catalog, state, health, freezes, request, rng).candidates.size();
    }
    auto elapsed = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start);
    samples.push_back(elapsed.count() / kBatch);
  }
  if (sink != static_cast<std::size_t>(kChannels * kKeys) * (2000 + kBatch * kSamples)) {
    std::fprintf(stderr, "unexpected candidate count\n");
  }
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[samples.size() * 99 / 100]};
}

int run() {
  auto outcome = config::parseSettings(poolYaml(), [](std::string_view) { return std::nullopt; });
  if (!outcome.ok()) {
    std::fprintf(stderr, "%s\n", config::formatIssues(outcome.issues).c_str());
    return 1;
  }
  routing::Catalog catalog(outcome.settings);
  RealTimeSource clock;
  routing::RouterState state(clock);
  routing::KeyHealth health(clock);
  routing::FreezeTable freezes(clock);

  // Learned state for every candidate: a few attempts each, one session.
  for (auto const& channel : catalog.settings().channels) {
    for (std::size_t k = 0; k < channel.keys.size(); ++k) {
      auto const& key = channel.keys[k];
      for (int i = 0; i < 5; ++i) {
        state.attemptStarted(key.id, key, 1000);
        routing::AttemptReport report;
        report.channel = channel.name;
        report.key_id = key.id;
        report.upstream_model = channel.upstreamModel("claude-sonnet-4-5");
        report.session = k == 0 && i == 4 ? "bench-session" : "";
        report.outcome = (i + k) % 4 == 0 ? routing::Outcome::ServerError : routing::Outcome::Success;
        report.first_token = Millis(200 + 37 * static_cast<int>(k));
        report.tokens = 1500;
        state.attemptFinished(report, key);
      }
    }
  }

  RouteRequest request;
  request.client_protocol = Protocol::OpenAiChat;
  request.model = "claude-sonnet-4-5";
  request.session = "bench-session";
  request.needs.prompt_tokens = 3000;
  std::printf("planRoute over %d candidates (%d channels x %d keys), microseconds per plan\n",
              kChannels * kKeys, kChannels, kKeys);
  std::printf("%-12s %8s %8s %8s\n", "strategy", "median", "p99", "target");
  for (auto strategy : {config::Strategy::Intelligent, config::Strategy::Sequential}) {
    request.strategy = strategy;
    auto figures = measure(catalog, state, health, freezes, request);
    std::printf("%-12s %8.2f %8.2f %8s %s\n", std::string(config::strategyName(strategy)).c_str(),
                figures.median, figures.p99, ("<= " + std::to_string(static_cast<int>(kTargetMicros))).c_str(),
                figures.median <= kTargetMicros ? "PASS" : "MISS");
  }
  return 0;
}

}  // namespace
}  // namespace llmux::bench

int main() { return llmux::bench::run(); }
