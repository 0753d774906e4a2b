#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "core/clock.h"

namespace llmux::routing {

/// Why a key is temporarily out of the rotation.
enum class KeyPause {
  RateLimited,  ///< the upstream answered 429: wait for its retry-after
  Rejected,     ///< the upstream answered 401/403: the key is benched
};

/// Runtime health of upstream keys, keyed by `ChannelKey::id` so it survives configuration
/// reloads for keys that still exist. Thread-safe; shared by all workers. `pausedUntil` is cheap
/// when no key is paused (one atomic load, no lock): the planner asks it for every candidate.
class KeyHealth {
 public:
  explicit KeyHealth(TimeSource const& clock) : clock_(clock) {}

  /// Takes the key out of rotation until `now + duration` (a longer pause is never shortened).
  void pause(std::string const& key_id, KeyPause why, Millis duration);
  /// When the key may be used again; nullopt when it is usable now.
  std::optional<MonoTime> pausedUntil(std::string const& key_id) const;
  /// Whether any key may be paused (one atomic load): when not, no key needs asking.
  bool anyPaused() const { return count_.load(std::memory_order_acquire) != 0; }
  /// Puts the key back at once (a success proves it works).
  void clear(std::string const& key_id);

  TimeSource const& clock() const { return clock_; }

 private:
  struct Pause {
    MonoTime until;
    KeyPause why;
  };
  /// Publishes the table's size for the lock-free fast path (mutex_ held).
  void publishCountLocked() { count_.store(paused_.size(), std::memory_order_release); }

  TimeSource const& clock_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Pause> paused_;
  std::atomic<std::size_t> count_{0};  ///< paused_.size(), read without the lock
};

}  // namespace llmux::routing
