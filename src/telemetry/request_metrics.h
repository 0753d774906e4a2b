#pragma once

#include <string_view>

#include "core/request_record.h"
#include "telemetry/metrics.h"

namespace llmux::telemetry {

/// The gateway's per-request metrics, fed from the `RequestRecord` of each finished request.
/// Built once at start-up: it resolves its families and its label-less children up front, so
/// `observe` costs only the sharded lookups of the labelled children plus relaxed atomic adds.
///
/// `record.route` becomes a label: it must be the route template ("/v1/chat/completions",
/// "/v1beta/models/{model}:generateContent"), never the raw path.
class RequestMetrics {
 public:
  explicit RequestMetrics(MetricsRegistry& registry);

  /// Counts one finished request: requests_total, for a request that named a model its client
  /// outcome (client_requests_total; a success's first token and duration), one upstream_attempts_total and
  /// first-byte / duration observation per attempt, failovers_total for each
  /// "failover:<reason>" attempt, the overhead histogram and the body byte counters.
  void observe(RequestRecord const& record);

  /// Requests being served: the caller increments when a request starts and decrements when it
  /// ends (a `RequestRecord` only exists at the end).
  Gauge& inFlight() { return in_flight_; }

  /// Counts one configuration reload attempt.
  void configReloaded(bool ok);

 private:
  CounterFamily& requests_;
  CounterFamily& by_client_;
  CounterFamily& attempts_;
  CounterFamily& failovers_;
  CounterFamily& tokens_;
  CounterFamily& usage_estimated_;
  CounterFamily& translated_;
  CounterFamily& outcome_classes_;
  CounterFamily& fallback_depths_;
  HistogramFamily& first_byte_;
  HistogramFamily& duration_;
  Gauge& in_flight_;
  Histogram& overhead_;
  Counter& bytes_in_;
  Counter& bytes_out_;
  Counter& reloads_ok_;
  Counter& reloads_error_;
  /// By ClientOutcome.
  Counter* client_outcomes_[4];
  Histogram& client_first_token_;
  Histogram& client_duration_;
};

/// The `outcome` label of an attempt: a failure's reason (failover:status_429 -> "status_429",
/// failed:connect -> "connect"), else "ok", "client_error" or "cancelled". Views `outcome`.
std::string_view attemptOutcomeLabel(AttemptOutcome const& outcome);

/// The failover reason of an attempt (failover:timeout_first_byte -> "timeout_first_byte"), or ""
/// when the attempt did not fail over. Views `outcome`.
std::string_view failoverReason(AttemptOutcome const& outcome);

}  // namespace llmux::telemetry
