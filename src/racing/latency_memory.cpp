#include "racing/latency_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <unordered_set>

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

void LatencyMemory::saved(Combination const& combination, State const& state) {
  if (sink_) {
    sink_->latencySaved({idOf(combination), combination, state.slow_streak, state.degraded,
                         state.updated_at});
  }
}

void LatencyMemory::removed(Combination const& combination) {
  std::string id = idOf(combination);
  if (sink_) sink_->latencyRemoved(id, combination);
  if (adopting_) removed_ids_.insert(std::move(id));
}

void LatencyMemory::forgetExpired(WallTime now) {
  std::erase_if(states_, [&](auto const& item) {
    if (now - item.second.updated_at <= kKeep) return false;
    removed(item.first);
    return true;
  });
}

LatencyMemory::State* LatencyMemory::find(Combination const& combination, WallTime now) {
  auto it = states_.find(combination);
  if (it == states_.end()) return nullptr;
  if (now - it->second.updated_at > kKeep) {
    removed(it->first);
    states_.erase(it);
    return nullptr;
  }
  return &it->second;
}

LatencyMemory::Change LatencyMemory::noteSlow(Combination const& combination, WallTime now) {
  std::lock_guard lock(mutex_);
  Recount recount{*this};
  forgetExpired(now);
  State& state = states_[combination];
  state.updated_at = now;
  state.slow_streak = std::min(state.slow_streak + 1, kSlowStreak);
  bool const degrades = state.slow_streak >= kSlowStreak && !state.degraded;
  if (degrades) state.degraded = true;
  saved(combination, state);
  return degrades ? Change::Degraded : Change::None;
}

LatencyMemory::Change LatencyMemory::noteFast(Combination const& combination, WallTime now) {
  std::lock_guard lock(mutex_);
  Recount recount{*this};
  State* state = find(combination, now);
  if (!state) return Change::None;
  bool const was_degraded = state->degraded;
  states_.erase(combination);  // nothing left to remember
  removed(combination);
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
  Recount recount{*this};
  if (State* state = find(combination, now); state && state->degraded) return true;
  if (combination.task_class == "unknown") return false;
  Combination any = combination;
  any.task_class = "unknown";
  State* state = find(any, now);
  return state && state->degraded;
}

std::vector<LatencyMemory::Entry> LatencyMemory::list(WallTime now) {
  std::lock_guard lock(mutex_);
  Recount recount{*this};
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
  Recount recount{*this};
  for (auto it = states_.begin(); it != states_.end(); ++it) {
    if (idOf(it->first) == id) {
      removed(it->first);
      states_.erase(it);
      return true;
    }
  }
  return false;
}

void LatencyMemory::load(std::vector<Entry> const& entries, WallTime now) {
  std::lock_guard lock(mutex_);
  Recount recount{*this};
  for (Entry const& entry : entries) {
    if (now - entry.updated_at > kKeep) continue;
    states_[entry.combination] = {std::clamp(entry.slow_streak, 0, kSlowStreak), entry.degraded,
                                  entry.updated_at};
  }
}

std::size_t LatencyMemory::adopt(std::vector<Entry> const& stored, WallTime now,
                                 std::uint64_t read_mark) {
  std::lock_guard lock(mutex_);
  Recount recount{*this};
  adopting_ = true;
  forgetExpired(now);
  std::unordered_set<std::string> stored_now;
  for (Entry const& entry : stored) stored_now.insert(entry.id);
  std::size_t changed = 0;
  // Gone from the store since the last look: recovered or cleared by another replica.
  std::erase_if(states_, [&](auto const& item) {
    std::string const id = idOf(item.first);
    // A save noted after the read began is not gone: the read could not see it.
    if (!stored_ids_.goneUnless(id, read_mark) || stored_now.contains(id)) return false;
    if (sink_) sink_->latencyAdopted(item.first, false);
    ++changed;
    return true;
  });
  for (Entry const& entry : stored) {
    if (removed_ids_.contains(entry.id) || now - entry.updated_at > kKeep) continue;
    auto [it, added] = states_.try_emplace(entry.combination);
    State& state = it->second;
    if (!added && entry.updated_at <= state.updated_at) continue;  // ours is as new or newer
    state = {std::clamp(entry.slow_streak, 0, kSlowStreak), entry.degraded, entry.updated_at};
    if (sink_) sink_->latencyAdopted(entry.combination, entry.degraded);
    ++changed;
  }
  // A removal the store shows is done: its id is forgotten.
  std::erase_if(removed_ids_, [&](std::string const& id) { return !stored_now.contains(id); });
  stored_ids_.replace(stored_now, read_mark);
  return changed;
}

void LatencyMemory::noteStored(std::string const& id) {
  std::lock_guard lock(mutex_);
  stored_ids_.noteStored(id);
}

std::uint64_t LatencyMemory::storeMark() {
  std::lock_guard lock(mutex_);
  return stored_ids_.mark();
}

void LatencyMemory::setSink(LatencySink* sink) {
  std::lock_guard lock(mutex_);
  sink_ = sink;
}

}  // namespace llmux::racing
