#pragma once

#include <cstdint>

namespace llmux {

/// Token usage in the canonical record (REFERENCE.md §8), whatever protocol reported it: `input`
/// includes cache reads and cache writes, `output` includes reasoning, and the total is always
/// input + output (an upstream's own total is never trusted).
struct TokenUsage {
  std::int64_t input = 0;
  std::int64_t cache_read = 0;   ///< part of `input`
  std::int64_t cache_write = 0;  ///< part of `input`
  std::int64_t output = 0;
  std::int64_t reasoning = 0;    ///< part of `output`
  bool estimated = false;  ///< made up by the gateway (translate/usage.h), not reported upstream

  std::int64_t total() const { return input + output; }
  TokenUsage& operator+=(TokenUsage const& other) {
    input += other.input;
    cache_read += other.cache_read;
    cache_write += other.cache_write;
    output += other.output;
    reasoning += other.reasoning;
    estimated = estimated || other.estimated;
    return *this;
  }
  bool operator==(TokenUsage const&) const = default;
};

}  // namespace llmux
