#include "telemetry/request_metrics.h"

#include <algorithm>
#include <charconv>

#include "telemetry/client_outcome.h"

namespace llmux::telemetry {
namespace {


}  // namespace

RequestMetrics::RequestMetrics(MetricsRegistry& registry)
    : requests_(registry.counter(MetricId::RequestsTotal)),
      by_client_(registry.counter(MetricId::RequestsByClientTotal)),
      attempts_(registry.counter(MetricId::UpstreamAttemptsTotal)),
      failovers_(registry.counter(MetricId::FailoversTotal)),
      tokens_(registry.counter(MetricId::TokensTotal)),
      usage_estimated_(registry.counter(MetricId::UsageEstimatedTotal)),
      translated_(registry.counter(MetricId::TranslatedAttemptsTotal)),
      outcome_classes_(registry.counter(MetricId::AttemptOutcomesTotal)),
      fallback_depths_(registry.counter(MetricId::FallbackAttemptsTotal)),
      first_byte_(registry.histogram(MetricId::UpstreamFirstByteSeconds)),
      duration_(registry.histogram(MetricId::UpstreamDurationSeconds)),
      in_flight_(registry.gauge(MetricId::RequestsInFlight).get()),
      overhead_(registry.histogram(MetricId::GatewayOverheadSeconds).get()),
      bytes_in_(registry.counter(MetricId::RequestBytesTotal).labels({"in"})),
      bytes_out_(registry.counter(MetricId::RequestBytesTotal).labels({"out"})),
      reloads_ok_(registry.counter(MetricId::ConfigReloadsTotal).labels({"ok"})),
      reloads_error_(registry.counter(MetricId::ConfigReloadsTotal).labels({"error"})),
      client_outcomes_{},
      client_first_token_(registry.histogram(MetricId::ClientFirstTokenSeconds).get()),
      client_duration_(registry.histogram(MetricId::ClientDurationSeconds).get()) {
  auto& outcomes = registry.counter(MetricId::ClientRequestsTotal);
  for (auto outcome : {ClientOutcome::Success, ClientOutcome::Failed, ClientOutcome::Cancelled,
                       ClientOutcome::Rejected}) {
    client_outcomes_[static_cast<std::size_t>(outcome)] =
        &outcomes.labels({clientOutcomeName(outcome)});
  }
}

void RequestMetrics::observe(RequestRecord const& record) {
  char status_buf[12];
  auto [end, ec] = std::to_chars(status_buf, status_buf + sizeof status_buf, record.status);
  std::string_view status(status_buf,
                          ec == std::errc{} ? static_cast<std::size_t>(end - status_buf) : 0);
  requests_.labels({record.route, record.client_protocol, status, record.channel}).inc();
  if (!record.client.empty()) by_client_.labels({record.client}).inc();

  for (AttemptRecord const& attempt : record.attempts) {
    attempts_.labels({attempt.channel, attemptOutcomeLabel(attempt.outcome)}).inc();
    std::string_view reason = failoverReason(attempt.outcome);
    if (!reason.empty()) failovers_.labels({reason}).inc();
    if (attempt.first_byte_ms >= 0)
      first_byte_.labels({attempt.channel}).observe(attempt.first_byte_ms / 1000.0);
    duration_.labels({attempt.channel}).observe(attempt.duration_ms / 1000.0);
    if (attempt.translated) {
      translated_.labels({record.client_protocol, attempt.upstream_protocol}).inc();
    }
    if (!attempt.outcome_class.empty()) outcome_classes_.labels({attempt.outcome_class}).inc();
    if (attempt.depth > 0) {
      static constexpr std::string_view kDepths[] = {"1", "2", "3", "4", "5"};
      fallback_depths_.labels({kDepths[std::min(attempt.depth, 5) - 1]}).inc();
    }
  }

  if (record.usage) {
    TokenUsage const& u = *record.usage;
    auto add = [&](std::string_view kind, std::int64_t n) {
      if (n > 0) tokens_.labels({record.channel, record.model, kind}).inc(static_cast<std::uint64_t>(n));
    };
    add("input", u.input);
    add("output", u.output);
    add("cache_read", u.cache_read);
    add("cache_write", u.cache_write);
    add("reasoning", u.reasoning);
    if (u.estimated) usage_estimated_.labels({record.channel}).inc();
  }

  if (!record.model.empty()) {
    ClientOutcome outcome = clientOutcomeOf(record);
    client_outcomes_[static_cast<std::size_t>(outcome)]->inc();
    // Failures never feed latency: a fast failure would look like a recovery.
    if (outcome == ClientOutcome::Success) {
      if (record.stream && record.first_byte_ms >= 0) {
        client_first_token_.observe(record.first_byte_ms / 1000.0);
      }
      client_duration_.observe(record.total_ms / 1000.0);
    }
  }

  overhead_.observe(record.overhead_ms / 1000.0);
  bytes_in_.inc(record.bytes_in);
  bytes_out_.inc(record.bytes_out);
}

void RequestMetrics::configReloaded(bool ok) {
  (ok ? reloads_ok_ : reloads_error_).inc();
}

std::string_view attemptOutcomeLabel(AttemptOutcome const& outcome) {
  using Kind = AttemptOutcome::Kind;
  switch (outcome.kind()) {
    case Kind::Pending: return "";
    case Kind::Ok: return "ok";
    case Kind::ClientError: return "client_error";
    case Kind::Cancelled: return "cancelled";
    case Kind::RacingWon: return "racing_won";
    case Kind::RacingLost: return "racing_lost";
    case Kind::Failover:
    case Kind::Failed: return outcome.reason();
  }
  return "";
}

std::string_view failoverReason(AttemptOutcome const& outcome) {
  if (outcome.is(AttemptOutcome::Kind::Failover)) return outcome.reason();
  return {};
}

}  // namespace llmux::telemetry
