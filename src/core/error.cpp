#include "core/error.h"

namespace llmux {

int defaultStatusFor(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidRequest: return 400;
    case ErrorKind::Unauthenticated: return 401;
    case ErrorKind::PermissionDenied: return 403;
    case ErrorKind::NotFound: return 404;
    case ErrorKind::PayloadTooLarge: return 413;
    case ErrorKind::HeadersTooLarge: return 431;
    case ErrorKind::RateLimited: return 429;
    case ErrorKind::Timeout: return 504;
    case ErrorKind::Connect: return 502;
    case ErrorKind::UpstreamProtocol: return 502;
    case ErrorKind::UpstreamStatus: return 502;
    case ErrorKind::Unavailable: return 503;
    case ErrorKind::Cancelled: return 499;
    case ErrorKind::Internal: return 500;
  }
  return 500;
}

std::string_view errorKindName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::InvalidRequest: return "invalid_request";
    case ErrorKind::Unauthenticated: return "unauthenticated";
    case ErrorKind::PermissionDenied: return "permission_denied";
    case ErrorKind::NotFound: return "not_found";
    case ErrorKind::PayloadTooLarge: return "payload_too_large";
    case ErrorKind::HeadersTooLarge: return "headers_too_large";
    case ErrorKind::RateLimited: return "rate_limited";
    case ErrorKind::Timeout: return "timeout";
    case ErrorKind::Connect: return "connect";
    case ErrorKind::UpstreamProtocol: return "upstream_protocol";
    case ErrorKind::UpstreamStatus: return "upstream_status";
    case ErrorKind::Unavailable: return "unavailable";
    case ErrorKind::Cancelled: return "cancelled";
    case ErrorKind::Internal: return "internal";
  }
  return "internal";
}

}  // namespace llmux
