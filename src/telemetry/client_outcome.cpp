#include "telemetry/client_outcome.h"

namespace llmux::telemetry {

std::string_view clientOutcomeName(ClientOutcome outcome) {
  switch (outcome) {
    case ClientOutcome::Success:
      return "success";
    case ClientOutcome::Failed:
      return "failed";
    case ClientOutcome::Cancelled:
      return "cancelled";
    case ClientOutcome::Rejected:
      return "rejected";
  }
  return "failed";
}

ClientOutcome clientOutcomeOf(RequestRecord const& record) {
  if (record.status == 499 || record.error == "client_gone") return ClientOutcome::Cancelled;
  bool answered = false;  // a raced request's losers may come after its winner
  for (AttemptRecord const& attempt : record.attempts) {
    answered = answered || attempt.outcome.is(AttemptOutcome::Kind::Ok) ||
               attempt.outcome.is(AttemptOutcome::Kind::RacingWon);
  }
  if (!answered && !record.attempts.empty()) {
    AttemptOutcome const& last = record.attempts.back().outcome;
    if (last.is(AttemptOutcome::Kind::Cancelled)) return ClientOutcome::Cancelled;
    if (last.failedAttempt()) return ClientOutcome::Failed;
    if (last.is(AttemptOutcome::Kind::ClientError)) return ClientOutcome::Rejected;
  }
  int const status = record.status;
  if (status >= 200 && status < 400) {
    return record.error.empty() ? ClientOutcome::Success : ClientOutcome::Failed;
  }
  if (status == 429) return record.over_limit ? ClientOutcome::Rejected : ClientOutcome::Failed;
  if (status >= 400 && status < 500) return ClientOutcome::Rejected;
  return ClientOutcome::Failed;
}

}  // namespace llmux::telemetry
