#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace llmux {

/// A copy of a body as it passes, kept up to `limit` bytes; `total` counts every byte seen, so a
/// cut copy knows how long the whole was.
struct CappedCopy {
  std::size_t limit = 0;
  std::string bytes;
  std::uint64_t total = 0;

  void append(std::string_view piece) {
    total += piece.size();
    if (bytes.size() < limit) bytes.append(piece.substr(0, limit - bytes.size()));
  }
  bool truncated() const { return total > bytes.size(); }
};

}  // namespace llmux
