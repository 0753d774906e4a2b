#pragma once

#include <cstdint>
#include <string>

namespace llmux::mock {

/// Width and height of every image the mock returns, whatever size was asked for.
inline constexpr std::uint32_t kMockImageSide = 8;

/// A valid PNG of kMockImageSide² RGB pixels in a checker of two colours chosen by `seed`
/// (uncompressed deflate blocks: no zlib needed, still a stream any decoder reads).
std::string tinyPng(std::uint64_t seed);

}  // namespace llmux::mock
