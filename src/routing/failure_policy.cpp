#include "routing/failure_policy.h"

#include <algorithm>

namespace llmux::routing {

FailurePolicy policyForStatus(int status) {
  // The verdict is the outcome table's (outcome.h); this adds the metric label.
  Verdict verdict = actionFor(outcomeForStatus(status)).verdict;
  if (verdict == Verdict::Relay) return {verdict, status < 400 ? "ok" : "client_error"};
  switch (status) {
    case 401: return {verdict, "status_401"};
    case 403: return {verdict, "status_403"};
    case 429: return {verdict, "status_429"};
    case 408: return {verdict, "status_408"};
    case 500: return {verdict, "status_500"};
    case 502: return {verdict, "status_502"};
    case 503: return {verdict, "status_503"};
    case 504: return {verdict, "status_504"};
    case 529: return {verdict, "status_529"};
    default: return {verdict, "status_5xx"};
  }
}

FailurePolicy policyForTransportError(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Timeout: return {Verdict::NextChannel, "timeout"};
    case ErrorKind::Connect: return {Verdict::NextChannel, "connect"};
    default: return {Verdict::NextChannel, "upstream_protocol"};
  }
}

bool isContentPolicyRefusal(int status, std::string_view body) {
  if (status != 400) return false;
  for (std::string_view marker : {"content_policy_violation", "\"content_filter\"",
                                  "ResponsibleAIPolicyViolation", "PROHIBITED_CONTENT"}) {
    if (body.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

bool isRejectedKeyAnswer(Protocol protocol, int status, std::string_view body) {
  return protocol == Protocol::Gemini && status == 400 &&
         body.find("API_KEY_INVALID") != std::string_view::npos;
}

bool isAccountExhaustedAnswer(std::string_view body) {
  for (std::string_view marker :
       {"insufficient_quota", "billing_hard_limit_reached", "billing_not_active",
        "enforced_spend_limit_reached", "billing_error", "credit balance is too low"}) {
    if (body.find(marker) != std::string_view::npos) return true;
  }
  return false;
}

PauseScope pauseScopeFor(int status, std::string_view body) {
  if (status == 429 && !isAccountExhaustedAnswer(body)) return PauseScope::Model;
  return PauseScope::Key;
}

Millis rateLimitPause(std::optional<Millis> retry_after, Millis max_pause) {
  return std::clamp(retry_after.value_or(kDefaultRateLimitPause), Millis(0), max_pause);
}

}  // namespace llmux::routing
