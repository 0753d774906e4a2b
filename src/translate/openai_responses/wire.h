#pragma once

// Pieces of the OpenAI Responses wire format shared by its decoders and encoders: statuses and
// stop reasons, usage, ids, data URLs and error codes (REFERENCE.md §2, §7, §8).

#include <boost/json/object.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "translate/neutral.h"

namespace llmux::translate::openai_responses {

/// The response `status` and `incomplete_details.reason` ("" = null) for a stop reason:
/// MaxTokens and ContextWindow -> incomplete/max_output_tokens, ContentFilter ->
/// incomplete/content_filter, everything else -> completed.
struct StatusOut {
  std::string_view status;
  std::string_view incomplete_reason;
};
StatusOut statusFor(StopReason stop);

/// The stop reason of a finished response: completed -> ToolUse when it called functions, else
/// ContentFilter when it refused, else EndTurn; incomplete -> MaxTokens / ContentFilter by reason.
StopReason stopFor(std::string_view status, std::string_view incomplete_reason, bool called_tools,
                   bool refused);

/// Usage in the canonical record from a Responses `usage` object (input includes cached tokens,
/// output includes reasoning: the same convention). The upstream's total is ignored.
Usage usageFrom(boost::json::object const& usage);

/// Appends a Responses `usage` object for `usage` (total recomputed as input + output).
void appendUsage(std::string& out, Usage const& usage);

/// A Responses-looking id: `id` when it already starts with `prefix`, otherwise `prefix` followed
/// by the letters, digits, '-' and '_' of `id` (or of `fallback` when `id` has none).
std::string protocolId(std::string_view prefix, std::string_view id, std::string_view fallback);

/// Reasoning items llmux makes up for a Responses client (reasoning another protocol produced, or
/// Responses reasoning without its item id) get ids with this prefix, never an upstream's: a later
/// turn that goes to a Responses upstream unchanged must leave them out, because OpenAI knows no
/// such item (translate/history_cleaner.h).
inline constexpr std::string_view kMintedReasoningPrefix = "rs_llmux_";

/// The id of a reasoning item llmux made up: kMintedReasoningPrefix + stem + "_" + index.
inline std::string mintedReasoningId(std::string_view stem, std::size_t index) {
  return std::string(kMintedReasoningPrefix) + std::string(stem) + "_" + std::to_string(index);
}

/// The `encrypted_content` a Responses client gets for reasoning: a Responses upstream's own as
/// it is; another provider's signature (or redacted reasoning) tagged with its origin
/// (translate/signature_tag.h), so that the client's next turn can give it back to that provider
/// (REFERENCE.md §9.5); "" when there is none. Such items always have a minted id.
std::string clientEncryptedContent(std::string_view signature, std::optional<Protocol> origin,
                                   bool redacted);

/// "data:<media>;base64,<data>" split into its media type and payload; nullopt for other URLs.
struct DataUrl {
  std::string_view media_type;
  std::string_view data;
};
std::optional<DataUrl> parseDataUrl(std::string_view url);

/// Appends "data:<media>;base64,<data>" as a JSON string.
void appendDataUrl(std::string& out, std::string_view media_type, std::string_view data);

/// The HTTP status an error object stands for (an in-stream error, a failed response): a context
/// overflow (by code or wording) 400; then by `code`, falling back on `type`: invalid requests
/// 400, authentication 401, rate limits and quota 429, overload 503, anything else 500.
int statusForError(std::string_view code, std::string_view type, std::string_view message);

}  // namespace llmux::translate::openai_responses
