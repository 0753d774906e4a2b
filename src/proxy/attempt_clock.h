#pragma once

// The clocks of one upstream attempt (internal to the proxy module): its own timeouts, the
// longer first-token deadline of a request that asks the model to think, and the request's retry
// deadline, which bounds every wait before the commit point. Pure: the caller passes the time.

#include <string_view>

#include "config/settings.h"
#include "core/clock.h"
#include "protocol/reasoning_ask.h"

namespace llmux::proxy::forwarding {

/// How much thinking a request asks for (None: the channel's `first_token_ms`; Low: a budget
/// below 2,048 tokens; High: 4,096 tokens and more).
using ReasoningTier = protocol::ReasoningTier;

/// The tier of a request's reasoning ask. A budget without an effort is read through the same
/// table translation uses (translate/reasoning.h: effortForBudget).
ReasoningTier reasoningTierOf(protocol::ReasoningAsk const& ask);

/// A stream's first-token deadline for `tier`: the channel's `first_token_reasoning_ms` entry,
/// never shorter than its `first_token_ms`, never longer than its `total_ms`.
Millis firstTokenTimeout(config::Timeouts const& timeouts, ReasoningTier tier);

/// Which clocks bound a read of the answer.
enum class ReadPhase {
  AwaitingContent,  ///< a successful stream before its first content: + first token, deadline
  BeforeCommit,     ///< nothing reached the client yet: + the retry deadline
  Committed,        ///< the answer belongs to the client: idle and total only
};

/// The clocks of one attempt, started with it: a retry restarts them all (an earlier attempt's
/// time is never charged to the next one), except the request's retry deadline, which is the
/// request's own.
struct AttemptClock {
  MonoTime started{};                      ///< when the attempt began
  MonoTime deadline{};                     ///< the whole attempt (`timeouts.total`)
  MonoTime first_token = MonoTime::max();  ///< a stream's first content
  /// `retry.deadline_ms` after the request arrived: no wait before the commit point (connect,
  /// first byte, first token, an error body) lasts past it. After the commit point the answer
  /// belongs to the client and only `total` and `idle` govern it.
  MonoTime commit_by = MonoTime::max();
  Millis idle{0};                          ///< between two reads

  /// The clocks of an attempt starting at `now`.
  static AttemptClock start(MonoTime now, config::Timeouts const& timeouts, bool stream,
                            ReasoningTier tier, MonoTime retry_deadline);

  /// Connecting (DNS, TCP, TLS) must be done by this time.
  MonoTime connectBy(MonoTime now, Millis connect) const;
  /// The response head must have arrived by this time.
  MonoTime headBy(MonoTime now, Millis first_byte) const;
  /// The deadline of the next read of the answer.
  MonoTime nextRead(MonoTime now, ReadPhase phase) const;
  /// The failover reason of a timeout that hit at `now`: "deadline" when the retry deadline
  /// ended the wait, "timeout_first_token" when the first-token clock did, else
  /// "timeout_first_byte".
  std::string_view timeoutReason(MonoTime now) const;
};

}  // namespace llmux::proxy::forwarding
