#include "routing/key_health.h"

namespace llmux::routing {

void KeyHealth::pause(std::string const& key_id, KeyPause why, Millis duration) {
  MonoTime until = clock_.now() + duration;
  std::lock_guard lock(mutex_);
  auto [it, inserted] = paused_.try_emplace(key_id, Pause{until, why});
  if (!inserted && it->second.until < until) it->second = Pause{until, why};
}

std::optional<MonoTime> KeyHealth::pausedUntil(std::string const& key_id) const {
  std::lock_guard lock(mutex_);
  if (paused_.empty()) return std::nullopt;
  auto it = paused_.find(key_id);
  if (it == paused_.end() || it->second.until <= clock_.now()) return std::nullopt;
  return it->second.until;
}

void KeyHealth::clear(std::string const& key_id) {
  std::lock_guard lock(mutex_);
  if (!paused_.empty()) paused_.erase(key_id);
}

}  // namespace llmux::routing
