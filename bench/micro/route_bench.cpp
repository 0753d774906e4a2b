// llmux-route-bench: what planning a request costs (planRoute over 100 candidates: 20 channels ×
// 5 keys serving one model, every key with learned statistics and a session), for the
// intelligent and the sequential strategies. Prints the median and p99 per plan with the target
// (wall time, the judged figure) and the median thread CPU time (what the plan costs when the
// shared machine lets it run); `--json FILE` writes the figures for bench/run.
#include <time.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
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

struct Options {
  int samples = 2000;  ///< timed batches per strategy
  int batch = 100;     ///< plans per timed batch
  std::vector<std::string> strategies{"intelligent", "sequential"};
  std::string json_path;
};

struct Figures {
  std::string strategy;
  double median, p99, cpu_median;  ///< microseconds per plan
};

double threadCpuMicros() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

double percentile(std::vector<double>& sorted, double share) {
  return sorted[std::min(sorted.size() - 1, static_cast<std::size_t>(static_cast<double>(sorted.size()) * share))];
}

Figures measure(routing::Catalog const& catalog, routing::RouterState const& state,
                routing::KeyHealth const& health, routing::FreezeTable const& freezes,
                RouteRequest const& request, Options const& opt) {
  routing::Rng rng(1);
  constexpr int kWarmUp = 2000;
  std::size_t sink = 0;
  for (int i = 0; i < kWarmUp; ++i) sink += planRoute(catalog, state, health, freezes, request, rng).candidates.size();
  std::vector<double> wall, cpu;
  wall.reserve(static_cast<std::size_t>(opt.samples));
  cpu.reserve(static_cast<std::size_t>(opt.samples));
  for (int s = 0; s < opt.samples; ++s) {
    auto start = std::chrono::steady_clock::now();
    double cpu_start = threadCpuMicros();
    for (int i = 0; i < opt.batch; ++i) {
      sink += planRoute(catalog, state, health, freezes, request, rng).candidates.size();
    }
    cpu.push_back((threadCpuMicros() - cpu_start) / opt.batch);
    auto elapsed = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start);
    wall.push_back(elapsed.count() / opt.batch);
  }
  auto plans = static_cast<std::size_t>(kWarmUp) + static_cast<std::size_t>(opt.batch) * static_cast<std::size_t>(opt.samples);
  if (sink != static_cast<std::size_t>(kChannels * kKeys) * plans) {
    std::fprintf(stderr, "unexpected candidate count\n");
  }
  std::sort(wall.begin(), wall.end());
  std::sort(cpu.begin(), cpu.end());
  return {std::string(config::strategyName(request.strategy)), percentile(wall, 0.5), percentile(wall, 0.99),
          percentile(cpu, 0.5)};
}

void writeJson(std::string const& path, Options const& opt, std::vector<Figures> const& figures) {
  std::ofstream out(path);
  out << "{\"candidates\": " << kChannels * kKeys << ", \"channels\": " << kChannels << ", \"keys\": " << kKeys
      << ", \"target_us\": " << kTargetMicros << ", \"samples\": " << opt.samples << ", \"batch\": " << opt.batch
      << ", \"strategies\": [";
  for (std::size_t i = 0; i < figures.size(); ++i) {
    auto const& f = figures[i];
    out << (i ? ", " : "") << "{\"name\": \"" << f.strategy << "\", \"median_us\": " << f.median
        << ", \"p99_us\": " << f.p99 << ", \"cpu_median_us\": " << f.cpu_median << "}";
  }
  out << "]}\n";
}

int run(Options const& opt) {
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
  std::printf("%-12s %8s %8s %8s %8s\n", "strategy", "median", "p99", "cpu", "target");
  std::vector<Figures> all;
  for (auto const& name : opt.strategies) {
    auto strategy = config::parseStrategy(name);
    if (!strategy) {
      std::fprintf(stderr, "unknown strategy '%s'\n", name.c_str());
      return 2;
    }
    request.strategy = *strategy;
    auto const& f = all.emplace_back(measure(catalog, state, health, freezes, request, opt));
    std::printf("%-12s %8.2f %8.2f %8.2f %8s %s\n", f.strategy.c_str(), f.median, f.p99, f.cpu_median,
                ("<= " + std::to_string(static_cast<int>(kTargetMicros))).c_str(),
                f.median <= kTargetMicros ? "PASS" : "MISS");
  }
  if (!opt.json_path.empty()) writeJson(opt.json_path, opt, all);
  return 0;
}

}  // namespace
}  // namespace llmux::bench

int main(int argc, char** argv) {
  llmux::bench::Options opt;
  CLI::App cli{"llmux routing micro-benchmark: planRoute over 100 candidates, microseconds per plan"};
  cli.add_option("--samples", opt.samples, "timed batches per strategy")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--batch", opt.batch, "plans per timed batch")->capture_default_str()->check(CLI::PositiveNumber);
  cli.add_option("--strategy", opt.strategies, "strategies to measure (repeatable)")->capture_default_str();
  cli.add_option("--json", opt.json_path, "also write the figures as JSON to this file");
  CLI11_PARSE(cli, argc, argv);
  return llmux::bench::run(opt);
}
