#pragma once

// Small pieces of the Anthropic Messages wire format shared by its decoders and encoders: stop
// reasons, usage, error types, ids, signatures (REFERENCE.md §3).

#include <boost/json/object.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/wire_protocol.h"
#include "translate/anthropic/json_out.h"
#include "translate/neutral.h"

namespace llmux::translate::anthropic {

/// `stop_reason` spelling of a neutral stop reason (Other becomes "end_turn").
std::string_view stopReasonName(StopReason stop);
/// Neutral stop reason of a `stop_reason` value (unknown values: Other).
StopReason parseStopReason(std::string_view name);

/// The stop_reason an Anthropic client gets: "tool_use" exactly when the answer holds tool calls
/// (Gemini says STOP after a functionCall, Anthropic clients run their tools on "tool_use"), and
/// "stop_sequence" only when the matched sequence is known.
StopReason clientStop(StopReason stop, bool any_tool_call, bool stop_sequence_known);

/// Usage fields as Anthropic reports them. Streams spread them over message_start and
/// message_delta (cumulative counts): each field keeps its last non-null value.
struct WireUsage {
  std::optional<std::int64_t> input_tokens;
  std::optional<std::int64_t> cache_creation_input_tokens;
  std::optional<std::int64_t> cache_read_input_tokens;
  std::optional<std::int64_t> output_tokens;
  std::optional<std::int64_t> thinking_tokens;  ///< output_tokens_details.thinking_tokens

  void merge(boost::json::object const& usage);
  bool empty() const;
  /// The canonical record: input includes cache reads and writes (REFERENCE.md §8).
  Usage toNeutral() const;
};

/// Writes the members of an Anthropic usage object (input_tokens excludes the cache:
/// input - cache_read - cache_write, never below 0; output_tokens_details.thinking_tokens when
/// reasoning tokens are known).
void writeUsageFields(JsonOut& out, Usage const& usage);

/// HTTP status of an Anthropic `error.type` (overloaded_error 529, rate_limit_error 429, ...).
int statusForErrorType(std::string_view type);

/// A message id for an Anthropic client: `id` when it already starts with "msg_", else
/// "msg_" + `id` (or + `fallback`, or "msg_llmux" when both are empty).
std::string messageId(std::string_view id, std::string_view fallback);

/// A tool_use id Anthropic accepts (^[a-zA-Z0-9_-]+$): other characters become '_'; an empty id
/// becomes "toolu_" + `seed` + "_" + `n` (deterministic, so a call and its result still pair).
std::string toolUseId(std::string_view id, std::string_view seed, std::size_t n);

/// Reasoning signatures that came from another protocol travel to an Anthropic client inside the
/// thinking block's `signature`, tagged "llmux:<protocol>:" so that a later turn can restore them
/// for that protocol's upstream (and drop them for every other one). Anthropic's own signatures go
/// untagged. An unknown origin yields "" (nothing the client could send back safely).
std::string clientSignature(std::string_view signature, std::optional<Protocol> origin);

/// The signature an Anthropic client gets on a thinking block of another protocol's answer, ""
/// when there is none to carry: its own (clientSignature), or, for a Gemini thinking block
/// without one, the Gemini signature of `next` — the text or tool call that follows it in the
/// answer, where Gemini signs its thoughts — tagged "llmux:gemini:next:" so that a later turn
/// puts it back on that part (translate/signature_tag.h).
std::string thinkingSignature(std::string_view signature, std::optional<Protocol> origin,
                              Block const* next);

/// What an Anthropic client gets as the signature of thinking that nobody signed: the tag alone,
/// "llmux:<origin>:", which a later turn reads back as no signature. Anthropic's SDKs and Claude
/// Code need every thinking block to carry a non-empty signature. "" when the origin is unknown.
std::string unsignedThinkingSignature(std::optional<Protocol> origin);

/// The reverse of clientSignature and thinkingSignature for a signature a client sent back: the
/// raw signature and its origin (Anthropic when untagged; nullopt origin when empty), and whether
/// it belongs to the block after the thinking block that carried it.
struct Signature {
  std::string value;
  std::optional<Protocol> origin;
  bool next_part = false;
};
Signature parseClientSignature(std::string_view signature);

/// Standard base64 (with padding).
std::string base64Encode(std::string_view bytes);
/// Standard or URL-safe base64, padding optional; nullopt when malformed.
std::optional<std::string> base64Decode(std::string_view text);

/// Adds `name` to `dropped` unless it is already there.
void addDropped(std::vector<std::string>& dropped, std::string_view name);

}  // namespace llmux::translate::anthropic
