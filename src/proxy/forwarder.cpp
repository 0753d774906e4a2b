#include "proxy/forwarder.h"

#include <algorithm>
#include <optional>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/this_coro.hpp>

#include "http/response_writer.h"
#include "http/server_request.h"
#include "http/upstream_connection.h"
#include "http/upstream_exchange.h"
#include "proxy/attempt_gates.h"
#include "proxy/attempt_request.h"
#include "proxy/error_reply.h"
#include "proxy/exit_failures.h"
#include "proxy/forwarder_support.h"
#include "proxy/payload_capture.h"
#include "proxy/race_arming.h"
#include "proxy/secret_redactor.h"
#include "proxy/upstream_request.h"
#include "routing/breakers.h"
#include "routing/freezes.h"
#include "routing/router_state.h"
#include "translate/errors.h"
#include "shared_state/shared_limits.h"
#include "store/request_log.h"
#include "telemetry/log.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {

using net::Task;
using namespace forwarding;

namespace {
// Error documents are small; anything larger is not one.
constexpr std::size_t kErrorBodyLimit = 1u << 20;

/// Statuses under which relays report a context overflow besides the usual 400 (which is relayed
/// as it is): 413, 422 and 500 bodies are read to tell.
bool mayHideContextOverflow(int status) { return status == 413 || status == 422 || status == 500; }
}  // namespace

Forwarder::Forwarder(GatewayServices& services, http::UpstreamPool& pool)
    : services_(services),
      pool_(pool),
      races_armed_(services.metrics_registry.counter(telemetry::MetricId::RacesTotal).labels({"armed"})),
      thresholds_(pool.io()) {}

Task<Forwarder::AttemptResult> Forwarder::attempt(RequestContext& ctx,
                                                  routing::PlannedCandidate const& candidate,
                                                  bool last, AttemptRecord& record) {
  auto const& channel = ctx.catalog->settings().channels[candidate.channel];
  auto const& row = channel.rows[candidate.row];
  auto const& key = channel.keys[candidate.key];
  std::string const upstream_model(candidate.upstream_model);  // the plan views the Catalog
  AttemptResult result;

  AttemptRequest request;
  buildAttemptRequest(ctx, channel, row, key, upstream_model, request);
  bool translated = request.translated;
  record.translated = translated;
  switch (request.problem) {
    case AttemptRequest::Problem::None: break;
    case AttemptRequest::Problem::ClientRequest:
      co_await replyError(ctx, 400, request.error.message);  // the client's request: no retry
      result.kind = AttemptResult::Kind::Answered;
      record.outcome = AttemptOutcome::clientError();
      co_return result;
    case AttemptRequest::Problem::Misconfigured:
      telemetry::logError("request {}: channel {} cannot be used: {}", ctx.request_id,
                          channel.name, request.error.message);
      result.error = request.error;
      result.policy = {routing::Verdict::NextChannel, "misconfigured"};
      record.outcome = failureOutcome(last, result.policy.reason);
      co_return result;
    case AttemptRequest::Problem::Untranslatable:
      // This protocol cannot carry the request (a provider file id Gemini cannot take, say);
      // a channel of another protocol may. If none can, the client gets this reason (a 400).
      result.error = request.error;
      result.policy = {routing::Verdict::NextChannel, "untranslatable"};
      record.outcome = failureOutcome(last, result.policy.reason);
      co_return result;
  }
  http::UpstreamExchange::Pieces pieces{
      request.head, request.body.before, request.body.model_token, request.body.after, {}, {}};
  // A sampled request's bodies: this attempt's request as sent, its answer as read (the head and
  // its channel key are never captured).
  std::unique_ptr<AttemptCapture> captured;
  if (ctx.payloads) {
    captured = std::make_unique<AttemptCapture>(
        *ctx.payloads, key.secret,
        std::initializer_list<std::string_view>{request.body.before, request.body.model_token,
                                                request.body.after});
  }

  MonoTime started = MonoClock::now();
  AttemptClock const clock = AttemptClock::start(
      started, channel.timeouts, ctx.profile.stream, reasoningTierOf(ctx.profile.reasoning),
      ctx.started + ctx.catalog->settings().retry.deadline);
  auto& cancellation = ctx.response->cancellation();

  // A pooled connection the peer reset while idle fails the write before a byte of the request
  // went out: the request is then sent once more on a fresh connection (not an upstream
  // failure). A request that was written is never resent here, even if the connection then
  // closes without an answer: the upstream may have acted on it (failover decides instead).
  std::optional<http::UpstreamExchange> exchange;
  SendOutcome sent = co_await sendUpstreamRequest(pool_, request.target.peer, pieces, clock,
                                                  channel.timeouts, cancellation,
                                                  ctx.upstream_wait, exchange);
  // The answer's body is copied from its first read on (the head's bytes are not the body).
  if (captured && exchange) captured->tap(*exchange);
  result.error = std::move(sent.error);
  if (sent.connect_failed && !cancellation.cancelled()) {
    if (auto const& via = request.target.peer.egress) {
      noteExitFailure(services_.metrics_registry, *via, *result.error);
    }
  }

  if (cancellation.cancelled()) {
    result.kind = AttemptResult::Kind::Aborted;
    record.outcome = AttemptOutcome::cancelled();
    record.duration_ms = msSince(started);
    co_return result;
  }
  if (result.error) {
    // A proxy refusing the gateway's credentials is the operator's to fix: no mark against the
    // upstream, its key or its breaker.
    result.policy = isProxyAuthRejection(*result.error)
                        ? routing::FailurePolicy{routing::Verdict::NextChannel, "misconfigured"}
                        : transportFailure(*result.error, clock);
    record.outcome = failureOutcome(last, result.policy.reason);
    record.duration_ms = msSince(started);
    telemetry::logDebug("request {}: channel {} key {}: {}", ctx.request_id, channel.name,
                        key.label, result.error->message);
    co_return result;
  }

  AbortOnCancel abort_on_cancel(cancellation, *exchange);
  result.status = exchange->status();
  if (result.status == kProxyAuthRejected && forwardedByProxy(request.target)) {
    // The HTTP proxy itself answered the request it was to forward.
    Egress const& via = *request.target.peer.egress;
    result.status = 0;
    result.error = proxyAuthRejectedAnswer(via);
    noteExitFailure(services_.metrics_registry, via, *result.error);
    result.policy = {routing::Verdict::NextChannel, "misconfigured"};
    record.outcome = failureOutcome(last, result.policy.reason);
    record.duration_ms = msSince(started);
    co_return result;
  }
  record.status = result.status;
  record.first_byte_ms = millisBetween(started, exchange->headReceivedAt());
  result.policy = routing::policyForStatus(result.status);
  if (translated) {
    AttemptResult translated_result;
    if (result.status >= 300) {
      translated_result = co_await answerTranslatedError(ctx, *exchange, record, row.protocol, result,
                                                         last, candidate, clock);
    } else {
      translated_result = co_await relayTranslated(ctx, *exchange, record, row.protocol, clock, last);
      if (translated_result.kind == AttemptResult::Kind::Failed) {
        record.outcome = failureOutcome(last, translated_result.policy.reason);
      } else if (record.outcome.is(AttemptOutcome::Kind::Ok)) {
        translated_result.status = result.status;  // a success: the router and breakers learn it
      }
    }
    record.duration_ms = msSince(started);
    co_return translated_result;
  }

  if (result.status >= 300) {
    // Error answers take a path of their own (a coroutine entered only for them).
    AttemptResult answered = co_await answerPassthroughError(ctx, *exchange, record, candidate,
                                                             clock, last, std::move(result));
    record.duration_ms = msSince(started);
    co_return answered;
  }
  // A success: relayed from its first body piece on (the commit point).
  AttemptResult relayed =
      co_await relay(ctx, *exchange, record, clock,
                     clientResponseHeaders(exchange->headers(), ctx.request_id,
                                           channel.expose_rate_limit_headers),
                     last);
  record.duration_ms = msSince(started);
  if (relayed.kind == AttemptResult::Kind::Failed) {
    // A relay that failed before its first body byte reports its transport error, not the status.
    record.outcome = failureOutcome(last, relayed.policy.reason);
  } else {
    relayed.status = result.status;
    relayed.policy = result.policy;
  }
  co_return relayed;
}

Task<Forwarder::AttemptResult> Forwarder::answerPassthroughError(
    RequestContext& ctx, http::UpstreamExchange& exchange, AttemptRecord& record,
    routing::PlannedCandidate const& candidate, AttemptClock clock, bool last,
    AttemptResult result) {
  auto const& channel = ctx.catalog->settings().channels[candidate.channel];
  auto const& row = channel.rows[candidate.row];
  auto const& key = channel.keys[candidate.key];
  // Some answers are only understood with their body (Gemini's 400 for a wrong key, a relay's
  // context overflow under another status); such bodies are small error documents, read whole
  // before deciding.
  std::string read_body;
  // A relayed error is first cleaned of the channel key (matched in its forms).
  SecretRedactor const redactor(key.secret);
  if (decidesOnHead(result.status, last)) {
    // A 429 with another candidate to try: decided on the head, no wait for the body. Freeze
    // rules read what came with the head (an error document usually arrives in the same packet).
    read_body = std::string(exchange.bufferedBody());
  } else {
    // Error answers are read whole (they are small documents): some are only understood with
    // their body, and one that is relayed is first cleaned of the channel key.
    WaitClock wait(ctx.upstream_wait);
    auto error_body = co_await readWholeBody(exchange, clock, kErrorBodyLimit);
    if (!error_body) {
      exchange.abort();
      result.error = error_body.error();
      result.status = 0;
      result.policy = transportFailure(error_body.error(), clock);
      record.outcome = failureOutcome(last, result.policy.reason);
      co_return result;
    }
    read_body = std::move(*error_body);
    redactor.redact(read_body);
  }
  // A context overflow under 413, 422 or 500 (a relay's choice) is still the client's problem;
  // under 400 the same-protocol answer is relayed as it is.
  bool const overflow_is_clients = mayHideContextOverflow(result.status);
  AnswerJudgement const judged =
      judgeErrorAnswer(ctx, candidate, row.protocol, result.status, exchange.headers(), read_body,
                       overflow_is_clients, last, result.retry_after);
  result.policy = judged.policy;
  if (overflow_is_clients && judged.policy.reason == "context_overflow") {
    // The client's problem whatever status the relay chose: a 400 in the client's shape, never
    // retried elsewhere.
    exchange.finish();
    translate::ClientError answer =
        translate::renderForClient(ctx.protocol, judged.error, ctx.request_id);
    answer.headers.add("X-Request-Id", ctx.request_id);
    ctx.record.status = answer.status;
    ctx.record.error = judged.error.message;
    record.outcome = AttemptOutcome::clientError();
    if (!co_await ctx.response->send(answer.status, answer.headers, answer.body)) {
      markClientGone(ctx, record);
    }
    result.kind = AttemptResult::Kind::Answered;
    co_return result;
  }
  bool const retryable = judged.retryable();
  if (judged.fail_over) {
    exchange.abort();  // decided on the head: the rest of the body is not read
    record.outcome = failureOutcome(last, result.policy.reason);
    if (judged.hide_answer) result.status = 401;  // reported to the client as a gateway-side failure
    co_return result;
  }
  // The last candidate's own error goes to the client, with how many attempts were made.
  HeaderList extra;
  if (retryable) extra.add("x-llmux-attempts", std::to_string(ctx.record.attempts.size()));
  if (read_body.empty() && result.status >= 400) {
    // An error without a body (a relay's bare 413, say): the client still gets its protocol's
    // error document for that status.
    exchange.finish();
    co_await replyError(ctx, result.status,
                        "the upstream answered " + std::to_string(result.status) + " without a body",
                        std::move(extra));
  } else {
    HeaderList headers = clientResponseHeaders(exchange.headers(), ctx.request_id,
                                               channel.expose_rate_limit_headers);
    for (auto const& field : extra) headers.add(field.name, field.value);
    ctx.record.status = result.status;
    co_await ctx.response->send(result.status, redactor.redacted(headers), read_body);
    exchange.finish();
  }
  // A relayed failure of the last candidate counts as its failure; the client's own error
  // (a relayed 400, say) as such. The result keeps how the answer was judged (a content-policy
  // refusal, say).
  record.outcome = retryable ? failureOutcome(true, result.policy.reason)
                             : relayedOutcome(result.status);
  result.kind = AttemptResult::Kind::Answered;
  co_return result;
}

void Forwarder::describePlacement(RequestContext const& ctx, routing::PlannedCandidate const& candidate,
                                  AttemptRecord& record) {
  auto const& channel = ctx.catalog->settings().channels[candidate.channel];
  record.channel = channel.name;
  record.key_label = channel.keys[candidate.key].label;
  record.upstream_model = std::string(candidate.upstream_model);
  record.upstream_protocol = std::string(protocolName(channel.rows[candidate.row].protocol));
  config::Strategy strategy = ctx.gateway_key ? ctx.gateway_key->strategy : config::Strategy::Intelligent;
  record.strategy = std::string(config::strategyName(strategy));
  record.depth = candidate.depth;
  if (strategy == config::Strategy::Intelligent || strategy == config::Strategy::Fast) {
    record.score = candidate.factors.score;
    record.factors = routing::formatFactors(candidate.factors);
  }
}

void Forwarder::showAttempt(RequestContext const& ctx, std::size_t number,
                            AttemptRecord const& record) {
  if (ctx.record.log_handle != 0 && services_.request_log != nullptr) {
    services_.request_log->attemptChanged(ctx.record.log_handle, static_cast<int>(number), record);
  }
}

routing::Outcome Forwarder::concludeAttempt(RequestContext& ctx, routing::PlannedCandidate const& candidate,
                                            AttemptResult const& result, AttemptRecord& record,
                                            bool probe) {
  auto const& channel = ctx.catalog->settings().channels[candidate.channel];
  routing::Outcome outcome = report(ctx, candidate, result, record);
  services_.breakers.record(channel.name, candidate.upstream_model, channel.breaker,
                            breakerSignal(outcome), probe, services_.clock.now());
  publishBreakerTransitions();
  return outcome;
}

Task<void> Forwarder::forward(RequestContext& ctx, std::vector<routing::PlannedCandidate> candidates) {
  auto const& settings = ctx.catalog->settings();
  auto const& channels = settings.channels;
  // The retry budget: so many attempts, and none started after the deadline.
  auto const max_attempts = static_cast<std::size_t>(std::max(settings.retry.max_attempts, 1));
  MonoTime const no_attempt_after = ctx.started + settings.retry.deadline;
  std::vector<std::size_t> skipped_channels;
  std::vector<std::size_t> raced;  // candidates that ran as shadows: failover skips them
  auto ran_as_shadow = [&](std::size_t i) {
    return !raced.empty() && std::find(raced.begin(), raced.end(), i) != raced.end();
  };
  auto skipped = [&](std::size_t channel) {
    return std::find(skipped_channels.begin(), skipped_channels.end(), channel) != skipped_channels.end();
  };
  // Whether a later candidate could still be tried (the last one relays its own error).
  auto followed = [&](std::size_t i, std::size_t attempts) {
    if (attempts + 1 >= max_attempts) return false;
    for (std::size_t j = i + 1; j < candidates.size(); ++j) {
      auto const& next = candidates[j];
      auto const& next_channel = channels[next.channel];
      if (skipped(next.channel) || ran_as_shadow(j)) continue;
      if (services_.breakers.refusing(next_channel.name, next.upstream_model, next_channel.breaker,
                                      services_.clock.now())) {
        continue;
      }
      return true;
    }
    return false;
  };
  AttemptResult last;
  std::size_t attempts = 0;
  bool deadline_passed = false;  // no attempt could start: the retry deadline had passed
  BreakerRefusals refusals;
  // Racing (docs/racing.md): decided once per request; an unarmed one takes the plain path.
  std::optional<RaceArming> const arming = armRace(services_.racing, ctx);
  if (arming) {
    races_armed_.inc();
    if (services_.limits.sharesHedgeBudget()) {
      // The fleet's hedge budget counts it too; the request does not wait for Redis.
      boost::asio::co_spawn(co_await boost::asio::this_coro::executor,
                            services_.limits.noteHedgeRequest(), boost::asio::detached);
    }
  }
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    auto const& candidate = candidates[i];
    auto const& channel = channels[candidate.channel];
    auto const& key = channel.keys[candidate.key];
    if (skipped(candidate.channel)) continue;
    if (ran_as_shadow(i)) continue;
    if (attempts > 0) {
      // What earlier attempts of this request (or others meanwhile) learned.
      if (services_.key_health.pausedUntil(key.id, candidate.upstream_model)) continue;
      if (services_.freezes.frozen(channel.name, key.id, candidate.upstream_model)) continue;
    }
    if (MonoClock::now() >= no_attempt_after) {
      deadline_passed = true;
      break;
    }

    // Breaker, then buckets, then the attempt: an open breaker costs nothing, and a request
    // waiting for tokens holds no connection.
    routing::BreakerDecision admission = services_.breakers.admit(
        channel.name, candidate.upstream_model, channel.breaker, services_.clock.now());
    if (admission.admission == routing::Admission::Refused) {
      refusals.note(channel.name, admission);
      services_.metrics_registry.counter(telemetry::MetricId::BreakerSkipsTotal)
          .labels({channel.name, admission.reason})
          .inc();
      continue;
    }
    bool const probe = admission.admission == routing::Admission::Probe;
    bool is_last = !followed(i, attempts);
    BucketPass buckets;
    buckets.demands = bucketDemandsFor(channel, key, candidate.upstream_model);
    if (!buckets.demands.empty()) {
      buckets = co_await takeBuckets(ctx, std::move(buckets.demands), is_last, no_attempt_after);
    }
    if (!buckets.passed) {
      services_.breakers.record(channel.name, candidate.upstream_model, channel.breaker,
                                routing::AttemptSignal::Ignored, probe, services_.clock.now());
      if (ctx.response->cancellation().cancelled()) {
        ctx.record.status = 499;
        ctx.record.error = "client_gone";
        co_return;
      }
      continue;
    }
    if (MonoClock::now() >= no_attempt_after) {
      // The wait for the buckets used up the request's budget: no attempt starts after it, and
      // the tokens taken for it go back.
      services_.breakers.record(channel.name, candidate.upstream_model, channel.breaker,
                                routing::AttemptSignal::Ignored, probe, services_.clock.now());
      if (buckets.grant.taken) {
        co_await services_.limits.settleBuckets(std::move(buckets.demands), buckets.grant,
                                                buckets.reserved, 0);
      }
      deadline_passed = true;
      break;
    }

    AttemptResult result;
    if (arming && channelRaces(channel)) {
      // Racing: this candidate is the primary; shadows may join it past its threshold.
      result = co_await race(ctx, candidates, i, is_last, probe, std::move(buckets), *arming,
                             raced, attempts);
    } else {
      ctx.record.attempts.emplace_back();
      AttemptRecord& record = ctx.record.attempts.back();
      describePlacement(ctx, candidate, record);
      ++attempts;
      std::size_t const number = ctx.record.attempts.size();
      showAttempt(ctx, number, record);
      services_.router_state.attemptStarted(key.id, key, ctx.prompt_tokens);
      result = co_await attempt(ctx, candidate, is_last, record);
      routing::Outcome outcome = concludeAttempt(ctx, candidate, result, record, probe);
      showAttempt(ctx, number, record);
      if (buckets.grant.taken && outcome == routing::Outcome::Success && ctx.record.usage) {
        // What the answer really used (a failed attempt is not settled: its estimate stays taken).
        co_await services_.limits.settleBuckets(std::move(buckets.demands), buckets.grant,
                                                buckets.reserved, ctx.record.usage->total());
      }
      ctx.record.channel = record.channel;
      ctx.record.key_label = record.key_label;
    }
    switch (result.kind) {
      case AttemptResult::Kind::Answered: co_return;
      case AttemptResult::Kind::Aborted:
        if (ctx.response->cancellation().reason() == http::CancelReason::Shutdown &&
            !ctx.response->headSent()) {
          co_await answerShuttingDown(ctx);
        } else {
          ctx.record.status = 499;
          ctx.record.error = "client_gone";
        }
        co_return;
      case AttemptResult::Kind::Failed:
        if (result.policy.verdict == routing::Verdict::NextChannel) {
          skipped_channels.push_back(candidate.channel);
        }
        last = std::move(result);
        break;
    }
    if (is_last) break;
  }
  if (attempts == 0 && deadline_passed) {
    co_await answerDeadlinePassed(ctx);
    co_return;
  }
  if (attempts == 0 && refusals.any()) {
    co_await answerAllRefused(ctx, refusals);
    co_return;
  }
  co_await answerExhausted(ctx, last, attempts);
}

Task<Forwarder::BucketPass> Forwarder::takeBuckets(RequestContext& ctx,
                                                   std::vector<shared_state::OwnedBucketDemand> demands,
                                                   bool last, MonoTime no_attempt_after) {
  BucketPass pass;
  pass.demands = std::move(demands);
  auto const& settings = ctx.catalog->settings();
  pass.reserved = ctx.prompt_tokens + settings.buckets.expected_output_tokens;
  // Only the last candidate waits for its tokens (then goes anyway); with others left, a short
  // bucket sends the request on to them at once.
  if (last) {
    // Never past the request's retry deadline: an attempt starting after it could not be waited
    // for.
    auto left = std::chrono::duration_cast<Millis>(no_attempt_after - MonoClock::now());
    Millis max_wait = std::clamp(left, Millis(0), settings.buckets.max_wait);
    pass.grant = co_await services_.limits.acquireBuckets(pass.demands, pass.reserved, max_wait,
                                                          ctx.response->cancellation());
  } else {
    pass.grant = co_await services_.limits.tryBuckets(pass.demands, pass.reserved);
  }
  pass.passed = pass.grant.taken || pass.grant.overflow;
  if (!pass.passed && !ctx.response->cancellation().cancelled()) {
    services_.metrics_registry.counter(telemetry::MetricId::BucketEventsTotal).labels({"short"}).inc();
  }
  co_return pass;
}

}  // namespace llmux::proxy
