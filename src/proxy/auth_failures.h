#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/clock.h"

namespace llmux::proxy {

/// Failed operator authentications (the admin token, the metrics token) per client address.
/// Past `max_failures` within `window`, the address is refused (429) until its window ends,
/// whatever it presents: guessing a token costs a minute per ten guesses, and one address
/// cannot lock the operator out of every other.
///
/// Thread-safe (one mutex; only operator routes touch it). At most `max_tracked` addresses are
/// remembered: past that, expired entries go first, then the oldest.
class AuthFailureLimiter {
 public:
  AuthFailureLimiter(TimeSource const& clock, int max_failures = 10,
                     Millis window = std::chrono::seconds(60), std::size_t max_tracked = 10'000);

  /// How long `peer` must still wait; nullopt when it may try now.
  std::optional<Millis> blockedFor(std::string const& peer);
  /// Counts one failed attempt of `peer`.
  void recordFailure(std::string const& peer);

 private:
  struct Window {
    MonoTime started{};
    int failures = 0;
  };
  void makeRoomLocked(MonoTime now);

  TimeSource const& clock_;
  int const max_failures_;
  Millis const window_;
  std::size_t const max_tracked_;
  std::mutex mutex_;
  std::unordered_map<std::string, Window> windows_;
};

}  // namespace llmux::proxy
