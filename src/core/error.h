#pragma once

#include <string>
#include <string_view>

namespace llmux {

/// What went wrong, grouped by who has to act. The data plane never throws: failures travel as
/// `Error` values inside `Result<T>` and end as an HTTP answer in the client's protocol shape.
enum class ErrorKind {
  InvalidRequest,    ///< The client sent something we cannot serve (bad JSON, missing field): 400.
  Unauthenticated,   ///< No or unknown gateway key: 401.
  PermissionDenied,  ///< Authenticated, but not allowed: 403.
  NotFound,          ///< Unknown route or a model no channel serves: 404.
  PayloadTooLarge,   ///< Request body over the limit: 413.
  HeadersTooLarge,   ///< Request head over the limit: 431.
  RateLimited,       ///< Too many requests (ours or the upstream's): 429.
  Timeout,           ///< A deadline passed (connect, first byte, idle, total): 504.
  Connect,           ///< The upstream could not be reached (DNS, TCP, TLS handshake): 502.
  UpstreamProtocol,  ///< The upstream answered with something that is not valid HTTP: 502.
  UpstreamStatus,    ///< The upstream answered with an error status (kept in `http_status`).
  Unavailable,       ///< No candidate could serve the request right now: 503.
  Cancelled,         ///< The client went away or the gateway is shutting down.
  Internal,          ///< A bug or an environment failure inside llmux: 500.
};

/// The default HTTP status a client sees for an error of this kind.
int defaultStatusFor(ErrorKind kind);

/// Short stable name of the kind, for logs and metric labels ("timeout", "connect", ...).
std::string_view errorKindName(ErrorKind kind);

/// One error: what kind, a human sentence safe to show a client (never a secret), and the HTTP
/// status to answer with.
struct Error {
  ErrorKind kind = ErrorKind::Internal;
  std::string message;
  int http_status = 0;  ///< 0 means defaultStatusFor(kind).

  int status() const { return http_status != 0 ? http_status : defaultStatusFor(kind); }
};

inline Error makeError(ErrorKind kind, std::string message, int http_status = 0) {
  return Error{kind, std::move(message), http_status};
}

}  // namespace llmux
