#include "config/key_id.h"

#include "core/digest.h"

namespace llmux::config {

std::string channelKeyId(std::string_view channel, std::string_view secret) {
  return std::string(channel) + "/" + sha256Hex(secret, 6);  // 6 bytes = 12 hex digits
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
