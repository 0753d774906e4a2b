#pragma once

#include <string>
#include <string_view>

namespace llmux {

/// Appends `s` as a JSON string literal (quotes included), escaping what RFC 8259 requires.
/// Bytes >= 0x80 are copied as they are (the input is expected to be UTF-8).
void appendJsonString(std::string& out, std::string_view s);

/// `s` as a JSON string literal.
std::string jsonQuote(std::string_view s);

}  // namespace llmux
