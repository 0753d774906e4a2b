#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace llmux::protocol {

/// Decodes `%XX` escapes (RFC 3986). `+` stays `+`: paths and the API-key query parameter are
/// not form-encoded, and a literal `+` in a key must survive. nullopt on a malformed escape.
std::optional<std::string> percentDecode(std::string_view text);

/// Encodes every byte outside RFC 3986 "unreserved" (`A-Z a-z 0-9 - . _ ~`) as `%XX`, so the
/// result is safe as one path segment (`/`, `:` and `%` are encoded too).
std::string percentEncodeSegment(std::string_view text);

}  // namespace llmux::protocol
