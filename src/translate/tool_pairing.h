#pragma once

// OpenAI Chat and Responses refuse a conversation in which a tool call has no result after it
// ("An assistant message with 'tool_calls' must be followed by tool messages responding to each
// 'tool_call_id'", "No tool output found for function call …"), a result answers no call, or a
// call id is too long (Responses `call_id`: 64 characters; Chat has refused ids over 40). Both
// encoders run this pre-pass; the Anthropic and Gemini encoders pair results their own way.

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "translate/neutral.h"

namespace llmux::translate {

/// The request with every tool call of an assistant turn answered in the non-assistant turns
/// that follow it, before the next assistant turn:
///  * a missing result is made up as an error result ("No result was provided for this tool
///    call.") at the start of the next user turn (a user turn is added when there is none);
///  * a result that answers no call of the assistant turn before it (or answers one twice)
///    becomes user text "Result of tool <name>:\n<text>", its media kept after it;
///  * a call outside an assistant turn becomes text "[call to <name>: <arguments>]";
///  * an empty call id is made up ("call_llmux_<n>"), a repeated one within a turn gets a
///    suffix, and an id longer than `max_id_length` is shortened to a prefix + "_" + 8 hex digits
///    of its hash — call and result alike, so they still pair.
/// Results pair with calls by id, a result without an id with the first unanswered call of its
/// name. Returns nullopt when nothing had to change (no copy is made). Names what was changed in
/// `dropped`: `tool_result.missing`, `tool_result.unmatched`, `tool_call` (outside an assistant
/// turn), `tool_call.id`.
std::optional<Request> pairToolCalls(Request const& request, std::size_t max_id_length,
                                     std::vector<std::string>& dropped);

}  // namespace llmux::translate
