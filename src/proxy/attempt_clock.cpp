#include "proxy/attempt_clock.h"

#include <algorithm>

#include "translate/reasoning.h"

namespace llmux::proxy::forwarding {
namespace {

MonoTime earliest(MonoTime a, MonoTime b) { return std::min(a, b); }

ReasoningTier tierOfEffort(std::string_view effort) {
  if (effort == "minimal" || effort == "low") return ReasoningTier::Low;
  if (effort == "high" || effort == "xhigh" || effort == "max" || effort == "ultra") {
    return ReasoningTier::High;
  }
  return ReasoningTier::Medium;  // medium, and an effort this table does not know
}

}  // namespace

ReasoningTier reasoningTierOf(protocol::ReasoningAsk const& ask) {
  if (ask.mode != protocol::ReasoningAsk::Mode::On) return ReasoningTier::None;
  if (!ask.effort.empty()) return tierOfEffort(ask.effort);
  if (ask.budget_tokens) return tierOfEffort(translate::effortForBudget(*ask.budget_tokens));
  return ReasoningTier::Medium;
}

Millis firstTokenTimeout(config::Timeouts const& timeouts, ReasoningTier tier) {
  Millis wanted = timeouts.first_token;
  switch (tier) {
    case ReasoningTier::None: break;
    case ReasoningTier::Low: wanted = timeouts.first_token_reasoning.low; break;
    case ReasoningTier::Medium: wanted = timeouts.first_token_reasoning.medium; break;
    case ReasoningTier::High: wanted = timeouts.first_token_reasoning.high; break;
  }
  return std::min(std::max(wanted, timeouts.first_token), timeouts.total);
}

AttemptClock AttemptClock::start(MonoTime now, config::Timeouts const& timeouts, bool stream,
                                 ReasoningTier tier, MonoTime retry_deadline) {
  AttemptClock clock;
  clock.started = now;
  clock.deadline = now + timeouts.total;
  if (stream) clock.first_token = now + firstTokenTimeout(timeouts, tier);
  clock.commit_by = retry_deadline;
  clock.idle = timeouts.idle;
  return clock;
}

MonoTime AttemptClock::connectBy(MonoTime now, Millis connect) const {
  return earliest(earliest(now + connect, deadline), commit_by);
}

MonoTime AttemptClock::headBy(MonoTime now, Millis first_byte) const {
  return earliest(earliest(earliest(now + first_byte, deadline), first_token), commit_by);
}

MonoTime AttemptClock::nextRead(MonoTime now, ReadPhase phase) const {
  MonoTime next = earliest(now + idle, deadline);
  switch (phase) {
    case ReadPhase::AwaitingContent: return earliest(earliest(next, first_token), commit_by);
    case ReadPhase::BeforeCommit: return earliest(next, commit_by);
    case ReadPhase::Committed: return next;
  }
  return next;
}

std::string_view AttemptClock::timeoutReason(MonoTime now) const {
  // The earlier of the two request-side clocks that has run out is the one that ended the wait.
  if (now >= commit_by && commit_by <= first_token) return "deadline";
  if (now >= first_token) return "timeout_first_token";
  if (now >= commit_by) return "deadline";
  return "timeout_first_byte";
}

}  // namespace llmux::proxy::forwarding
