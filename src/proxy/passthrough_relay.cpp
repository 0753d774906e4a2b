// The relay of a same-protocol answer (internal to the forwarder): bytes as they come, held
// only until the commit point — for a stream, its first content event.
#include <string>

#include "http/response_writer.h"
#include "http/upstream_exchange.h"
#include "protocol/error_shapes.h"
#include "proxy/answer_meter.h"
#include "proxy/media_meter.h"
#include "proxy/forwarder.h"
#include "proxy/forwarder_support.h"
#include "translate/errors.h"

namespace llmux::proxy {

using net::Task;
using namespace forwarding;

namespace {

/// The upstream's response id, when it is in this piece of a Responses stream (for the
/// `response.failed` event if the stream breaks later).
void noteResponseId(std::string_view piece, std::string& response_id) {
  if (!response_id.empty()) return;
  auto pos = piece.find("\"id\":\"resp_");
  if (pos == std::string_view::npos) return;
  pos += 6;
  auto end = piece.find('"', pos);
  if (end != std::string_view::npos) response_id = std::string(piece.substr(pos, end - pos));
}

}  // namespace

Task<Forwarder::AttemptResult> Forwarder::relay(RequestContext& ctx, http::UpstreamExchange& exchange,
                                                AttemptRecord& record, AttemptClock clock,
                                                HeaderList headers, bool last) {
  AttemptResult result;
  auto& out = *ctx.response;
  // Before the commit point the retry deadline bounds every read; before the first content of a
  // successful stream the first-token clock runs too.
  ReadPhase phase = exchange.status() < 300 && ctx.profile.stream ? ReadPhase::AwaitingContent
                                                                  : ReadPhase::BeforeCommit;
  auto read_next = [&]() { return clock.nextRead(MonoClock::now(), phase); };
  auto failed_before_commit = [&](Error error) {
    exchange.abort();
    if (error.kind == ErrorKind::Cancelled) {
      result.kind = AttemptResult::Kind::Aborted;
      record.outcome = AttemptOutcome::cancelled();
      return result;
    }
    result.policy = transportFailure(error, clock);
    result.error = std::move(error);
    return result;  // the caller records the outcome: it knows whether a candidate follows
  };

  // Commit point: nothing goes to the client before the first body piece has arrived — for a
  // successful stream, before its first content event — so an upstream that sends a head (or a
  // stream preamble) and then stalls, breaks or reports an error can still be failed over.
  Result<std::string_view> first = Error{};
  {
    WaitClock wait(ctx.upstream_wait);
    first = co_await exchange.readBody(read_next());
  }
  if (!first) co_return failed_before_commit(first.error());

  bool success = exchange.status() < 300;
  // A media answer (docs/media.md) is metered by its own reader: no chat usage in it, and binary
  // bodies are never kept.
  std::optional<MediaMeter> media;
  if (ctx.modality) {
    media.emplace(ctx.route.kind, ctx.media_ask, success,
                  protocol::isJsonContentType(headers.get("content-type")));
  }
  AnswerMeter meter(ctx.protocol, success && ctx.profile.stream, success && !media, ctx.prompt_tokens);
  auto feed = [&](std::string_view bytes) {
    meter.feed(bytes);
    if (media) media->feed(bytes);
  };
  // What the answer used, into the record; `complete`: the whole body arrived.
  auto settle = [&](bool complete) {
    if (!media) {
      ctx.record.usage = meter.usage();
      return;
    }
    if (!complete) return;  // a cut answer is not billed by its units
    media->finish();
    ctx.record.usage = media->usage();
    ctx.record.media = media->mediaUsage();
    ctx.video_job_id = media->videoId();
  };
  std::string held;  // stream bytes read before the commit point
  std::string_view start = *first;
  AttemptOutcome failure_outcome;  // set when the stream reported an error in place of content
  feed(start);
  if (meter.holding() && !exchange.done()) {
    held.assign(*first);
    while (meter.holding() && !exchange.done()) {
      Result<std::string_view> piece = Error{};
      {
        WaitClock wait(ctx.upstream_wait);
        piece = co_await exchange.readBody(read_next());
      }
      if (!piece) co_return failed_before_commit(piece.error());
      held.append(*piece);
      if (held.size() > kHeldBeforeContentLimit) {
        // Pings or empty frames without end: not an answer worth holding memory for.
        co_return failed_before_commit(makeError(
            ErrorKind::UpstreamProtocol, "the upstream sent more than 1 MiB before any content"));
      }
      feed(*piece);
    }
    start = held;
  }
  phase = ReadPhase::Committed;
  if (meter.contentStarted()) {
    record.first_token_ms = millisBetween(clock.started, MonoClock::now());
  }
  if (exchange.done()) meter.finish();
  if (auto const& failure = meter.failureBeforeContent()) {
    // An error event in place of content is judged like an error status. The last candidate's
    // error, or the client's own (a context overflow, a bad parameter), reaches the client as
    // the upstream sent it: same protocol, its own error event.
    translate::UpstreamError error = translate::upstreamError(failure->status, failure->message);
    routing::FailurePolicy policy = streamFailurePolicy(error);
    bool retryable = policy.verdict != routing::Verdict::Relay;
    if (retryable && !last) {
      exchange.abort();
      result.kind = AttemptResult::Kind::Failed;
      result.status = failure->status;
      result.policy = policy;
      result.error = makeError(ErrorKind::UpstreamStatus, failure->message);
      co_return result;
    }
    ctx.record.error = failure->message;
    failure_outcome = retryable ? failureOutcome(true, policy.reason) : AttemptOutcome::clientError();
  }

  result.kind = AttemptResult::Kind::Answered;
  protocol::StreamErrorContext stream_context;
  stream_context.model = ctx.profile.model;
  if (ctx.protocol == Protocol::OpenAiResponses) noteResponseId(start, stream_context.response_id);
  ctx.record.status = exchange.status();
  record.outcome = failure_outcome.pending() ? relayedOutcome(exchange.status()) : failure_outcome;
  if (exchange.done()) {
    // The whole answer came before the commit point: one write with a Content-Length, whatever
    // the upstream's framing (framing is per hop).
    bool sent = co_await out.send(exchange.status(), headers, start);
    exchange.finish();
    if (!sent) markClientGone(ctx, record);
    settle(true);
    co_return result;
  }
  bool client_ok = co_await out.beginBody(exchange.status(), headers, exchange.contentLength(), start);
  while (client_ok) {
    Result<std::string_view> piece = Error{};
    {
      WaitClock wait(ctx.upstream_wait);
      piece = co_await exchange.readBody(read_next());
    }
    if (!piece) {
      exchange.abort();
      settle(false);
      auto reason = out.cancellation().reason();
      if (reason == http::CancelReason::ClientGone) {
        client_ok = false;
        break;
      }
      // The stream belongs to the client now: no retry. Stream clients get their protocol's
      // error event and a clean end; a plain body is cut so the client sees it is incomplete.
      std::string why = reason == http::CancelReason::Shutdown
                            ? "the gateway is shutting down"
                            : "the upstream failed mid-response: " + piece.error().message;
      ctx.record.error = reason == http::CancelReason::Shutdown ? "shutdown" : "upstream_broke_mid_stream";
      record.outcome = AttemptOutcome::failed("mid_stream");
      if (ctx.profile.stream && !exchange.contentLength()) {
        co_await out.endBody(protocol::renderStreamError(ctx.protocol, 502, why, stream_context));
      } else {
        out.breakConnection();
      }
      co_return result;
    }
    if (ctx.protocol == Protocol::OpenAiResponses) noteResponseId(*piece, stream_context.response_id);
    feed(*piece);
    if (exchange.done()) {
      meter.finish();
      settle(true);
      // The last piece and the end of the body in one write.
      client_ok = co_await out.endBody(*piece);
      if (client_ok) {
        exchange.finish();
        co_return result;
      }
      break;
    }
    client_ok = co_await out.writeBody(*piece);
  }
  exchange.abort();
  settle(false);
  markClientGone(ctx, record);
  co_return result;
}

}  // namespace llmux::proxy
