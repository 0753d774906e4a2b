#pragma once

// Pieces of the OpenAI Chat Completions wire format shared by its decoders and encoders: finish
// reasons, usage objects, ids and data URLs.

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "translate/neutral.h"
#include "translate/openai_chat/json_out.h"

namespace llmux::translate::openai_chat {

/// `finish_reason` for a stop reason (REFERENCE.md §7.1/7.2). A response that calls tools
/// finishes with "tool_calls" unless it was cut short (length, content_filter).
std::string_view finishReasonFor(StopReason stop, bool has_tool_calls);

/// The stop reason of a `finish_reason` ("stop", "length", "tool_calls", "content_filter",
/// "function_call"; anything else is Other). A "stop" answer that carries tool calls is ToolUse
/// (some OpenAI-compatible upstreams say "stop" there).
StopReason stopFromFinishReason(std::string_view finish_reason, bool has_tool_calls);

/// A Chat `usage` object in the canonical record: prompt_tokens includes cached tokens and
/// completion_tokens includes reasoning, as OpenAI defines them. Upstreams whose counts are
/// plainly exclusive (cached tokens above the prompt count, reasoning above the completion count)
/// have them added back. DeepSeek's prompt_cache_hit_tokens counts as cached. The upstream's
/// total_tokens is ignored (the total is recomputed).
Usage readUsage(boost::json::object const& usage);

/// Writes `"usage":{…}` for a canonical usage record.
void writeUsage(JsonOut& out, Usage const& usage);

/// The id to show a Chat client: "chatcmpl-" + the neutral id (kept as it is when it already has
/// that prefix), "chatcmpl-" + `fallback` when the neutral id is empty.
std::string completionId(std::string_view id, std::string_view fallback);

/// A tool-call id made up for a call that has none, stable for the same seed and position.
std::string inventedCallId(std::string_view seed, std::size_t position);

/// A `data:<media type>;base64,<payload>` URL split into its parts; nullopt for any other URL.
struct DataUrl {
  std::string_view media_type;
  std::string_view data;
};
std::optional<DataUrl> parseDataUrl(std::string_view url);

/// The bytes of standard base64 text (padding optional, whitespace ignored); nullopt when it is
/// not base64.
std::optional<std::string> decodeBase64(std::string_view text);

/// The media type an image or document URL's file extension suggests ("" when unknown).
std::string_view mediaTypeFromName(std::string_view name);

}  // namespace llmux::translate::openai_chat
