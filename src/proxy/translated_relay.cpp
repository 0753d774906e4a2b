// The forwarder's path for an upstream of another protocol than the client's: its errors and
// its answers, streamed or not, translated through the neutral model (src/translate).
#include "http/response_writer.h"
#include "http/server_request.h"
#include "http/upstream_exchange.h"
#include "protocol/error_shapes.h"
#include "proxy/answer_meter.h"
#include "proxy/error_reply.h"
#include "proxy/forwarder.h"
#include "proxy/forwarder_support.h"
#include "proxy/secret_redactor.h"
#include "proxy/translation.h"
#include "proxy/upstream_request.h"
#include "translate/codec.h"
#include "translate/errors.h"
#include "translate/tool_names.h"
#include "translate/usage.h"
#include "translate/usage_tally.h"

namespace llmux::proxy {

using namespace forwarding;
using net::Task;

namespace {

constexpr std::size_t kErrorBodyLimit = 1u << 20;
// A non-streamed answer is decoded whole before it is re-encoded for the client.
constexpr std::size_t kAnswerBodyLimit = 64u << 20;

/// `content_type`: "text/event-stream" for a stream, "application/json" otherwise (a Gemini
/// JSON-array stream included).
HeaderList translatedHeaders(RequestContext const& ctx, HeaderList const& upstream,
                             std::string_view content_type) {
  HeaderList headers;
  headers.add("Content-Type", content_type);
  if (ctx.profile.stream) headers.add("Cache-Control", "no-cache");
  for (char const* name : {"x-request-id", "request-id"}) {
    if (auto id = upstream.find(name)) headers.add("x-upstream-request-id", *id);
  }
  headers.add("X-Request-Id", ctx.request_id);
  return headers;
}

translate::EncodeOptions encodeOptions(RequestContext const& ctx, std::int64_t created) {
  translate::EncodeOptions options;
  options.model = ctx.profile.model;
  options.id = ctx.request_id;
  options.include_usage = ctx.neutral && ctx.neutral->include_usage;
  options.created = created;
  return options;
}

}  // namespace

Task<Forwarder::AttemptResult> Forwarder::answerTranslatedError(
    RequestContext& ctx, http::UpstreamExchange& exchange, AttemptRecord& record, Protocol upstream,
    AttemptResult result, bool last, routing::PlannedCandidate const& candidate,
    AttemptClock clock) {
  // The body says what the status alone cannot (a context overflow, Gemini's wrong key, its
  // retry delay), and it is what the client gets, translated, if this is the last candidate.
  Result<std::string> body = Error{};
  if (decidesOnHead(result.status, last)) {
    body = std::string(exchange.bufferedBody());
    exchange.abort();
  } else {
    WaitClock wait(ctx.upstream_wait);
    body = co_await readWholeBody(exchange, clock, kErrorBodyLimit);
  }
  if (!body) {
    exchange.abort();
    result.error = body.error();
    result.status = 0;
    result.policy = transportFailure(body.error(), clock);
    record.outcome = failureOutcome(last, result.policy.reason);
    co_return result;
  }
  exchange.finish();  // after an abort: nothing more
  // The message reaches the client, the logs and the request log: never with the channel key.
  auto const& key = ctx.catalog->settings().channels[candidate.channel].keys[candidate.key];
  SecretRedactor(key.secret).redact(*body);
  // A prompt too long for the model is the client's problem whatever the status: never retried.
  AnswerJudgement const judged =
      judgeErrorAnswer(ctx, candidate, upstream, result.status, exchange.headers(), *body,
                       /*overflow_is_clients=*/true, last, result.retry_after);
  result.policy = judged.policy;
  bool const retryable = judged.retryable();
  if (judged.fail_over) {
    record.outcome = failureOutcome(last, result.policy.reason);
    if (judged.hide_answer) result.status = 401;
    co_return result;
  }
  translate::ClientError answer =
      translate::renderForClient(ctx.protocol, judged.error, ctx.request_id);
  answer.headers.add("X-Request-Id", ctx.request_id);
  if (retryable) answer.headers.add("x-llmux-attempts", std::to_string(ctx.record.attempts.size()));
  ctx.record.status = answer.status;
  ctx.record.error = judged.error.message;
  co_await ctx.response->send(answer.status, answer.headers, answer.body);
  record.outcome = retryable ? failureOutcome(true, result.policy.reason) : AttemptOutcome::clientError();
  result.kind = AttemptResult::Kind::Answered;
  co_return result;
}

Task<Forwarder::AttemptResult> Forwarder::relayTranslated(RequestContext& ctx,
                                                          http::UpstreamExchange& exchange,
                                                          AttemptRecord& record, Protocol upstream,
                                                          AttemptClock clock, bool last) {
  AttemptResult result;
  auto& out = *ctx.response;
  std::int64_t created = std::chrono::duration_cast<std::chrono::seconds>(
                             services_.clock.wallNow().time_since_epoch())
                             .count();
  auto fail = [&](Error error) {
    exchange.abort();
    result.kind = error.kind == ErrorKind::Cancelled ? AttemptResult::Kind::Aborted
                                                     : AttemptResult::Kind::Failed;
    result.policy = transportFailure(error, clock);
    result.error = std::move(error);
    if (result.kind == AttemptResult::Kind::Aborted) record.outcome = AttemptOutcome::cancelled();
    return result;
  };

  if (!ctx.profile.stream) {
    Result<std::string> body = Error{};
    {
      WaitClock wait(ctx.upstream_wait);
      // Encoded for the client only once it is whole: all of it comes before the commit point.
      body = co_await readWholeBody(exchange, clock, kAnswerBodyLimit);
    }
    if (!body) co_return fail(body.error());
    auto decoded = translate::decodeResponse(upstream, *body);
    if (!decoded) {
      co_return fail(makeError(ErrorKind::UpstreamProtocol,
                               "the upstream's answer could not be read: " + decoded.error().message));
    }
    exchange.finish();
    ctx.record.usage = translate::usageOrEstimate(*decoded, ctx.prompt_tokens);
    translate::restoreToolNames(*decoded, ctx.tool_names);  // the client's own tool names
    std::string answer = translate::encodeResponse(ctx.protocol, *decoded, encodeOptions(ctx, created));
    ctx.record.status = 200;
    record.outcome = AttemptOutcome::ok();
    result.kind = AttemptResult::Kind::Answered;
    if (!co_await out.send(200, translatedHeaders(ctx, exchange.headers(), "application/json"),
                          answer)) {
      markClientGone(ctx, record);
    }
    co_return result;
  }

  auto decoder = translate::makeStreamDecoder(upstream);
  auto encoder = clientStreamEncoder(ctx, encodeOptions(ctx, created));
  translate::UsageTally tally;
  std::vector<translate::Event> events;
  std::string bytes;  // client bytes not written yet (the preamble is held until content)
  bool client_ok = true;
  while (client_ok) {
    Result<std::string_view> piece = Error{};
    {
      WaitClock wait(ctx.upstream_wait);
      ReadPhase phase = tally.contentStarted() ? ReadPhase::Committed : ReadPhase::AwaitingContent;
      piece = co_await exchange.readBody(clock.nextRead(MonoClock::now(), phase));
    }
    bool committed = tally.contentStarted();  // from the first content on, no failover
    events.clear();
    if (!piece) {
      if (!committed) co_return fail(piece.error());
      if (piece.error().kind == ErrorKind::Cancelled ||
          out.cancellation().reason() == http::CancelReason::ClientGone) {
        exchange.abort();
        ctx.record.usage = tally.usageOrEstimate(ctx.prompt_tokens);
        markClientGone(ctx, record);
        result.kind = AttemptResult::Kind::Answered;
        co_return result;
      }
      bool shutdown = out.cancellation().reason() == http::CancelReason::Shutdown;
      translate::Event error;
      error.type = translate::EventType::Error;
      error.error_status = 502;
      error.text = shutdown ? "the gateway is shutting down"
                            : "the upstream failed mid-response: " + piece.error().message;
      events.push_back(std::move(error));
      ctx.record.error = shutdown ? "shutdown" : "upstream_broke_mid_stream";
      record.outcome = AttemptOutcome::failed("mid_stream");
      exchange.abort();
    } else {
      decoder->feed(*piece, events);
      if (exchange.done()) decoder->finish(events);
    }

    bool stream_over = !piece || exchange.done();
    for (auto& event : events) {
      if (!tally.contentStarted() && event.type == translate::EventType::Error) {
        // An error in place of content: judged like an error status, nothing was sent yet.
        exchange.abort();
        co_return co_await answerStreamFailure(ctx, record, event, last);
      }
      tally.observe(event);
      tally.fixUp(event);
      translate::restoreToolNames(event, ctx.tool_names);  // the client's own tool names
      encoder->encode(event, bytes);
      if (event.type == translate::EventType::Error) stream_over = true;
    }
    if (!tally.contentStarted() && !stream_over) {
      // Hold the preamble until content, within bounds (a stream of pings must not grow it).
      if (bytes.size() > kHeldBeforeContentLimit) {
        co_return fail(makeError(ErrorKind::UpstreamProtocol,
                                 "the upstream sent more than 1 MiB before any content"));
      }
      continue;
    }

    if (!out.headSent()) {
      if (tally.contentStarted()) {
        record.first_token_ms = millisBetween(clock.started, MonoClock::now());
      }
      ctx.record.status = 200;
      if (record.outcome.pending()) record.outcome = AttemptOutcome::ok();
      result.kind = AttemptResult::Kind::Answered;
      HeaderList headers = translatedHeaders(ctx, exchange.headers(), clientStreamContentType(ctx));
      if (stream_over) {
        client_ok = co_await out.send(200, headers, bytes);
        break;
      }
      client_ok = co_await out.beginBody(200, headers, std::nullopt, bytes);
    } else if (stream_over) {
      client_ok = co_await out.endBody(bytes);
      break;
    } else {
      client_ok = co_await out.writeBody(bytes);
    }
    bytes.clear();
  }
  ctx.record.usage = tally.usageOrEstimate(ctx.prompt_tokens);
  if (!client_ok) {
    exchange.abort();
    markClientGone(ctx, record);
  } else if (exchange.done()) {
    exchange.finish();
  }
  result.kind = AttemptResult::Kind::Answered;
  co_return result;
}

Task<Forwarder::AttemptResult> Forwarder::answerStreamFailure(RequestContext& ctx,
                                                              AttemptRecord& record,
                                                              translate::Event const& failure,
                                                              bool last) {
  AttemptResult result;
  int status = failure.error_status > 0 ? failure.error_status : 502;
  translate::UpstreamError error = translate::upstreamError(status, failure.text);
  result.policy = streamFailurePolicy(error);
  bool retryable = result.policy.verdict != routing::Verdict::Relay;
  if (retryable && !last) {
    result.kind = AttemptResult::Kind::Failed;
    result.status = status;
    result.error = makeError(ErrorKind::UpstreamStatus, failure.text);
    co_return result;  // the caller records the outcome
  }
  // The client's own error (a context overflow, a bad parameter), or the last candidate's: an
  // HTTP error in the client's shape, as if the upstream had answered with its status.
  translate::ClientError answer = translate::renderForClient(ctx.protocol, error, ctx.request_id);
  answer.headers.add("X-Request-Id", ctx.request_id);
  if (retryable) answer.headers.add("x-llmux-attempts", std::to_string(ctx.record.attempts.size()));
  ctx.record.status = answer.status;
  ctx.record.error = error.message;
  record.outcome = retryable ? failureOutcome(true, result.policy.reason) : AttemptOutcome::clientError();
  if (!co_await ctx.response->send(answer.status, answer.headers, answer.body)) {
    markClientGone(ctx, record);
  }
  result.kind = AttemptResult::Kind::Answered;
  co_return result;
}

}  // namespace llmux::proxy
