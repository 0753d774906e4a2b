#pragma once

// Standard base64 (RFC 4648) decoding for tests that read what llmux encoded: the mock's journal
// and its media answers. Written apart from the product's encoder, so that it checks it.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmux::test_support {

/// `text` decoded; padding ends it. nullopt on a character outside the alphabet.
inline std::optional<std::string> decodeBase64(std::string_view text) {
  constexpr std::string_view kAlphabet =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (char c : text) {
    if (c == '=') break;
    auto index = kAlphabet.find(c);
    if (index == std::string_view::npos) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(index);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out.push_back(static_cast<char>((bits >> count) & 0xFF));
    }
  }
  return out;
}

}  // namespace llmux::test_support
