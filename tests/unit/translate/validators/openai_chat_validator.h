#pragma once

// A strict checker of what llmux sends OpenAI Chat Completions clients: everything the official
// SDK's parsers and accumulators rely on (REFERENCE.md §1.3/§1.4, CLIENTS.md), and more (exact
// framing, the order of finish, usage and [DONE], one id and model for the whole stream, usage
// arithmetic). An empty list means valid; each entry says what is wrong and where.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::translate::validators::openai_chat {

/// A `text/event-stream` body of chat.completion.chunk events.
std::vector<std::string> validateStream(std::string_view bytes);

/// A chat.completion body (or an OpenAI error body).
std::vector<std::string> validateResponse(std::string_view body);

/// One tool call as a client ends up with it.
struct ToolCallSummary {
  std::string id;
  std::string name;
  std::string arguments;  ///< the JSON text (fragments joined for a stream)
};

/// What a client reassembles from a stream or a response, for comparing translations.
struct Summary {
  std::string id;
  std::string model;
  std::string content;            ///< text joined
  std::string reasoning_content;  ///< reasoning text joined
  std::vector<ToolCallSummary> tool_calls;
  std::string finish_reason;
  bool has_usage = false;
  std::int64_t prompt_tokens = 0, completion_tokens = 0, total_tokens = 0;
  std::int64_t cached_tokens = 0, reasoning_tokens = 0;
  std::optional<std::string> error_message;  ///< the stream or body ended in an error
};

/// The summary of a stream or a response body as a client would build it (best effort on
/// invalid input: validate first).
Summary summarizeStream(std::string_view bytes);
Summary summarizeResponse(std::string_view body);

}  // namespace llmux::translate::validators::openai_chat
