#pragma once

#include <string>
#include <string_view>

namespace llmux {

/// A fresh request id: 32 lowercase hex digits (128 random bits). Thread-safe.
std::string newRequestId();

/// Whether a client-supplied X-Request-Id can be kept: 1..128 visible ASCII characters.
bool isAcceptableRequestId(std::string_view id);

/// `bytes` random bytes rendered as lowercase hex, from the operating system's CSPRNG. For
/// secrets such as a generated gateway key.
std::string randomHex(std::size_t bytes);

}  // namespace llmux
