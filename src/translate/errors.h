#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/http_headers.h"
#include "core/wire_protocol.h"

namespace llmux::translate {

/// What an upstream error means, whatever protocol said it (REFERENCE.md §6.4).
enum class ErrorClass {
  InvalidRequest,
  ContextOverflow,  ///< the prompt does not fit the model's context window
  Authentication,
  PermissionDenied,
  NotFound,
  RateLimited,
  Overloaded,  ///< Anthropic 529, OpenAI/Gemini 503
  Server,
  Timeout,
};

/// An upstream error read out of its protocol's shape.
struct UpstreamError {
  int status = 500;
  ErrorClass cls = ErrorClass::Server;
  std::string message;
  std::optional<std::chrono::milliseconds> retry_after;  ///< header or Gemini RetryInfo
};

/// Reads an error answer of an upstream speaking `protocol`: its class (context overflow is
/// recognised by code or wording, whatever the status, including relays' variants), message and
/// retry delay.
UpstreamError readUpstreamError(Protocol protocol, int status, std::string_view body,
                                HeaderList const& headers, WallTime now);

/// An error known only by its status and message (an in-stream error event, a relay's odd
/// answer): classed by status, a context overflow recognised by wording.
UpstreamError upstreamError(int status, std::string message);

/// Whether an error message or code says the context window overflowed.
bool isContextOverflow(std::string_view code, std::string_view message);

/// An error ready for a client.
struct ClientError {
  int status = 500;
  HeaderList headers;  ///< Content-Type, and retry-after when known
  std::string body;
};

/// `error` in the client's protocol shape with the status that protocol uses: a context overflow
/// is a 400 in the client provider's own words, with the counts the upstream stated
/// (translate/overflow_counts.h): OpenAI code context_length_exceeded, Anthropic
/// invalid_request_error "prompt is too long: N tokens > M maximum", Gemini INVALID_ARGUMENT "The
/// input token count (N) exceeds the maximum number of tokens allowed (M)."; an overload is 529
/// for Anthropic clients and 503 for the others; a rate limit keeps its retry-after.
ClientError renderForClient(Protocol client, UpstreamError const& error, std::string_view request_id);

}  // namespace llmux::translate
