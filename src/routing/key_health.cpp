#include "routing/key_health.h"

#include <algorithm>
#include <tuple>

namespace llmux::routing {

void KeyHealth::pauseKey(std::string_view key_id, KeyPause why, Millis duration) {
  pause(key_id, {}, why, duration);
}

void KeyHealth::pauseModel(std::string_view key_id, std::string_view upstream_model, KeyPause why,
                           Millis duration) {
  pause(key_id, upstream_model, why, duration);
}

void KeyHealth::pause(std::string_view key_id, std::string_view model, KeyPause why,
                      Millis duration) {
  MonoTime now = clock_.now();
  MonoTime until = now + duration;
  std::lock_guard lock(mutex_);
  // Pauses that ran out go now, so that once every pause is over the fast path applies again.
  std::erase_if(paused_, [&](auto const& entry) { return entry.second.until <= now; });
  auto it = paused_.find(TargetView{key_id, model});
  if (until <= now) {
    // `retry-after: 0`: nothing to wait for.
  } else if (it == paused_.end()) {
    paused_.emplace(Target{std::string(key_id), std::string(model)}, Pause{until, why});
  } else if (it->second.until < until) {
    it->second = Pause{until, why};
  }
  publishCountLocked();
}

std::optional<MonoTime> KeyHealth::runningLocked(TargetView target, MonoTime now) const {
  auto it = paused_.find(target);
  if (it == paused_.end() || it->second.until <= now) return std::nullopt;
  return it->second.until;
}

std::optional<MonoTime> KeyHealth::pausedUntil(std::string_view key_id,
                                               std::string_view upstream_model) const {
  if (count_.load(std::memory_order_acquire) == 0) return std::nullopt;
  std::lock_guard lock(mutex_);
  if (paused_.empty()) return std::nullopt;
  MonoTime now = clock_.now();
  auto whole = runningLocked({key_id, {}}, now);
  auto model = upstream_model.empty() ? std::nullopt : runningLocked({key_id, upstream_model}, now);
  if (whole && model) return std::max(*whole, *model);  // usable once both are over
  return whole ? whole : model;
}

void KeyHealth::clear(std::string_view key_id) {
  std::lock_guard lock(mutex_);
  if (paused_.empty()) return;
  std::erase_if(paused_, [&](auto const& entry) { return entry.first.key_id == key_id; });
  publishCountLocked();
}

std::string_view keyPauseName(KeyPause why) {
  switch (why) {
    case KeyPause::RateLimited:
      return "rate_limited";
    case KeyPause::QuotaExhausted:
      return "quota_exhausted";
    case KeyPause::Rejected:
      return "rejected";
  }
  return "rate_limited";
}

std::vector<PauseView> KeyHealth::list() const {
  MonoTime const now = clock_.now();
  std::vector<PauseView> out;
  {
    std::lock_guard lock(mutex_);
    for (auto const& [target, pause] : paused_) {
      if (pause.until <= now) continue;
      out.push_back(PauseView{target.key_id, target.model, pause.why,
                              std::chrono::ceil<Millis>(pause.until - now)});
    }
  }
  std::sort(out.begin(), out.end(), [](PauseView const& a, PauseView const& b) {
    return std::tie(a.key_id, a.model) < std::tie(b.key_id, b.model);
  });
  return out;
}

}  // namespace llmux::routing
