#pragma once

// A strict checker of what llmux sends Gemini clients and Gemini upstreams: what the official SDK
// (@google/genai) and Gemini CLI rely on (REFERENCE.md §4, CLIENTS.md), and more (exact CRLF
// framing, one JSON object per `data:` line, finishReason only on the last chunk, one responseId
// and modelVersion per stream, usage arithmetic, whole function-call arguments). An empty list
// means valid; each entry says what is wrong and where.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::translate::validators::gemini {

/// A streamGenerateContent body: SSE (`data: {…}\r\n\r\n` frames) or, when it starts with '[',
/// the JSON-array form.
std::vector<std::string> validateStream(std::string_view bytes);

/// A generateContent body (or a google.rpc error body).
std::vector<std::string> validateResponse(std::string_view body);

/// A generateContent request body as the Gemini API checks it: roles, parts, function calls
/// answered one for one in the next user turn, functionResponse.response objects, declaration
/// names and schemas (`parameters` must not hold what its OpenAPI subset rejects), toolConfig and
/// generationConfig values (thinkingBudget and thinkingLevel never together).
std::vector<std::string> validateRequest(std::string_view body);

/// One function call as a client ends up with it.
struct ToolCallSummary {
  std::string id;
  std::string name;
  std::string arguments;  ///< compact JSON text of `args` ("{}" when absent)
  std::string signature;
};

/// What a client assembles from a stream or a response, for comparing translations.
struct Summary {
  std::string id;
  std::string model;
  std::string text;      ///< answer text joined
  std::string thoughts;  ///< thought-summary text joined
  std::vector<std::string> signatures;  ///< every thoughtSignature, in order
  std::vector<ToolCallSummary> tool_calls;
  std::string finish_reason;
  bool has_usage = false;
  std::int64_t prompt_tokens = 0, candidates_tokens = 0, thoughts_tokens = 0;
  std::int64_t cached_tokens = 0, total_tokens = 0;
  std::optional<std::string> error_message;  ///< the stream or body ended in an error
};

/// The summary of a stream or a response body (best effort on invalid input: validate first).
Summary summarizeStream(std::string_view bytes);
Summary summarizeResponse(std::string_view body);

}  // namespace llmux::translate::validators::gemini
