#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/wire_protocol.h"

namespace llmux::protocol {

/// OpenAI's `error.type` and `error.code` for an HTTP status; `code` empty means JSON null.
struct OpenAiErrorClass {
  std::string_view type;
  std::string_view code;
};

/// OpenAI (Chat and Responses) error class for a status: 400 invalid_request_error,
/// 401 invalid_request_error/invalid_api_key, 403 request_forbidden, 404 model_not_found,
/// 413 request_too_large, 429 rate_limit_error/rate_limit_exceeded, 5xx server_error, ...
OpenAiErrorClass openAiErrorClass(int http_status);

/// Anthropic `error.type` for a status (invalid_request_error, authentication_error,
/// billing_error, permission_error, not_found_error, request_too_large, rate_limit_error,
/// api_error, overloaded_error for 503/529, timeout_error for 504).
std::string_view anthropicErrorType(int http_status);

/// google.rpc status name for a status (INVALID_ARGUMENT, UNAUTHENTICATED, PERMISSION_DENIED,
/// NOT_FOUND, RESOURCE_EXHAUSTED, INTERNAL, UNAVAILABLE, DEADLINE_EXCEEDED, ...).
std::string_view geminiStatusName(int http_status);

/// An error response body in the client protocol's own shape (REFERENCE §6.1):
///   OpenAI:    {"error":{"message","type","param":null,"code"}}
///   Anthropic: {"type":"error","error":{"type","message"},"request_id"} (request_id if given)
///   Gemini:    {"error":{"code":<status>,"message","status"}}
std::string renderErrorBody(Protocol protocol, int http_status, std::string_view message,
                            std::string_view request_id = {});

/// Content-Type of every body renderErrorBody returns.
std::string_view errorContentType();

/// What is known of a response whose stream fails after its 200 went out. Empty fields get
/// stable placeholders ("resp_error", "unknown", 0).
struct StreamErrorContext {
  std::string response_id;
  std::string model;
  std::int64_t created_at = 0;  ///< unix seconds, for the Responses `response.failed` object
};

/// The exact SSE bytes that end a started stream with an error, in the protocol's in-stream form:
///   Anthropic: `event: error` with {"type":"error","error":{"type","message"}}
///   OpenAI Chat: one `data:` frame with an `error` member (no [DONE] follows)
///   Responses: an `event: error` frame, then `event: response.failed` with status "failed"
///   Gemini: `data: {"error":{"code","message","status"}}` framed with CRLF
std::string renderStreamError(Protocol protocol, int http_status, std::string_view message,
                              StreamErrorContext const& ctx);

}  // namespace llmux::protocol
