#include "routing/failure_policy.h"

namespace llmux::routing {

FailurePolicy policyForStatus(int status) {
  if (status < 400) return {Verdict::Relay, "ok"};
  switch (status) {
    case 401: return {Verdict::NextKey, "status_401"};
    case 403: return {Verdict::NextKey, "status_403"};
    case 429: return {Verdict::NextKey, "status_429"};
    case 408: return {Verdict::NextCandidate, "status_408"};
    case 500: return {Verdict::NextCandidate, "status_500"};
    case 502: return {Verdict::NextCandidate, "status_502"};
    case 503: return {Verdict::NextCandidate, "status_503"};
    case 504: return {Verdict::NextCandidate, "status_504"};
    case 529: return {Verdict::NextCandidate, "status_529"};
    default: return {Verdict::Relay, "client_error"};
  }
}

FailurePolicy policyForTransportError(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::Timeout: return {Verdict::NextChannel, "timeout"};
    case ErrorKind::Connect: return {Verdict::NextChannel, "connect"};
    default: return {Verdict::NextChannel, "upstream_protocol"};
  }
}

bool isRejectedKeyAnswer(Protocol protocol, int status, std::string_view body) {
  return protocol == Protocol::Gemini && status == 400 &&
         body.find("API_KEY_INVALID") != std::string_view::npos;
}

}  // namespace llmux::routing
