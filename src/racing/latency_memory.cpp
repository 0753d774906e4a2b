#include "racing/latency_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

namespace llmux::racing {

std::string LatencyMemory::idOf(Combination const& combination) {
  // FNV-1a over the fields with a separator: stable across restarts and builds.
  std::uint64_t hash = 14695981039346656037ull;
  auto mix = [&](std::string_view text) {
    for (unsigned char c : text) {
      hash ^= c;
      hash *= 1099511628211ull;
    }
    hash ^= 0xff;
    hash *= 1099511628211ull;
  };
  mix(combination.key_id);
  mix(combination.upstream_model);
  mix(combination.task_class);
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

void LatencyMemory::forgetExpired(WallTime now) {
  std::erase_if(states_, [&](auto const& item) { return now - item.second.updated_at > kKeep; });
}

LatencyMemory::State* LatencyMemory::find(Combination const& combination, WallTime now) {
  auto it = states_.find(combination);
  if (it == states_.end()) return nullptr;
  if (now - it->second.updated_at > kKeep) {
    states_.erase(it);
    return nullptr;
  }
  return &it->second;
}

LatencyMemory::Change LatencyMemory::noteSlow(Combination const& combination, WallTime now) {
  std::lock_guard lock(mutex_);
  forgetExpired(now);
  State& state = states_[combination];
  state.updated_at = now;
  state.slow_streak = std::min(state.slow_streak + 1, kSlowStreak);
  if (state.slow_streak >= kSlowStreak && !state.degraded) {
    state.degraded = true;
    return Change::Degraded;
  }
  return Change::None;
}

LatencyMemory::Change LatencyMemory::noteFast(Combination const& combination, WallTime now) {
  std::lock_guard lock(mutex_);
  State* state = find(combination, now);
  if (!state) return Change::None;
  bool const was_degraded = state->degraded;
  states_.erase(combination);  // nothing left to remember
  return was_degraded ? Change::Recovered : Change::None;
}

LatencyMemory::Change LatencyMemory::noteFirstToken(Combination const& combination, Millis elapsed,
                                                    Millis threshold, WallTime now) {
  if (elapsed > threshold) return noteSlow(combination, now);
  if (elapsed * 2 < threshold) return noteFast(combination, now);
  return Change::None;
}

bool LatencyMemory::degraded(Combination const& combination, WallTime now) {
  std::lock_guard lock(mutex_);
  if (State* state = find(combination, now); state && state->degraded) return true;
  if (combination.task_class == "unknown") return false;
  Combination any = combination;
  any.task_class = "unknown";
  State* state = find(any, now);
  return state && state->degraded;
}

std::vector<LatencyMemory::Entry> LatencyMemory::list(WallTime now) {
  std::lock_guard lock(mutex_);
  forgetExpired(now);
  std::vector<Entry> entries;
  entries.reserve(states_.size());
  for (auto const& [combination, state] : states_) {
    entries.push_back({idOf(combination), combination, state.slow_streak, state.degraded,
                       state.updated_at});
  }
  std::stable_sort(entries.begin(), entries.end(),
                   [](Entry const& a, Entry const& b) { return a.degraded > b.degraded; });
  return entries;
}

bool LatencyMemory::clear(std::string const& id) {
  std::lock_guard lock(mutex_);
  for (auto it = states_.begin(); it != states_.end(); ++it) {
    if (idOf(it->first) == id) {
      states_.erase(it);
      return true;
    }
  }
  return false;
}

}  // namespace llmux::racing
