#include "telemetry/request_metrics.h"

#include <gtest/gtest.h>

#include <string>

namespace llmux::telemetry {
namespace {

RequestRecord failedOverRecord() {
  RequestRecord r;
  r.request_id = "r1";
  r.route = "/v1/chat/completions";
  r.client_protocol = "openai-chat";
  r.status = 200;
  r.channel = "backup";
  r.attempts.push_back({"primary", "primary#0", "gpt-4o", 429, AttemptOutcome::failover("status_429"), 40, 41});
  r.attempts.push_back({"slow", "slow#1", "gpt-4o", 0, AttemptOutcome::failover("timeout_first_byte"), -1, 3000});
  r.attempts.push_back({"backup", "backup#0", "gpt-4o", 200, AttemptOutcome::ok(), 200, 1500, "anthropic", true});
  r.model = "gpt-4o";
  r.usage = TokenUsage{.input = 500, .cache_read = 400, .output = 60, .reasoning = 20,
                       .estimated = true};
  r.overhead_ms = 0.03;
  r.bytes_in = 120;
  r.bytes_out = 4000;
  return r;
}

bool hasLine(std::string const& text, std::string const& line) {
  return text.find(line + "\n") != std::string::npos;
}

TEST(RequestMetrics, OneRecordFeedsEveryFamily) {
  MetricsRegistry registry;
  RequestMetrics metrics(registry);
  metrics.observe(failedOverRecord());
  RequestRecord rejected;
  rejected.route = "/v1/messages";
  rejected.client_protocol = "anthropic";
  rejected.status = 401;
  rejected.bytes_in = 5;
  metrics.observe(rejected);
  metrics.configReloaded(true);
  metrics.configReloaded(false);
  metrics.configReloaded(true);

  std::string text = registry.renderPrometheus();
  EXPECT_TRUE(
      hasLine(text,
              "llmux_requests_total{route=\"/v1/chat/completions\",protocol=\"openai-chat\","
              "status=\"200\",channel=\"backup\"} 1"));
  EXPECT_TRUE(hasLine(text,
                      "llmux_requests_total{route=\"/v1/messages\",protocol=\"anthropic\","
                      "status=\"401\",channel=\"\"} 1"));
  EXPECT_TRUE(
      hasLine(text, "llmux_upstream_attempts_total{channel=\"primary\",outcome=\"status_429\"} 1"));
  EXPECT_TRUE(hasLine(
      text, "llmux_upstream_attempts_total{channel=\"slow\",outcome=\"timeout_first_byte\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_upstream_attempts_total{channel=\"backup\",outcome=\"ok\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_failovers_total{reason=\"status_429\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_failovers_total{reason=\"timeout_first_byte\"} 1"));
  // No response head from "slow": no first-byte observation, but a duration one.
  EXPECT_EQ(text.find("llmux_upstream_first_byte_seconds_count{channel=\"slow\"}"),
            std::string::npos);
  EXPECT_TRUE(hasLine(text, "llmux_upstream_duration_seconds_count{channel=\"slow\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_upstream_duration_seconds_sum{channel=\"slow\"} 3"));
  EXPECT_TRUE(
      hasLine(text, "llmux_upstream_first_byte_seconds_bucket{channel=\"backup\",le=\"0.1\"} 0"));
  EXPECT_TRUE(
      hasLine(text, "llmux_upstream_first_byte_seconds_bucket{channel=\"backup\",le=\"0.25\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_gateway_overhead_seconds_bucket{le=\"2.5e-05\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_gateway_overhead_seconds_bucket{le=\"5e-05\"} 2"));
  EXPECT_TRUE(hasLine(text, "llmux_gateway_overhead_seconds_count 2"));
  EXPECT_TRUE(hasLine(text, "llmux_request_bytes_total{direction=\"in\"} 125"));
  EXPECT_TRUE(hasLine(text, "llmux_request_bytes_total{direction=\"out\"} 4000"));
  EXPECT_TRUE(hasLine(text, "llmux_config_reloads_total{result=\"error\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_config_reloads_total{result=\"ok\"} 2"));
  EXPECT_TRUE(hasLine(
      text, "llmux_tokens_total{channel=\"backup\",model=\"gpt-4o\",kind=\"input\"} 500"));
  EXPECT_TRUE(hasLine(
      text, "llmux_tokens_total{channel=\"backup\",model=\"gpt-4o\",kind=\"cache_read\"} 400"));
  EXPECT_TRUE(hasLine(
      text, "llmux_tokens_total{channel=\"backup\",model=\"gpt-4o\",kind=\"output\"} 60"));
  EXPECT_TRUE(hasLine(
      text, "llmux_tokens_total{channel=\"backup\",model=\"gpt-4o\",kind=\"reasoning\"} 20"));
  EXPECT_EQ(text.find("kind=\"cache_write\""), std::string::npos) << "zero counts are not added";
  EXPECT_TRUE(hasLine(text, "llmux_usage_estimated_total{channel=\"backup\"} 1"));
  EXPECT_TRUE(hasLine(
      text, "llmux_translated_attempts_total{from=\"openai-chat\",to=\"anthropic\"} 1"));
}

TEST(RequestMetrics, InFlightGaugeIsTheRegistrysOne) {
  MetricsRegistry registry;
  RequestMetrics metrics(registry);
  metrics.inFlight().inc();
  metrics.inFlight().inc();
  metrics.inFlight().dec();
  EXPECT_EQ(registry.gauge(MetricId::RequestsInFlight).get().value(), 1);
  EXPECT_TRUE(hasLine(registry.renderPrometheus(), "llmux_requests_in_flight 1"));
}

TEST(RequestMetrics, OutcomeLabels) {
  AttemptOutcome const ok = AttemptOutcome::ok();
  AttemptOutcome const failover = AttemptOutcome::failover("status_503");
  AttemptOutcome const failed = AttemptOutcome::failed("connect");
  AttemptOutcome const client_error = AttemptOutcome::clientError();
  EXPECT_EQ(attemptOutcomeLabel(ok), "ok");
  EXPECT_EQ(attemptOutcomeLabel(failover), "status_503");
  EXPECT_EQ(attemptOutcomeLabel(failed), "connect");
  EXPECT_EQ(attemptOutcomeLabel(client_error), "client_error");
  EXPECT_EQ(attemptOutcomeLabel(AttemptOutcome::cancelled()), "cancelled");
  EXPECT_EQ(failoverReason(AttemptOutcome::failover("connect")), "connect");
  EXPECT_EQ(failoverReason(failed), "");
  EXPECT_EQ(failoverReason(ok), "");
}

}  // namespace
}  // namespace llmux::telemetry
