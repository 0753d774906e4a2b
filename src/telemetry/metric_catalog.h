#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace llmux::telemetry {

/// The Prometheus metric types llmux exposes.
enum class MetricType : std::uint8_t {
  Counter,    ///< monotonic count
  Gauge,      ///< a value that goes up and down
  Histogram,  ///< fixed buckets plus sum and count
};

inline constexpr std::size_t kMaxMetricLabels = 4;

/// One metric family: name, type, label names, buckets (histograms only) and help text.
struct MetricSpec {
  std::string_view name;
  MetricType type = MetricType::Counter;
  std::array<std::string_view, kMaxMetricLabels> labels{};  ///< unused trailing entries are ""
  std::span<double const> buckets;  ///< ascending upper bounds; "+Inf" is implied
  std::string_view help;

  constexpr std::size_t labelCount() const {
    std::size_t n = 0;
    while (n < labels.size() && !labels[n].empty()) ++n;
    return n;
  }
};

inline constexpr double kUpstreamSecondsBucketValues[] = {0.025, 0.05, 0.1, 0.25, 0.5, 1,   2.5,
                                                          5,     10,   20,  30,   60,  120, 300};
inline constexpr double kOverheadSecondsBucketValues[] = {
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001,
    0.0025,  0.005,    0.01,    0.025,  0.05,    0.1};

/// What a client waits for (first token, whole answer), fine around the SLO's seconds.
inline constexpr double kClientSecondsBucketValues[] = {0.1, 0.25, 0.5, 0.75, 1,  1.5, 2,  2.5,
                                                        3,   4,    5,   7.5,  10, 15,  20, 30,
                                                        60,  120,  300};

inline constexpr std::span<double const> kNoBuckets{};
/// Client waits (docs/operations.md, SLOs): 100 ms .. 5 min, dense from 1 to 5 s.
inline constexpr std::span<double const> kClientSecondsBuckets{kClientSecondsBucketValues};
/// Upstream waits: LLM answers take from tens of milliseconds to minutes.
inline constexpr std::span<double const> kUpstreamSecondsBuckets{kUpstreamSecondsBucketValues};
/// Time spent inside the gateway itself: 10 µs .. 100 ms.
inline constexpr std::span<double const> kOverheadSecondsBuckets{kOverheadSecondsBucketValues};

// Every metric the gateway exposes, in exposition order. The one place a metric is declared:
// X(Id, Type, name, buckets, help, label names...).
// Label values must come from bounded sets (route templates, channel names, status codes), never
// from raw client input: every distinct label set lives as long as the process.
#define LLMUX_GATEWAY_METRICS(X)                                                                  \
  X(RequestsTotal, Counter, "llmux_requests_total", kNoBuckets,                                   \
    "Client requests finished, by route, client protocol, status sent and answering channel.",    \
    "route", "protocol", "status", "channel")                                                     \
  X(RequestsByClientTotal, Counter, "llmux_requests_by_client_total", kNoBuckets,                 \
    "Client requests finished, by the calling client as detected (claude-code, openai-sdk, …).", \
    "client")                                                                                     \
  X(UpstreamAttemptsTotal, Counter, "llmux_upstream_attempts_total", kNoBuckets,                  \
    "Upstream attempts, by channel and outcome (ok, or the failure reason).", "channel",          \
    "outcome")                                                                                    \
  X(TokensTotal, Counter, "llmux_tokens_total", kNoBuckets,                                       \
    "Tokens of answered requests as the upstreams reported them, normalised (input includes "     \
    "cache reads and writes, output includes reasoning), by channel, model asked and kind.",      \
    "channel", "model", "kind")                                                                   \
  X(UsageEstimatedTotal, Counter, "llmux_usage_estimated_total", kNoBuckets,                      \
    "Answers whose usage the gateway estimated (the upstream reported none or 0 output tokens "   \
    "for content it produced), by channel.", "channel")                                           \
  X(TranslatedAttemptsTotal, Counter, "llmux_translated_attempts_total", kNoBuckets,              \
    "Upstream attempts translated between protocols, by client and upstream protocol.", "from",   \
    "to")                                                                                         \
  X(FailoversTotal, Counter, "llmux_failovers_total", kNoBuckets,                                 \
    "Attempts abandoned for the next candidate, by reason.", "reason")                            \
  X(AttemptOutcomesTotal, Counter, "llmux_attempt_outcomes_total", kNoBuckets,                    \
    "Upstream attempts by the router's outcome class (success, rate_limited, server_error, …).",  \
    "class")                                                                                      \
  X(FallbackAttemptsTotal, Counter, "llmux_fallback_attempts_total", kNoBuckets,                  \
    "Attempts on a fallback model, by fallback depth (1 = first fallback hop; 5 means 5 or "      \
    "more).", "depth")                                                                            \
  X(FreezesActive, Gauge, "llmux_freezes_active", kNoBuckets,                                     \
    "Active freezes, by frozen object (key, key+model, channel, channel+model) and period "       \
    "(fixed, today, week, month, forever, reset).", "object", "period")                          \
  X(CooldownsActive, Gauge, "llmux_cooldowns_active", kNoBuckets,                                 \
    "Upstream keys currently on a failure-window cooldown.")                                      \
  X(BreakerState, Gauge, "llmux_breaker_state", kNoBuckets,                                       \
    "Circuit breakers per channel and upstream model: 0 closed, 1 open, 2 half-open, by breaker " \
    "(failure, storm).", "channel", "model", "breaker")                                           \
  X(BreakerTransitionsTotal, Counter, "llmux_breaker_transitions_total", kNoBuckets,              \
    "Circuit breaker state changes, by channel, upstream model, breaker (failure, storm) and "    \
    "new state.", "channel", "model", "breaker", "to")                                            \
  X(BreakerSkipsTotal, Counter, "llmux_breaker_skips_total", kNoBuckets,                          \
    "Candidates skipped without an attempt because a breaker refused them, by channel and "       \
    "reason (breaker_open, storm_open, probe_in_flight).", "channel", "reason")                   \
  X(ProbesTotal, Counter, "llmux_probes_total", kNoBuckets,                                        \
    "Health probes run, by channel, scenario and result (pass, fail).", "channel", "scenario",     \
    "result")                                                                                      \
  X(ProbeLastResult, Gauge, "llmux_probe_last_result", kNoBuckets,                                 \
    "The last health probe of a (channel, key, model, scenario): 1 passed, 0 failed.", "channel", \
    "key", "model", "scenario")                                                                    \
  X(ProbesSkippedTotal, Counter, "llmux_probes_skipped_total", kNoBuckets,                         \
    "Scheduled health probes not run, by reason (concurrency: max_concurrent probes were running, " \
    "it waits for its next turn; hourly: max_per_hour was reached).", "reason")                   \
  X(StormOpensTotal, Counter, "llmux_storm_opens_total", kNoBuckets,                              \
    "429-storm breaker openings, by channel.", "channel")                                         \
  X(BucketEventsTotal, Counter, "llmux_bucket_events_total", kNoBuckets,                          \
    "Upstream token bucket events: wait (an attempt waited for tokens), overflow (it waited the " \
    "maximum and went anyway), short (skipped for another candidate).", "event")                  \
  X(RedisFallbacksTotal, Counter, "llmux_redis_fallbacks_total", kNoBuckets,                      \
    "Times the shared limits fell back to this process's own because Redis did not answer.")      \
  X(DatabaseConnected, Gauge, "llmux_database_connected", kNoBuckets,                             \
    "1 while the request log's writer reaches its store (always, for SQLite); 0 while "          \
    "PostgreSQL does not answer.")                                                                \
  X(RedisActive, Gauge, "llmux_redis_active", kNoBuckets,                                         \
    "1 while shared limits are kept in Redis, 0 while degraded to local limits (or no Redis).")   \
  X(LimitRejectionsTotal, Counter, "llmux_limit_rejections_total", kNoBuckets,                    \
    "Requests refused by their gateway key's limits, by key name and limit (rpm, rpd, tpm, "      \
    "concurrency, daily_tokens, monthly_tokens, daily_cost_usd, monthly_cost_usd).", "key",       \
    "limit")                                                                                      \
  X(UpstreamFirstByteSeconds, Histogram, "llmux_upstream_first_byte_seconds",                     \
    kUpstreamSecondsBuckets, "Upstream response head after the request was sent.", "channel")     \
  X(UpstreamDurationSeconds, Histogram, "llmux_upstream_duration_seconds",                        \
    kUpstreamSecondsBuckets, "Whole upstream attempt, from connect to last byte.", "channel")     \
  X(RequestsInFlight, Gauge, "llmux_requests_in_flight", kNoBuckets,                              \
    "Client requests currently being served.")                                                    \
  X(GatewayOverheadSeconds, Histogram, "llmux_gateway_overhead_seconds", kOverheadSecondsBuckets, \
    "Time spent inside llmux per request, upstream waits excluded.")                              \
  X(RequestBytesTotal, Counter, "llmux_request_bytes_total", kNoBuckets,                          \
    "Body bytes, by direction (in: from clients, out: to clients).", "direction")                 \
  X(ConfigReloadsTotal, Counter, "llmux_config_reloads_total", kNoBuckets,                        \
    "Configuration reloads, by result (ok, error).", "result")                                    \
  X(LogRecordsDroppedTotal, Counter, "llmux_log_records_dropped_total", kNoBuckets,               \
    "Records a log sink could not keep, by sink (access_log, request_log).", "sink")             \
  X(RequestLogQueueDepth, Gauge, "llmux_request_log_queue_depth", kNoBuckets,                     \
    "Finished requests waiting for the request log's writer thread (bounded: a full queue "       \
    "drops, see llmux_log_records_dropped_total).")                                               \
  X(RequestLogRecordsWrittenTotal, Counter, "llmux_request_log_records_written_total",            \
    kNoBuckets, "Requests written to the request log.")                                           \
  X(RequestLogRecordsExpiredTotal, Counter, "llmux_request_log_records_expired_total",            \
    kNoBuckets, "Requests (with their attempts) deleted from the request log by its retention.")  \
  X(RequestLogInterruptedTotal, Counter, "llmux_request_log_requests_interrupted_total",         \
    kNoBuckets, "Running requests of replicas whose heartbeat lapsed, closed as interrupted by "  \
    "this replica.")                                                                              \
  X(StoreWriteFailuresTotal, Counter, "llmux_store_write_failures_total", kNoBuckets,             \
    "Writes to the state database given up on after their retries, by store: request_log (a "     \
    "batch, whose records also count as dropped), freezes (one freeze saved or removed; the "      \
    "freeze table in memory stays right), video_jobs (one job saved, or the expired pruned; the " \
    "job stays reachable until a restart), racing (the switches or a latency entry; memory stays " \
    "right).", "store")                                                                           \
  X(RacesTotal, Counter, "llmux_races_total", kNoBuckets,                                         \
    "Raced requests by event: armed (could race), triggered (the primary passed its threshold), " \
    "won_by_shadow, won_by_primary, blocked_budget (hedge budget spent), blocked_cap "            \
    "(max_shadows_in_flight), no_candidate (nothing could shadow).", "event")                    \
  X(ShadowsSentTotal, Counter, "llmux_shadows_sent_total", kNoBuckets,                            \
    "Shadow attempts sent by racing, by channel.", "channel")                                     \
  X(ShadowsInFlight, Gauge, "llmux_shadows_in_flight", kNoBuckets,                                \
    "Shadow attempts running now (process-wide; at most racing.max_shadows_in_flight).")          \
  X(RacingThresholdSeconds, Gauge, "llmux_racing_threshold_seconds", kNoBuckets,                  \
    "The racing threshold last used, by model family (claude, gpt, gemini, other) and stage "     \
    "(stream_first_content, non_stream_completion).", "family", "stage")                          \
  X(RacingLoserTokensTotal, Counter, "llmux_racing_loser_tokens_total", kNoBuckets,               \
    "Tokens the losing branches of races reported (racing overhead).")                           \
  X(ProxyFailuresTotal, Counter, "llmux_proxy_failures_total", kNoBuckets,                        \
    "Attempts that could not reach their upstream through a proxy or node, by proxy and reason: " \
    "auth_rejected (a 407 or a refused SOCKS5 or node login: fix the credentials), connect "      \
    "(the proxy unreachable, refusing the tunnel, or the upstream unreachable behind it).",        \
    "proxy", "reason")                                                                           \
  X(ClientRequestsTotal, Counter, "llmux_client_requests_total", kNoBuckets,                      \
    "Requests that named a model, by client outcome: success and failed (the SLO's "               \
    "denominator), cancelled (the client left), rejected (limits, auth, the client's errors).",    \
    "outcome")                                                                                    \
  X(ClientFirstTokenSeconds, Histogram, "llmux_client_first_token_seconds",                       \
    kClientSecondsBuckets,                                                                        \
    "Successful streamed requests: request read to the first content byte sent to the client "    \
    "(failures never feed it).")                                                                  \
  X(ClientDurationSeconds, Histogram, "llmux_client_duration_seconds", kClientSecondsBuckets,     \
    "Successful requests: request head received to the last byte sent.")                          \
  X(SloTarget, Gauge, "llmux_slo_target", kNoBuckets,                                             \
    "SLO targets (slo.* in the configuration): success_rate (a ratio), "                          \
    "first_token_p95_seconds.", "slo")                                                            \
  X(SloErrorBudgetBurnRate, Gauge, "llmux_slo_error_budget_burn_rate", kNoBuckets,                \
    "Failed share of success + failed over the alert window, divided by 1 - the success_rate "    \
    "target (1: the error budget is spent exactly as fast as it accrues). Set by the alert loop.") \
  X(AlertActive, Gauge, "llmux_alert_active", kNoBuckets,                                         \
    "Subjects for which a built-in alert's condition holds (as of the last evaluation), by "     \
    "alert.", "alert")                                                                           \
  X(AlertMessagesTotal, Counter, "llmux_alert_messages_total", kNoBuckets,                        \
    "Alert messages, by alert, state (firing, resolved) and result: sent, failed (a webhook did " \
    "not take it), logged (no webhook configured), skipped (another replica holds the lease).",   \
    "alert", "state", "result")                                                                  \
  X(ChannelModels, Gauge, "llmux_channel_models", kNoBuckets,                                     \
    "Models the channel's upstream listed at its last model-list refresh, by channel.",           \
    "channel")                                                                                   \
  X(ModelListChangesTotal, Counter, "llmux_model_list_changes_total", kNoBuckets,                 \
    "Models an upstream's list added or dropped against what the channel served, each counted "   \
    "once when first seen, by channel and change (added, dropped).", "channel", "change")         \
  X(ChannelBalance, Gauge, "llmux_channel_balance", kNoBuckets,                                   \
    "A key's balance as its relay last reported it (balance probes), by channel and key label.",  \
    "channel", "key")                                                                              \
  X(PayloadsWrittenTotal, Counter, "llmux_payloads_written_total", kNoBuckets,                    \
    "Captured bodies ClickHouse took (payloads:).")                                               \
  X(PayloadsDroppedTotal, Counter, "llmux_payloads_dropped_total", kNoBuckets,                    \
    "Captured bodies lost: the writer's queue full, a batch ClickHouse did not take, shutdown.")  \
  X(PayloadBatchesDroppedTotal, Counter, "llmux_payload_batches_dropped_total", kNoBuckets,       \
    "Batches of captured bodies ClickHouse did not take: dropped, never retried.")                \
  X(PayloadExpiryFailuresTotal, Counter, "llmux_payload_expiry_failures_total", kNoBuckets,       \
    "Deletions of expired captured bodies (retention.payloads_days) ClickHouse did not take; "    \
    "tried again an hour later.")

/// Index of a gateway metric in `kGatewayMetrics`.
enum class MetricId : std::size_t {
#define LLMUX_METRIC_ID(id, ...) id,
  LLMUX_GATEWAY_METRICS(LLMUX_METRIC_ID)
#undef LLMUX_METRIC_ID
};

inline constexpr MetricSpec kGatewayMetrics[] = {
#define LLMUX_METRIC_SPEC(id, type, name, buckets, help, ...) \
  MetricSpec{name, MetricType::type, {__VA_ARGS__}, buckets, help},
    LLMUX_GATEWAY_METRICS(LLMUX_METRIC_SPEC)
#undef LLMUX_METRIC_SPEC
};

constexpr MetricSpec const& gatewayMetric(MetricId id) {
  return kGatewayMetrics[static_cast<std::size_t>(id)];
}

/// Whether `s` is a valid metric name ([a-zA-Z_:][a-zA-Z0-9_:]*) or, with `label`, a valid label
/// name ([a-zA-Z_][a-zA-Z0-9_]*, not starting with "__").
constexpr bool isValidMetricName(std::string_view s, bool label = false) {
  if (s.empty()) return false;
  if (label && s.size() >= 2 && s[0] == '_' && s[1] == '_') return false;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    bool alpha =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (!label && c == ':');
    bool digit = c >= '0' && c <= '9';
    if (!alpha && !(digit && i > 0)) return false;
  }
  return true;
}

/// Checks a spec: valid names, labels packed at the front, no duplicate label, no "le" on a
/// histogram, buckets only on histograms and strictly ascending.
constexpr bool isValidMetricSpec(MetricSpec const& spec) {
  if (!isValidMetricName(spec.name) || spec.help.empty()) return false;
  std::size_t n = spec.labelCount();
  for (std::size_t i = 0; i < spec.labels.size(); ++i) {
    if (i >= n) {
      if (!spec.labels[i].empty()) return false;
      continue;
    }
    if (!isValidMetricName(spec.labels[i], true)) return false;
    if (spec.type == MetricType::Histogram && spec.labels[i] == "le") return false;
    for (std::size_t j = 0; j < i; ++j)
      if (spec.labels[j] == spec.labels[i]) return false;
  }
  if ((spec.type == MetricType::Histogram) == spec.buckets.empty()) return false;
  for (std::size_t i = 1; i < spec.buckets.size(); ++i)
    if (!(spec.buckets[i - 1] < spec.buckets[i])) return false;
  return true;
}

constexpr bool allValid(std::span<MetricSpec const> specs) {
  for (auto const& spec : specs)
    if (!isValidMetricSpec(spec)) return false;
  return true;
}

static_assert(allValid(kGatewayMetrics), "a gateway metric spec is invalid");

}  // namespace llmux::telemetry
