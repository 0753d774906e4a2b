#include "telemetry/metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace llmux::telemetry {
namespace {

constexpr double kTestBuckets[] = {0.25, 1};
constexpr MetricSpec kTestSpecs[] = {
    {"t_requests_total",
     MetricType::Counter,
     {"route", "code"},
     kNoBuckets,
     "Requests served.\nSecond line with a \\ backslash."},
    {"t_in_flight", MetricType::Gauge, {}, kNoBuckets, "Requests in flight."},
    {"t_latency_seconds", MetricType::Histogram, {"channel"}, kTestBuckets, "Latency."},
    {"t_overhead_seconds", MetricType::Histogram, {}, kTestBuckets, "Overhead."},
};
constexpr MetricId kRequests{0};
constexpr MetricId kInFlight{1};
constexpr MetricId kLatency{2};
constexpr MetricId kOverhead{3};

TEST(Exposition, EmptyRegistryShowsEveryFamilyAndLabelFreeSamples) {
  MetricsRegistry registry(kTestSpecs);
  EXPECT_EQ(registry.renderPrometheus(),
            "# HELP t_requests_total Requests served.\\nSecond line with a \\\\ backslash.\n"
            "# TYPE t_requests_total counter\n"
            "# HELP t_in_flight Requests in flight.\n"
            "# TYPE t_in_flight gauge\n"
            "t_in_flight 0\n"
            "# HELP t_latency_seconds Latency.\n"
            "# TYPE t_latency_seconds histogram\n"
            "# HELP t_overhead_seconds Overhead.\n"
            "# TYPE t_overhead_seconds histogram\n"
            "t_overhead_seconds_bucket{le=\"0.25\"} 0\n"
            "t_overhead_seconds_bucket{le=\"1\"} 0\n"
            "t_overhead_seconds_bucket{le=\"+Inf\"} 0\n"
            "t_overhead_seconds_sum 0\n"
            "t_overhead_seconds_count 0\n");
}

TEST(Exposition, ExactTextWithLabelsEscapingAndHistograms) {
  MetricsRegistry registry(kTestSpecs);
  auto& requests = registry.counter(kRequests);
  requests.labels({"/v1/messages", "200"}).inc(3);
  requests.labels({"/v1/chat/completions", "429"}).inc();
  requests.labels({"we\"ird\\path\nx", "500"}).inc(2);
  registry.gauge(kInFlight).get().set(2.5);
  auto& latency = registry.histogram(kLatency).labels({"openai"});
  latency.observe(0.25);  // on a bound: "le" is inclusive
  latency.observe(0.5);
  latency.observe(7);
  registry.histogram(kOverhead).get().observe(0.125);

  EXPECT_EQ(registry.renderPrometheus(),
            "# HELP t_requests_total Requests served.\\nSecond line with a \\\\ backslash.\n"
            "# TYPE t_requests_total counter\n"
            "t_requests_total{route=\"/v1/chat/completions\",code=\"429\"} 1\n"
            "t_requests_total{route=\"/v1/messages\",code=\"200\"} 3\n"
            "t_requests_total{route=\"we\\\"ird\\\\path\\nx\",code=\"500\"} 2\n"
            "# HELP t_in_flight Requests in flight.\n"
            "# TYPE t_in_flight gauge\n"
            "t_in_flight 2.5\n"
            "# HELP t_latency_seconds Latency.\n"
            "# TYPE t_latency_seconds histogram\n"
            "t_latency_seconds_bucket{channel=\"openai\",le=\"0.25\"} 1\n"
            "t_latency_seconds_bucket{channel=\"openai\",le=\"1\"} 2\n"
            "t_latency_seconds_bucket{channel=\"openai\",le=\"+Inf\"} 3\n"
            "t_latency_seconds_sum{channel=\"openai\"} 7.75\n"
            "t_latency_seconds_count{channel=\"openai\"} 3\n"
            "# HELP t_overhead_seconds Overhead.\n"
            "# TYPE t_overhead_seconds histogram\n"
            "t_overhead_seconds_bucket{le=\"0.25\"} 1\n"
            "t_overhead_seconds_bucket{le=\"1\"} 1\n"
            "t_overhead_seconds_bucket{le=\"+Inf\"} 1\n"
            "t_overhead_seconds_sum 0.125\n"
            "t_overhead_seconds_count 1\n");
}

TEST(Exposition, SpecialNumbers) {
  std::string out;
  appendPrometheusNumber(out, std::numeric_limits<double>::infinity());
  out += ' ';
  appendPrometheusNumber(out, -std::numeric_limits<double>::infinity());
  out += ' ';
  appendPrometheusNumber(out, std::nan(""));
  out += ' ';
  appendPrometheusNumber(out, 0.00001);
  out += ' ';
  appendPrometheusNumber(out, 42);
  EXPECT_EQ(out, "+Inf -Inf NaN 1e-05 42");
}

TEST(Families, SameLabelsResolveToTheSameChild) {
  MetricsRegistry registry(kTestSpecs);
  auto& family = registry.counter(kRequests);
  Counter& a = family.labels({"/a", "200"});
  Counter& b = family.labels({"/a", "200"});
  Counter& c = family.labels({"/a", "201"});
  EXPECT_EQ(&a, &b);
  EXPECT_NE(&a, &c);
  // Label values are compared whole: ("ab","c") and ("a","bc") are different sets.
  EXPECT_NE(&family.labels({"ab", "c"}), &family.labels({"a", "bc"}));
  EXPECT_EQ(family.snapshot().size(), 4u);
}

TEST(Families, ARegistryNeverSeesTheChildrenOfAnEarlierOneResolvedOnThisThread) {
  // The thread's cache of resolved label sets outlives registries; a new family (often at the
  // address of the one just destroyed) must start from zero, and from its own children.
  for (int round = 0; round < 3; ++round) {
    MetricsRegistry registry(kTestSpecs);
    auto& family = registry.counter(kRequests);
    EXPECT_EQ(family.labels({"/a", "200"}).value(), 0u) << "round " << round;
    family.labels({"/a", "200"}).inc(5);
    EXPECT_EQ(family.labels({"/a", "200"}).value(), 5u);
    EXPECT_EQ(family.snapshot().size(), 1u);
  }
}

TEST(Families, ManyLabelSetsSharingCacheSlotsStayDistinct) {
  MetricsRegistry registry(kTestSpecs);
  auto& family = registry.counter(kRequests);
  constexpr int kSets = 2000;  // far more than the thread's cache holds
  for (int pass = 1; pass <= 3; ++pass) {
    for (int i = 0; i < kSets; ++i) family.labels({"/r" + std::to_string(i), "200"}).inc();
  }
  for (int i = 0; i < kSets; ++i) {
    ASSERT_EQ(family.labels({"/r" + std::to_string(i), "200"}).value(), 3u) << i;
  }
  EXPECT_EQ(family.snapshot().size(), std::size_t{kSets});
}

TEST(Families, CounterAdvanceToNeverGoesBackwards) {
  Counter c;
  c.advanceTo(10);
  EXPECT_EQ(c.value(), 10u);
  c.advanceTo(4);
  EXPECT_EQ(c.value(), 10u);
  c.inc();
  EXPECT_EQ(c.value(), 11u);
}

TEST(Families, HistogramBucketsAndNan) {
  Histogram h(kTestBuckets);
  h.observe(-1);
  h.observe(1);
  h.observe(1.0000001);
  h.observe(std::nan(""));
  EXPECT_EQ(h.bucketCount(0), 1u);
  EXPECT_EQ(h.bucketCount(1), 1u);
  EXPECT_EQ(h.bucketCount(2), 2u);
  EXPECT_EQ(h.count(), 4u);
}

TEST(Registry, RejectsInvalidCatalogs) {
  static constexpr MetricSpec kDuplicate[] = {
      {"x_total", MetricType::Counter, {}, kNoBuckets, "a"},
      {"x_total", MetricType::Gauge, {}, kNoBuckets, "b"},
  };
  static constexpr MetricSpec kLeLabel[] = {
      {"x_seconds", MetricType::Histogram, {"le"}, kTestBuckets, "a"},
  };
  static constexpr MetricSpec kBadName[] = {
      {"x-total", MetricType::Counter, {}, kNoBuckets, "a"},
  };
  EXPECT_THROW(MetricsRegistry{kDuplicate}, std::invalid_argument);
  EXPECT_THROW(MetricsRegistry{kLeLabel}, std::invalid_argument);
  EXPECT_THROW(MetricsRegistry{kBadName}, std::invalid_argument);
  EXPECT_FALSE(isValidMetricName("__reserved", true));
  EXPECT_TRUE(isValidMetricName("llmux:rate_5m"));
  EXPECT_FALSE(isValidMetricName("llmux:rate_5m", true));
}

TEST(Concurrency, IncrementsFromSeveralThreadsAllCount) {
  MetricsRegistry registry(kTestSpecs);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 50'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&registry, t] {
      auto& family = registry.counter(kRequests);
      Counter& cached = family.labels({"/shared", "200"});
      auto& latency = registry.histogram(kLatency);
      for (int i = 0; i < kPerThread; ++i) {
        cached.inc();
        // Resolving on every call, including label sets other threads create concurrently.
        family.labels({"/route-" + std::to_string(i % 37), "200"}).inc();
        latency.labels({i % 2 == 0 ? "a" : "b"}).observe(t % 2 == 0 ? 0.1 : 5);
        registry.gauge(kInFlight).get().inc();
        registry.gauge(kInFlight).get().dec();
      }
    });
  }
  for (auto& th : threads) th.join();

  auto& family = registry.counter(kRequests);
  EXPECT_EQ(family.labels({"/shared", "200"}).value(), std::uint64_t{kThreads} * kPerThread);
  std::uint64_t routed = 0;
  std::set<std::string> routes;
  for (auto const& entry : family.snapshot()) {
    if ((*entry.values)[0] == "/shared") continue;
    routed += entry.child->value();
    routes.insert((*entry.values)[0]);
  }
  EXPECT_EQ(routed, std::uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(routes.size(), 37u);

  auto& latency = registry.histogram(kLatency);
  std::uint64_t observations = 0;
  double sum = 0;
  for (char const* channel : {"a", "b"}) {
    observations += latency.labels({channel}).count();
    sum += latency.labels({channel}).sum();
  }
  EXPECT_EQ(observations, std::uint64_t{kThreads} * kPerThread);
  EXPECT_NEAR(sum, kThreads / 2 * kPerThread * (0.1 + 5), 1e-3);
  EXPECT_EQ(registry.gauge(kInFlight).get().value(), 0);
}

TEST(GatewayCatalog, DeclaresTheMetricsTheGatewayNeeds) {
  MetricsRegistry registry;
  std::string text = registry.renderPrometheus();
  for (char const* line : {
           "# TYPE llmux_requests_total counter",
           "# TYPE llmux_upstream_attempts_total counter",
           "# TYPE llmux_failovers_total counter",
           "# TYPE llmux_upstream_first_byte_seconds histogram",
           "# TYPE llmux_upstream_duration_seconds histogram",
           "# TYPE llmux_requests_in_flight gauge",
           "# TYPE llmux_gateway_overhead_seconds histogram",
           "# TYPE llmux_request_bytes_total counter",
           "# TYPE llmux_config_reloads_total counter",
           "llmux_requests_in_flight 0",
           "llmux_gateway_overhead_seconds_bucket{le=\"1e-05\"} 0",
           "llmux_gateway_overhead_seconds_bucket{le=\"0.1\"} 0",
       }) {
    EXPECT_NE(text.find(std::string(line) + "\n"), std::string::npos) << line;
  }
  auto const& requests = gatewayMetric(MetricId::RequestsTotal);
  EXPECT_EQ(requests.labelCount(), 4u);
  EXPECT_EQ(requests.labels[3], "channel");
  EXPECT_EQ(gatewayMetric(MetricId::UpstreamAttemptsTotal).labels[1], "outcome");
}

}  // namespace
}  // namespace llmux::telemetry
