#include "routing/outcome.h"

namespace llmux::routing {

OutcomeAction actionFor(Outcome outcome) {
  // verdict, counts_against_key, may_freeze, label, trips_breaker
  switch (outcome) {
    case Outcome::Success: return {Verdict::Relay, false, false, "success"};
    // The client's request is wrong: another upstream would say the same (and bill for it).
    case Outcome::ClientError: return {Verdict::Relay, false, true, "client_error"};
    case Outcome::ContextOverflow: return {Verdict::Relay, false, false, "context_overflow"};
    case Outcome::ContentPolicy: return {Verdict::Relay, false, false, "content_policy"};
    // Sending too fast is not the key being broken: the key sits out (KeyHealth), its score
    // is not lowered for it.
    case Outcome::RateLimited: return {Verdict::NextKey, false, true, "rate_limited"};
    case Outcome::KeyRejected: return {Verdict::NextKey, true, true, "key_rejected"};
    case Outcome::ServerError: return {Verdict::NextCandidate, true, true, "server_error", true};
    case Outcome::Overloaded: return {Verdict::NextCandidate, true, true, "overloaded", true};
    case Outcome::ConnectError: return {Verdict::NextChannel, true, false, "connect", true};
    case Outcome::TlsError: return {Verdict::NextChannel, true, false, "tls", true};
    case Outcome::TimeoutFirstByte: return {Verdict::NextChannel, true, false, "timeout_first_byte", true};
    case Outcome::TimeoutFirstToken: return {Verdict::NextChannel, true, false, "timeout_first_token", true};
    // The request's own budget ran out, whoever spent it (earlier attempts, a bucket wait): not
    // held against this upstream.
    case Outcome::DeadlineReached: return {Verdict::Stop, false, false, "deadline"};
    case Outcome::StreamErrorBeforeContent:
      return {Verdict::NextCandidate, true, false, "stream_error_before_content", true};
    // Content reached the client: a retry would duplicate it.
    case Outcome::MidStreamFailure: return {Verdict::Stop, true, false, "mid_stream"};
    case Outcome::ClientGone: return {Verdict::Stop, false, false, "client_gone"};
    case Outcome::Untranslatable: return {Verdict::NextChannel, false, false, "untranslatable"};
    // Nothing was sent: the upstream is not to blame, the operator must fix the channel.
    case Outcome::Misconfigured: return {Verdict::NextChannel, false, false, "misconfigured"};
  }
  return {Verdict::Relay, false, false, "unknown"};
}

Outcome outcomeForStatus(int status) {
  if (status < 400) return Outcome::Success;
  switch (status) {
    case 401:
    case 403: return Outcome::KeyRejected;
    case 429: return Outcome::RateLimited;
    case 408: return Outcome::ServerError;
    case 529: return Outcome::Overloaded;
    default: return status >= 500 ? Outcome::ServerError : Outcome::ClientError;
  }
}

Outcome outcomeForTransportError(Error const& error) {
  switch (error.kind) {
    case ErrorKind::Timeout: return Outcome::TimeoutFirstByte;
    case ErrorKind::Cancelled: return Outcome::ClientGone;
    case ErrorKind::InvalidRequest: return Outcome::Untranslatable;
    case ErrorKind::Connect:
      // The upstream pool reports handshake and verification failures with this prefix.
      return error.message.find("TLS") != std::string::npos ? Outcome::TlsError : Outcome::ConnectError;
    default: return Outcome::ConnectError;
  }
}

std::string_view outcomeName(Outcome outcome) { return actionFor(outcome).label; }

}  // namespace llmux::routing
