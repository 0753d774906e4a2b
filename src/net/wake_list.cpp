#include "net/wake_list.h"

#include <utility>

namespace llmux::net {

WakeList::Entry WakeList::add(MonoTime at, std::function<void()> wake) {
  Entry entry = entries_.emplace(at, std::move(wake));
  if (at < armed_for_) arm(at);
  return entry;
}

void WakeList::arm(MonoTime at) {
  armed_for_ = at;
  std::uint64_t const generation = ++generation_;
  timer_.expires_at(at);  // cancels an earlier wait: its handler sees operation_aborted
  timer_.async_wait([this, generation](ErrorCode error) {
    if (error) return;  // re-armed, or the list is gone: `this` may not be touched
    if (generation == generation_) fire();
  });
}

void WakeList::fire() {
  armed_for_ = MonoTime::max();
  MonoTime const now = MonoClock::now();
  while (!entries_.empty() && entries_.begin()->first <= now) {
    std::function<void()> wake = std::move(entries_.begin()->second);
    entries_.erase(entries_.begin());
    wake();
  }
  if (!entries_.empty()) arm(entries_.begin()->first);
}

}  // namespace llmux::net
