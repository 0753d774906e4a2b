#include "proxy/auth_failures.h"

#include <algorithm>

namespace llmux::proxy {

AuthFailureLimiter::AuthFailureLimiter(TimeSource const& clock, int max_failures, Millis window,
                                       std::size_t max_tracked)
    : clock_(clock), max_failures_(max_failures), window_(window), max_tracked_(max_tracked) {}

std::optional<Millis> AuthFailureLimiter::blockedFor(std::string const& peer) {
  std::lock_guard lock(mutex_);
  auto it = windows_.find(peer);
  if (it == windows_.end()) return std::nullopt;
  MonoTime now = clock_.now();
  MonoTime ends = it->second.started + window_;
  if (now >= ends) {
    windows_.erase(it);
    return std::nullopt;
  }
  if (it->second.failures < max_failures_) return std::nullopt;
  return std::chrono::ceil<Millis>(ends - now);
}

void AuthFailureLimiter::recordFailure(std::string const& peer) {
  std::lock_guard lock(mutex_);
  MonoTime now = clock_.now();
  auto it = windows_.find(peer);
  if (it == windows_.end() || now >= it->second.started + window_) {
    if (it == windows_.end() && windows_.size() >= max_tracked_) makeRoomLocked(now);
    windows_[peer] = Window{now, 1};
    return;
  }
  ++it->second.failures;
}

void AuthFailureLimiter::makeRoomLocked(MonoTime now) {
  std::erase_if(windows_, [&](auto const& entry) { return now >= entry.second.started + window_; });
  if (windows_.size() < max_tracked_) return;
  auto oldest = std::min_element(windows_.begin(), windows_.end(), [](auto const& a, auto const& b) {
    return a.second.started < b.second.started;
  });
  windows_.erase(oldest);
}

}  // namespace llmux::proxy
