#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "core/result.h"
#include "protocol/reasoning_ask.h"
#include "protocol/routes.h"

namespace llmux::protocol {

/// What the gateway needs to know about a request body before routing it.
struct RequestProfile {
  std::string model;  ///< as the client named it (JSON-unescaped); for Gemini from the route
  /// Span of the model's JSON string token (quotes included) in the body; both 0 when the model
  /// is not in the body (Gemini).
  std::size_t model_begin = 0, model_end = 0;
  /// The span holds a multipart form field's raw bytes, not a JSON string token (media uploads):
  /// a renamed model is written as it is, unquoted.
  bool model_raw = false;
  bool stream = false;  ///< body "stream": true (Chat/Responses/Anthropic); the route for Gemini
  /// A top-level "client_type" or "client_preset" string naming the calling client ("" when none;
  /// see client_detect.h).
  std::string client_hint;
  /// What the request asks of the model's reasoning (a longer first-token clock when it thinks).
  ReasoningAsk reasoning;
};

/// Validates `body` for `route` and extracts the profile in one pass over the bytes, without
/// building a document or re-serialising (the small reasoning members, when present, are scanned
/// once more on their own: reasoning_ask.h). Errors are ErrorKind::InvalidRequest with a message a
/// client can act on: empty body, invalid JSON (with the byte offset), not an object, `model`
/// missing, not a string, empty or given twice, `stream` not a boolean or given twice
/// (`"stream": null` counts as absent, as the OpenAI API treats it).
/// Gemini bodies only need to be a JSON object. A route that takes no body is an Internal error.
Result<RequestProfile> inspectRequest(Route const& route, std::string_view body);

}  // namespace llmux::protocol
