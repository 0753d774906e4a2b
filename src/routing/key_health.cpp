#include "routing/key_health.h"

namespace llmux::routing {

void KeyHealth::pause(std::string const& key_id, KeyPause why, Millis duration) {
  MonoTime now = clock_.now();
  MonoTime until = now + duration;
  std::lock_guard lock(mutex_);
  // Pauses that ran out go now, so that once every pause is over the fast path applies again.
  std::erase_if(paused_, [&](auto const& entry) { return entry.second.until <= now; });
  auto [it, inserted] = paused_.try_emplace(key_id, Pause{until, why});
  if (!inserted && it->second.until < until) it->second = Pause{until, why};
  publishCountLocked();
}

std::optional<MonoTime> KeyHealth::pausedUntil(std::string const& key_id) const {
  if (count_.load(std::memory_order_acquire) == 0) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (paused_.empty()) return std::nullopt;
  auto it = paused_.find(key_id);
  if (it == paused_.end() || it->second.until <= clock_.now()) return std::nullopt;
  return it->second.until;
}

void KeyHealth::clear(std::string const& key_id) {
  std::lock_guard lock(mutex_);
  if (paused_.empty()) return;
  paused_.erase(key_id);
  publishCountLocked();
}

}  // namespace llmux::routing
