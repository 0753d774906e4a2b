#pragma once

#include <cstddef>
#include <string_view>

namespace llmux {

// Searches for the first byte of a small class in text that rarely holds one: 16 bytes per step
// with SSE2 (header values, access-log fields and JSON strings are checked on every request).

/// Offset of the first byte a JSON string literal must escape (a control byte, '"' or '\\');
/// `s.size()` when there is none.
std::size_t findJsonSpecial(std::string_view s);

/// Offset of the first byte an HTTP field value may not carry raw (a control byte other than
/// horizontal tab, or DEL); `s.size()` when there is none.
std::size_t findHeaderControl(std::string_view s);

}  // namespace llmux
