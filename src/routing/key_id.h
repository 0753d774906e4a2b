#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace llmux::routing {

/// A key id (ChannelKey::id) and its hash. The Catalog hashes every key id once per
/// configuration; the router state's key lookup and the session's checks take the hash from
/// there instead of each hashing or comparing the string.
struct HashedKeyId {
  explicit HashedKeyId(std::string_view key_id)
      : id(key_id), hash(std::hash<std::string_view>{}(key_id)) {}
  std::string_view id;
  std::size_t hash;
};

}  // namespace llmux::routing
