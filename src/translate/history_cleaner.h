#pragma once

// A client that was once served through translation holds reasoning llmux made up in its
// history: Anthropic clients thinking blocks whose signature llmux tagged (`llmux:<protocol>:…`,
// anthropic/wire.h `clientSignature`) or left empty, Responses clients reasoning items with ids
// llmux minted (`rs_llmux_…`, openai_responses/wire.h). When a later turn of that client goes to
// an upstream of its own protocol unchanged (passthrough), that upstream refuses them (Anthropic
// verifies every signature, OpenAI knows no such item). This takes them out of the body first.

#include <optional>
#include <string>
#include <string_view>

#include "core/wire_protocol.h"

namespace llmux::translate {

/// `body` (a client request of `protocol`, about to be sent to an upstream of the same protocol)
/// without the reasoning llmux made up; nullopt when it carries none — decided by a substring
/// search, so an ordinary body costs one scan — or is not a JSON object (send `body` as is).
///  * anthropic: `thinking` blocks whose signature is llmux's or empty, and `redacted_thinking`
///    blocks whose data is, are removed (a message left empty goes too). If that leaves the last
///    assistant turn with tool calls not starting with a thinking block while `thinking` is on,
///    Anthropic would answer 400 ("a final assistant message must start with a thinking block"):
///    the request's `thinking` is removed, and with it `context_management` edits that clear
///    thinking.
///  * openai-responses: `reasoning` input items with an `rs_llmux_` id are removed (one that
///    still carries OpenAI's own encrypted content is kept, without the made-up id; another
///    provider's signature carried in it, tagged `llmux:…`, goes with the item).
///  * chat, gemini: nothing (Gemini clients get a documented signature on foreign calls instead).
/// Every other member is kept as it was (the body is re-serialised from its DOM).
std::optional<std::string> cleanForeignReasoning(Protocol protocol, std::string_view body);

}  // namespace llmux::translate
