#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "core/http_headers.h"

namespace llmux::protocol {

/// The gateway key as any official SDK sends it, first match wins:
/// `Authorization: Bearer <k>` (scheme case-insensitive; OpenAI SDKs, Anthropic auth tokens),
/// `x-api-key` (Anthropic), `x-goog-api-key` (Gemini), then the `key` query parameter (Gemini,
/// percent-decoded). Empty values and other Authorization schemes are skipped. nullopt: no key.
std::optional<std::string> findClientKey(HeaderList const& headers, std::string_view query);

/// `query` (without '?') minus every `key` parameter, the rest kept byte for byte in order
/// (`alt=sse`, `beta=true`): the gateway key must never reach an upstream.
std::string queryWithoutClientKey(std::string_view query);

}  // namespace llmux::protocol
