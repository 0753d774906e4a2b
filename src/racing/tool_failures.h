#pragma once

// Routes known to fail at tool calls: a branch of a race whose first content was tool-call markup
// written as text (racing/pseudo_tool_call.h). Such a route is not chosen as a shadow for a
// request with tools for a day. Thread-safe.
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>

#include "core/clock.h"

namespace llmux::racing {

class ToolFailures {
 public:
  static constexpr std::chrono::hours kKeep{24};

  /// One pseudo tool call by (channel key, upstream model), counted once per race.
  void note(std::string_view key_id, std::string_view upstream_model, WallTime now) {
    std::lock_guard lock(mutex_);
    auto& entry = failures_[{std::string(key_id), std::string(upstream_model)}];
    ++entry.count;
    entry.last = now;
  }
  /// Whether the route failed at a tool call within the last day.
  bool failing(std::string_view key_id, std::string_view upstream_model, WallTime now) {
    std::lock_guard lock(mutex_);
    if (failures_.empty()) return false;
    auto it = failures_.find({std::string(key_id), std::string(upstream_model)});
    if (it == failures_.end()) return false;
    if (now - it->second.last > kKeep) {
      failures_.erase(it);
      return false;
    }
    return true;
  }
  /// How many pseudo tool calls the route produced (tests, the admin API).
  int count(std::string_view key_id, std::string_view upstream_model) {
    std::lock_guard lock(mutex_);
    auto it = failures_.find({std::string(key_id), std::string(upstream_model)});
    return it == failures_.end() ? 0 : it->second.count;
  }

 private:
  struct Entry {
    int count = 0;
    WallTime last{};
  };
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Entry> failures_;
};

}  // namespace llmux::racing
