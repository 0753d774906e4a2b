#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace llmux {

/// The first `bytes` bytes (at most 32) of SHA-256(`text`) in lower-case hex: a stable stand-in
/// for a value that must be told apart from others but not revealed or trusted (a secret's id, an
/// untrusted session id).
std::string sha256Hex(std::string_view text, std::size_t bytes = 32);

/// `bytes` in standard base64 with padding (RFC 4648 section 4), as HTTP Basic credentials are.
std::string base64(std::string_view bytes);

}  // namespace llmux
