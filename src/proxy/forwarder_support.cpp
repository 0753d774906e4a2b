#include "proxy/forwarder_support.h"

#include "http/upstream_connection.h"
#include "http/upstream_exchange.h"

namespace llmux::proxy::forwarding {

AbortOnCancel::AbortOnCancel(http::Cancellation& cancellation, http::UpstreamExchange& exchange)
    : cancellation_(cancellation),
      id_(cancellation.add([&exchange](http::CancelReason) { exchange.abort(); })) {}

routing::FailurePolicy transportFailure(Error const& error, AttemptClock const& clock) {
  routing::FailurePolicy policy = routing::policyForTransportError(error.kind);
  if (error.kind != ErrorKind::Timeout) return policy;
  policy.reason = clock.timeoutReason(MonoClock::now());
  if (policy.reason == "deadline") policy.verdict = routing::Verdict::Stop;
  return policy;
}

AttemptOutcome failureOutcome(bool last, std::string_view reason) {
  // Past the retry deadline no candidate follows, whatever was left.
  return AttemptOutcome::failure(last || reason == "deadline", reason);
}

void markClientGone(RequestContext& ctx, AttemptRecord& record) {
  ctx.record.status = 499;
  ctx.record.error = "client_gone";
  record.outcome = AttemptOutcome::cancelled();
}

std::string freezeReason(int status, std::string_view body, std::string_view key_secret) {
  constexpr std::size_t kReasonBodyChars = 200;
  std::string reason = "status " + std::to_string(status);
  if (body.empty() || (!key_secret.empty() && body.find(key_secret) != std::string_view::npos)) {
    return reason;
  }
  reason += ": ";
  bool space = false;
  for (char c : body.substr(0, kReasonBodyChars)) {
    bool blank = c == ' ' || c == '\n' || c == '\r' || c == '\t';
    if (blank && space) continue;
    space = blank;
    reason.push_back(blank ? ' ' : c);
  }
  return reason;
}

net::Task<SendOutcome> sendUpstreamRequest(http::UpstreamPool& pool, http::PeerAddress const& peer,
                                           std::array<std::string_view, 6> pieces,
                                           AttemptClock clock, config::Timeouts const& timeouts,
                                           http::Cancellation& cancellation,
                                           std::chrono::nanoseconds& waited,
                                           std::optional<http::UpstreamExchange>& exchange) {
  SendOutcome outcome;
  for (int fresh = 0; fresh < 2; ++fresh) {
    Result<std::unique_ptr<http::UpstreamConnection>> connection = Error{};
    {
      WaitClock wait(waited);
      MonoTime connect_deadline = clock.connectBy(MonoClock::now(), timeouts.connect);
      if (fresh == 0) {
        connection = co_await pool.acquire(peer, connect_deadline, &cancellation);
      } else {
        connection = co_await pool.connectNew(peer, connect_deadline, &cancellation);
      }
    }
    if (cancellation.cancelled()) {
      outcome.error = makeError(ErrorKind::Cancelled, "cancelled");
      co_return outcome;
    }
    if (!connection) {
      outcome.error = connection.error();
      outcome.connect_failed = true;
      co_return outcome;
    }
    exchange.emplace(pool, std::move(*connection));
    AbortOnCancel abort_on_cancel(cancellation, *exchange);
    Result<void> sent = Error{};
    {
      WaitClock wait(waited);
      sent = co_await exchange->start(pieces, clock.headBy(MonoClock::now(), timeouts.first_byte));
    }
    if (sent) {
      outcome.error.reset();
      co_return outcome;
    }
    outcome.error = sent.error();
    if (!exchange->staleConnection()) co_return outcome;
  }
  co_return outcome;
}

net::Task<Result<std::string>> readWholeBody(http::UpstreamExchange& exchange, AttemptClock clock,
                                             std::size_t limit) {
  std::string body;
  while (!exchange.done()) {
    auto piece =
        co_await exchange.readBody(clock.nextRead(MonoClock::now(), ReadPhase::BeforeCommit));
    if (!piece) co_return piece.error();
    body.append(*piece);
    if (body.size() > limit) {
      co_return makeError(ErrorKind::UpstreamProtocol,
                          "upstream body larger than " + std::to_string(limit) + " bytes");
    }
  }
  co_return body;
}

}  // namespace llmux::proxy::forwarding
