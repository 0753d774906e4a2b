#include "config/key_id.h"

#include <openssl/sha.h>

namespace llmux::config {

std::string channelKeyId(std::string_view channel, std::string_view secret) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<unsigned char const*>(secret.data()), secret.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string id(channel);
  id += '/';
  for (int i = 0; i < 6; ++i) {  // 6 bytes = 12 hex digits
    id += kHex[digest[i] >> 4];
    id += kHex[digest[i] & 0x0f];
  }
  return id;
}

std::string channelKeyLabel(std::string_view channel, std::size_t index) {
  return std::string(channel) + "#" + std::to_string(index);
}

ChannelKey makeChannelKey(std::string_view channel, std::size_t index, std::string secret) {
  ChannelKey key;
  key.label = channelKeyLabel(channel, index);
  key.id = channelKeyId(channel, secret);
  key.secret = std::move(secret);
  return key;
}

}  // namespace llmux::config
