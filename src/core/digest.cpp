#include "core/digest.h"

#include <algorithm>

#include <openssl/sha.h>

namespace llmux {

std::string sha256Hex(std::string_view text, std::size_t bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<unsigned char const*>(text.data()), text.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  bytes = std::min<std::size_t>(bytes, SHA256_DIGEST_LENGTH);
  out.reserve(bytes * 2);
  for (std::size_t i = 0; i < bytes; ++i) {
    out += kHex[digest[i] >> 4];
    out += kHex[digest[i] & 0x0f];
  }
  return out;
}

}  // namespace llmux
