#pragma once

// A strict checker of what an Anthropic Messages client receives: every translation into
// Anthropic Messages, from any protocol, must pass it (REFERENCE.md §3.3-§3.6; CLIENTS.md).

#include <string>
#include <string_view>
#include <vector>

namespace llmux::translate::validators::anthropic {

/// Problems of an SSE stream body: framing (an `event:` line and one `data:` line per frame,
/// "\n\n" between frames, the data's `type` equal to the event name), event order (message_start,
/// then blocks one at a time with indexes 0,1,2..., deltas of the open block's kind, exactly one
/// signature_delta closing a thinking block, message_delta once with a stop_reason and
/// usage.output_tokens, message_stop last; or an `error` event that ends it), required fields,
/// well-formed JSON, and tool_use input fragments that join into a JSON object. Empty: valid.
std::vector<std::string> validateStream(std::string_view bytes);

/// Problems of a non-streamed message body (type, id "msg_…", role, model, content blocks with
/// their required fields — a thinking block's signature non-empty —, stop_reason, stop_sequence,
/// usage). Empty: valid.
std::vector<std::string> validateResponse(std::string_view body);

}  // namespace llmux::translate::validators::anthropic
