#pragma once

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

namespace llmux::routing {

/// One way to serve a request: a channel, the protocol row to speak to it, and one of its keys.
struct Candidate {
  std::size_t channel = 0;  ///< index into Settings::channels
  std::size_t row = 0;      ///< index into Channel::rows
  std::size_t key = 0;      ///< index into Channel::keys
};

/// Round-robin counters that survive reloads (keyed by names): the sequential strategy's
/// rotation among equal channels and among a channel's keys. Thread-safe.
class Rotation {
 public:
  /// The counter's current value, then increments it.
  std::uint64_t next(std::string const& counter);

 private:
  std::mutex mutex_;
  std::unordered_map<std::string, std::uint64_t> counters_;
};

}  // namespace llmux::routing
