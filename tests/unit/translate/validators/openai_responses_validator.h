#pragma once

// A strict checker of what an OpenAI Responses client receives: the bytes of an event stream and
// a non-stream response body, as the official SDKs and Codex read them (REFERENCE.md §2.3-2.5,
// CLIENTS.md). Each function returns the problems found; an empty vector means valid.

#include <string>
#include <string_view>
#include <vector>

namespace llmux::translate::validators::openai_responses {

/// Framing (`event:` + one `data:` line per frame, `\n\n` separators, no `[DONE]`), JSON objects
/// whose `type` matches the event name, sequence_number 0,1,2…, response.created first, items
/// added/done in output_index order without interleaving, content and summary parts with
/// consistent indexes, deltas that add up to every `.done` text, function arguments that
/// reassemble to valid JSON, one terminal event last (completed / incomplete / failed, an `error`
/// event only right before response.failed) repeating the items, and a coherent usage.
std::vector<std::string> validateStream(std::string_view bytes);

/// A response object: id, object, status and incomplete_details agreeing, typed output items
/// with their required fields, function arguments that parse as JSON, a coherent usage.
std::vector<std::string> validateResponse(std::string_view body);

}  // namespace llmux::translate::validators::openai_responses
