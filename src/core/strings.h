#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace llmux {

/// ASCII lower case of one byte; other bytes as they are.
constexpr char lowerAscii(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

/// ASCII case-insensitive equality (HTTP header names, schemes). Inline, the lengths first:
/// header screening compares every field with every listed name, and most differ in length.
inline bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (lowerAscii(a[i]) != lowerAscii(b[i])) return false;
  }
  return true;
}

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
