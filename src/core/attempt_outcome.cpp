#include "core/attempt_outcome.h"

namespace llmux {

std::string AttemptOutcome::text() const {
  switch (kind_) {
    case Kind::Pending: return "in_progress";
    case Kind::Ok: return "ok";
    case Kind::ClientError: return "client_error";
    case Kind::Cancelled: return "cancelled";
    case Kind::Failover: return "failover:" + reason_;
    case Kind::Failed: return "failed:" + reason_;
    case Kind::RacingWon: return "racing_won";
    case Kind::RacingLost: return "racing_lost";
  }
  return "";
}

AttemptOutcome AttemptOutcome::parse(std::string_view text) {
  if (text.empty() || text == "in_progress") return {};
  if (text == "ok") return ok();
  if (text == "client_error") return clientError();
  if (text == "cancelled") return cancelled();
  if (text == "racing_won") return racingWon();
  if (text == "racing_lost") return racingLost();
  if (text.starts_with("failover:")) return failover(text.substr(9));
  if (text.starts_with("failed:")) return failed(text.substr(7));
  return failed(text);
}

}  // namespace llmux
