#include "core/digest.h"

#include <algorithm>

#include <openssl/evp.h>
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

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');  // EVP_EncodeBlock adds a NUL
  int const written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                      reinterpret_cast<unsigned char const*>(bytes.data()),
                                      static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(written));
  return out;
}

}  // namespace llmux
