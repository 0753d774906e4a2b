#pragma once

#include <string_view>

#include "core/error.h"

namespace llmux::routing {

/// How one upstream attempt ended, as the router learns from it. One table (actionFor) says what
/// each outcome means; the forwarder classifies, the router and the freeze rules act.
enum class Outcome {
  Success,                   ///< 2xx relayed
  ClientError,               ///< a 4xx caused by the client's request (400, 404, 413, 422...)
  ContextOverflow,           ///< the prompt does not fit the model (any status the upstream chose)
  ContentPolicy,             ///< the upstream refused the content (a policy block)
  RateLimited,               ///< 429
  KeyRejected,               ///< 401, 403, Gemini's API_KEY_INVALID: the channel's key
  ServerError,               ///< 408, 5xx other than 529
  Overloaded,                ///< Anthropic 529
  ConnectError,              ///< DNS, TCP
  TlsError,                  ///< TLS handshake or verification
  TimeoutFirstByte,          ///< no response head in time
  TimeoutFirstToken,         ///< a stream's first content did not come in time (cut there)
  /// The request's retry deadline ran out before the answer reached the client: the request
  /// ends (504); the upstream was cut by the request's budget, not by its own clocks.
  DeadlineReached,
  StreamErrorBeforeContent,  ///< a stream reported an error event before any content (5xx-like)
  MidStreamFailure,          ///< the stream broke after content reached the client
  ClientGone,                ///< the client left: never the upstream's fault
  Untranslatable,            ///< this channel's protocol cannot carry the request
  Misconfigured,             ///< the channel's settings would write an unsafe request head
};

/// What the gateway does after an outcome.
enum class Verdict {
  Relay,         ///< return to the client (success, or the client's own error): no other candidate
  NextKey,       ///< the key's problem: try the next candidate (other keys of the channel too)
  NextCandidate, ///< the upstream's problem: try the next candidate
  NextChannel,   ///< the channel is unreachable: skip its other keys too
  Stop,          ///< nothing more to do (the client left, or content was already delivered)
};

struct OutcomeAction {
  Verdict verdict = Verdict::Relay;
  /// Counts as a failure of the (channel, key, model): consecutive failures, the 5-minute window
  /// and its cooldown, the decayed success rate, session anti-affinity.
  bool counts_against_key = false;
  /// Freeze rules are matched against the answer (a status arrived).
  bool may_freeze = false;
  std::string_view label;  ///< metric label ("rate_limited", "server_error", ...)
  /// Counts against the (channel, upstream model) failure breaker: the upstream is broken (5xx,
  /// unreachable, silent). Not 429 (we send too fast: the buckets' job), not the client's
  /// errors, not a client leaving, not a long answer that keeps streaming.
  bool trips_breaker = false;
};

/// The table: every outcome's action.
OutcomeAction actionFor(Outcome outcome);

/// The outcome of an upstream status (2xx → Success). 401/403 → KeyRejected, 429 → RateLimited,
/// 408/5xx → ServerError, 529 → Overloaded, any other 4xx → ClientError.
Outcome outcomeForStatus(int status);

/// The outcome of an attempt that got no response head.
Outcome outcomeForTransportError(Error const& error);

/// Stable names ("success", "rate_limited", ...), for logs and metric labels.
std::string_view outcomeName(Outcome outcome);

}  // namespace llmux::routing
