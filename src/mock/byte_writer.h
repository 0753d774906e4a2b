#pragma once

// Appending fixed-width integers to a byte string in a file format's byte order.

#include <cstdint>
#include <string>

namespace llmux::mock {

inline void putBigEndian(std::string& out, std::uint64_t value, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out.push_back(static_cast<char>(value >> (8 * i)));
}

inline void putLittleEndian(std::string& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<char>(value >> (8 * i)));
}

}  // namespace llmux::mock
