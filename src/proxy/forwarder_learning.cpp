// What an attempt teaches the gateway (internal to the forwarder): how an error answer is judged,
// what the freeze rules and key pauses learn from it, and how the router and the breakers hear of
// the attempt's end.
#include <algorithm>
#include <optional>

#include "core/retry_after.h"
#include "proxy/forwarder.h"
#include "proxy/forwarder_support.h"
#include "routing/breakers.h"
#include "routing/freezes.h"
#include "routing/router_state.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"
#include "translate/errors.h"

namespace llmux::proxy {

using net::Task;
using namespace forwarding;

void Forwarder::learnFromAnswer(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                                routing::FailurePolicy const& policy, int status,
                                HeaderList const& headers, std::string_view body,
                                std::optional<Millis>& retry_after) {
  auto const& settings = ctx.catalog->settings();
  auto const& channel = settings.channels[candidate.channel];
  auto const& key_id = channel.keys[candidate.key].id;
  Millis const max_pause = settings.retry.max_key_pause;
  if (policy.reason != "context_overflow" &&
      routing::actionFor(routing::outcomeForStatus(status)).may_freeze) {
    if (auto const* rule = routing::matchFreezeRule(settings.freeze_rules, status, headers, body)) {
      WallTime now = services_.clock.wallNow();
      routing::FreezeTarget target{channel.name, key_id, channel.keys[candidate.key].label,
                                   candidate.upstream_model};
      routing::Freeze freeze = services_.freezes.apply(
          *rule, target, routing::upstreamResetTime(headers, body, now),
          freezeReason(status, body, channel.keys[candidate.key].secret));
      telemetry::logInfo("request {}: {} {} frozen by rule {} ({})", ctx.request_id,
                         config::freezeObjectName(rule->object),
                         rule->object == config::FreezeObject::Channel ||
                                 rule->object == config::FreezeObject::ChannelModel
                             ? channel.name
                             : channel.keys[candidate.key].label,
                         rule->name, freeze.id);
      if (status == 429) {
        retry_after = parseRetryAfter(headers, now);
        if (retry_after) retry_after = std::min(*retry_after, max_pause);
      }
      return;  // the freeze is the pause: lifting it must bring the key back at once
    }
  }
  if (policy.verdict != routing::Verdict::NextKey) return;
  if (status != 429) {
    services_.key_health.pauseKey(key_id, routing::KeyPause::Rejected, routing::kRejectedKeyPause);
    return;
  }
  retry_after = parseRetryAfter(headers, services_.clock.wallNow());
  if (!retry_after) retry_after = parseGoogleRetryDelay(body);
  Millis pause = routing::rateLimitPause(retry_after, max_pause);
  retry_after = pause;  // the client is told the pause itself, never years
  // Providers rate-limit each model on its own: the key's other models stay in rotation. An
  // exhausted account is the whole key's.
  if (routing::pauseScopeFor(status, body) == routing::PauseScope::Key) {
    services_.key_health.pauseKey(key_id, routing::KeyPause::QuotaExhausted, pause);
  } else {
    services_.key_health.pauseModel(key_id, candidate.upstream_model,
                                    routing::KeyPause::RateLimited, pause);
  }
}

Forwarder::AnswerJudgement Forwarder::judgeErrorAnswer(
    RequestContext& ctx, routing::PlannedCandidate const& candidate, Protocol upstream, int status,
    HeaderList const& headers, std::string_view body, bool overflow_is_clients, bool last,
    std::optional<Millis>& retry_after) {
  AnswerJudgement judged{routing::policyForStatus(status)};
  if (routing::isRejectedKeyAnswer(upstream, status, body)) {
    judged.policy = {routing::Verdict::NextKey, "key_rejected"};
  } else if (routing::isContentPolicyRefusal(status, body)) {
    judged.policy = {routing::Verdict::Relay, "content_policy"};
  }
  judged.error =
      translate::readUpstreamError(upstream, status, body, headers, services_.clock.wallNow());
  if (judged.error.cls == translate::ErrorClass::ContextOverflow && overflow_is_clients) {
    judged.policy = {routing::Verdict::Relay, "context_overflow"};
  }
  learnFromAnswer(ctx, candidate, judged.policy, status, headers, body, retry_after);
  // A rejected channel key is never shown to the client (its body may even quote the key).
  judged.hide_answer = status == 401 || status == 403 || judged.policy.reason == "key_rejected";
  judged.fail_over = judged.retryable() && (!last || judged.hide_answer);
  return judged;
}

namespace {

/// The router's reading of how an attempt ended (routing/outcome.h's table acts on it).
routing::Outcome outcomeOf(Forwarder::AttemptResult const& result, AttemptRecord const& record) {
  using routing::Outcome;
  using Kind = Forwarder::AttemptResult::Kind;
  if (result.kind == Kind::Aborted || record.outcome.is(AttemptOutcome::Kind::Cancelled)) {
    return Outcome::ClientGone;
  }
  if (result.policy.reason == "untranslatable") return Outcome::Untranslatable;
  if (result.policy.reason == "misconfigured") return Outcome::Misconfigured;
  if (result.policy.reason == "context_overflow") return Outcome::ContextOverflow;
  if (result.policy.reason == "content_policy") return Outcome::ContentPolicy;
  if (result.policy.reason == "key_rejected") return Outcome::KeyRejected;
  if (result.policy.reason == "timeout_first_token") return Outcome::TimeoutFirstToken;
  if (result.policy.reason == "deadline") return Outcome::DeadlineReached;
  if (record.outcome == AttemptOutcome::failed("mid_stream")) return Outcome::MidStreamFailure;
  if (result.kind == Kind::Failed && result.status == 0 && result.error) {
    return routing::outcomeForTransportError(*result.error);
  }
  // An error event in place of content (the status is the one the event implied).
  bool stream_error = result.error && result.error->kind == ErrorKind::UpstreamStatus;
  bool failed_stream = record.status < 300 && record.outcome.is(AttemptOutcome::Kind::Failed);
  if ((stream_error || failed_stream) && result.status != 429) {
    return Outcome::StreamErrorBeforeContent;
  }
  if (result.status == 0) return Outcome::ClientError;  // refused before anything was sent
  return routing::outcomeForStatus(result.status);
}

}  // namespace

routing::Outcome Forwarder::report(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                                   AttemptResult const& result, AttemptRecord& record) {
  auto const& channel = ctx.catalog->settings().channels[candidate.channel];
  routing::Outcome outcome = outcomeOf(result, record);
  record.outcome_class = std::string(routing::outcomeName(outcome));
  routing::AttemptReport report;
  report.channel = channel.name;
  report.key_id = channel.keys[candidate.key].id;
  report.upstream_model = candidate.upstream_model;
  report.session = ctx.session;
  report.outcome = outcome;
  // A stream is as fast as its first content (a head sent at once says nothing); a whole answer
  // as its head.
  double latency_ms = ctx.profile.stream ? record.first_token_ms : record.first_byte_ms;
  if (latency_ms >= 0) report.first_token = Millis(static_cast<std::int64_t>(latency_ms));
  if (outcome == routing::Outcome::Success && ctx.record.usage) report.tokens = ctx.record.usage->total();
  services_.router_state.attemptFinished(report, channel.keys[candidate.key]);
  return outcome;
}

void Forwarder::publishBreakerTransitions() {
  auto transitions = services_.breakers.takeTransitions();
  if (transitions.empty()) return;
  auto& counter = services_.metrics_registry.counter(telemetry::MetricId::BreakerTransitionsTotal);
  for (auto const& change : transitions) {
    counter.labels({change.channel, change.model, change.storm ? "storm" : "failure",
                    routing::breakerStateName(change.to)})
        .inc();
    if (change.storm && change.to == routing::BreakerState::Open) {
      services_.metrics_registry.counter(telemetry::MetricId::StormOpensTotal).labels({change.channel}).inc();
    }
    telemetry::logInfo("breaker: {} {} {} -> {}", change.channel, change.model,
                       change.storm ? "429-storm breaker" : "failure breaker",
                       routing::breakerStateName(change.to));
  }
}

}  // namespace llmux::proxy
