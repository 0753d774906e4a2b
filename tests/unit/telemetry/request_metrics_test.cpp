#include "telemetry/request_metrics.h"

#include <gtest/gtest.h>

#include <string>

#include "telemetry/client_outcome.h"

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

/// A request for a model that ended with `status` (and `error`).
RequestRecord recordWith(int status, std::string error = {}) {
  RequestRecord r;
  r.route = "/v1/chat/completions";
  r.client_protocol = "openai-chat";
  r.model = "gpt-4o";
  r.status = status;
  r.error = std::move(error);
  return r;
}

AttemptRecord attemptWith(AttemptOutcome outcome, int status) {
  AttemptRecord a;
  a.channel = "c";
  a.status = status;
  a.outcome = std::move(outcome);
  return a;
}

TEST(ClientOutcome, StatusDecidesWithoutAttempts) {
  EXPECT_EQ(clientOutcomeOf(recordWith(200)), ClientOutcome::Success);
  EXPECT_EQ(clientOutcomeOf(recordWith(499, "client_gone")), ClientOutcome::Cancelled);
  EXPECT_EQ(clientOutcomeOf(recordWith(401, "invalid API key")), ClientOutcome::Rejected);
  EXPECT_EQ(clientOutcomeOf(recordWith(400, "bad")), ClientOutcome::Rejected);
  EXPECT_EQ(clientOutcomeOf(recordWith(404)), ClientOutcome::Rejected);
  EXPECT_EQ(clientOutcomeOf(recordWith(503, "breakers")), ClientOutcome::Failed);
  EXPECT_EQ(clientOutcomeOf(recordWith(504)), ClientOutcome::Failed);
  EXPECT_EQ(clientOutcomeOf(recordWith(0)), ClientOutcome::Failed);
  // Every upstream key throttled: the service's failure; the key's own limits: the client's.
  EXPECT_EQ(clientOutcomeOf(recordWith(429)), ClientOutcome::Failed);
  RequestRecord limited = recordWith(429);
  limited.over_limit = true;
  EXPECT_EQ(clientOutcomeOf(limited), ClientOutcome::Rejected);
}

TEST(ClientOutcome, AttemptsDecideBeforeTheStatus) {
  RequestRecord relayed_failure = recordWith(500);
  relayed_failure.attempts = {attemptWith(AttemptOutcome::failover("status_429"), 429),
                              attemptWith(AttemptOutcome::failed("status_500"), 500)};
  EXPECT_EQ(clientOutcomeOf(relayed_failure), ClientOutcome::Failed);

  RequestRecord upstream_4xx = recordWith(401);  // a channel's bad key relayed: not the client's
  upstream_4xx.attempts = {attemptWith(AttemptOutcome::failed("status_401"), 401)};
  EXPECT_EQ(clientOutcomeOf(upstream_4xx), ClientOutcome::Failed);

  RequestRecord overflow = recordWith(400, "context too long");
  overflow.attempts = {attemptWith(AttemptOutcome::clientError(), 400)};
  EXPECT_EQ(clientOutcomeOf(overflow), ClientOutcome::Rejected);

  RequestRecord in_stream_client_error = recordWith(200, "context too long");
  in_stream_client_error.attempts = {attemptWith(AttemptOutcome::clientError(), 200)};
  EXPECT_EQ(clientOutcomeOf(in_stream_client_error), ClientOutcome::Rejected);

  RequestRecord broke = recordWith(200, "upstream_broke_mid_stream");
  broke.attempts = {attemptWith(AttemptOutcome::failed("mid_stream"), 200)};
  EXPECT_EQ(clientOutcomeOf(broke), ClientOutcome::Failed);

  RequestRecord gone = recordWith(200);
  gone.attempts = {attemptWith(AttemptOutcome::cancelled(), 200)};
  EXPECT_EQ(clientOutcomeOf(gone), ClientOutcome::Cancelled);

  RequestRecord failed_over = recordWith(200);
  failed_over.attempts = {attemptWith(AttemptOutcome::failover("status_503"), 503),
                          attemptWith(AttemptOutcome::ok(), 200)};
  EXPECT_EQ(clientOutcomeOf(failed_over), ClientOutcome::Success);

  // A race's losing branch may be listed after the winner.
  RequestRecord raced = recordWith(200);
  raced.attempts = {attemptWith(AttemptOutcome::racingWon(), 200),
                    attemptWith(AttemptOutcome::failover("timeout_first_token"), 0)};
  EXPECT_EQ(clientOutcomeOf(raced), ClientOutcome::Success);
}

TEST(RequestMetrics, ClientOutcomesAreCountedAndOnlySuccessesFeedLatency) {
  MetricsRegistry registry;
  RequestMetrics metrics(registry);
  RequestRecord fast = recordWith(200);
  fast.stream = true;
  fast.first_byte_ms = 800;
  fast.total_ms = 2000;
  metrics.observe(fast);
  RequestRecord whole = recordWith(200);  // not streamed: no first token, a duration
  whole.first_byte_ms = 5000;
  whole.total_ms = 5000;
  metrics.observe(whole);
  RequestRecord failed = recordWith(502, "bad gateway");
  failed.stream = true;
  failed.first_byte_ms = 1;  // a fast failure must not look like a fast answer
  metrics.observe(failed);
  metrics.observe(recordWith(499, "client_gone"));
  RequestRecord no_model = recordWith(401);
  no_model.model.clear();  // refused before its body was read: in no denominator
  metrics.observe(no_model);

  std::string text = registry.renderPrometheus();
  EXPECT_TRUE(hasLine(text, "llmux_client_requests_total{outcome=\"success\"} 2"));
  EXPECT_TRUE(hasLine(text, "llmux_client_requests_total{outcome=\"failed\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_client_requests_total{outcome=\"cancelled\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_client_requests_total{outcome=\"rejected\"} 0"));
  EXPECT_TRUE(hasLine(text, "llmux_client_first_token_seconds_count 1"));
  EXPECT_TRUE(hasLine(text, "llmux_client_first_token_seconds_bucket{le=\"0.75\"} 0"));
  EXPECT_TRUE(hasLine(text, "llmux_client_first_token_seconds_bucket{le=\"1\"} 1"));
  EXPECT_TRUE(hasLine(text, "llmux_client_duration_seconds_count 2"));
  EXPECT_TRUE(hasLine(text, "llmux_client_duration_seconds_sum 7"));
}

}  // namespace
}  // namespace llmux::telemetry
