#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace llmux {

/// ASCII case-insensitive equality (HTTP header names, schemes).
bool equalsIgnoreCase(std::string_view a, std::string_view b);

/// ASCII lower-case copy.
std::string toLower(std::string_view s);

/// `s` without leading and trailing spaces and tabs.
std::string_view trimSpaces(std::string_view s);

/// Unicode code points in UTF-8 text (continuation bytes are not counted): what APIs' character
/// counts and limits count.
std::size_t utf8CodePoints(std::string_view text);

/// Splits at the first `sep`: ("a=b", '=') -> {"a", "b"}; nullopt when `sep` is absent.
std::optional<std::pair<std::string_view, std::string_view>> splitOnce(std::string_view s, char sep);

/// Parses a whole non-negative decimal integer; nullopt on anything else or overflow.
std::optional<long long> parseNonNegative(std::string_view s);

/// Constant-time comparison for secrets (the time does not depend on where they differ).
bool secretEquals(std::string_view a, std::string_view b);

}  // namespace llmux
