#pragma once

// Secrets are never captured: the configured names are blanked in bodies and headers before a
// body is kept (docs/operations.md, ClickHouse payloads).

#include <string>
#include <string_view>
#include <vector>

#include "core/http_headers.h"

namespace llmux::payloads {

/// Blanks (to "") the value of every JSON member whose name is one of `names` (lower case,
/// compared without case), at any depth. Works on text that is not one whole JSON document — an
/// SSE stream's `data:` lines, a body cut at max_bytes — by scanning string tokens: a member is a
/// string followed by ':'. Object and array values are blanked whole (to the end of the text
/// when cut).
void redactJsonFields(std::string& text, std::vector<std::string> const& names);

/// The headers as a JSON object, names in lower case; those in `names` and the credentials a
/// client sends (Authorization, x-api-key, x-goog-api-key, Proxy-Authorization, Cookie) blanked.
std::string redactedHeadersJson(HeaderList const& headers, std::vector<std::string> const& names);

}  // namespace llmux::payloads
