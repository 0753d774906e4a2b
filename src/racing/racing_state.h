#pragma once

// Everything racing keeps for the life of the process, shared by every worker thread: the
// thresholds, latency learning, the anti-amplification limits, the switches an operator set
// through the admin API, and the counters the metrics and `GET /admin/racing` show.
// Thread-safe.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>

#include "config/settings.h"
#include "racing/hedge_budget.h"
#include "racing/latency_memory.h"
#include "racing/threshold_registry.h"
#include "racing/tool_failures.h"

namespace llmux::racing {

/// Counters of races since start (docs/racing.md, "Admin, logs and metrics").
struct RaceCounters {
  std::atomic<std::uint64_t> armed{0};            ///< requests that could race
  std::atomic<std::uint64_t> triggered{0};        ///< the threshold passed: shadows were sought
  std::atomic<std::uint64_t> won_by_shadow{0};
  std::atomic<std::uint64_t> won_by_primary{0};   ///< after shadows were sent
  std::atomic<std::uint64_t> blocked_by_budget{0};
  std::atomic<std::uint64_t> blocked_by_cap{0};   ///< max_shadows_in_flight
  std::atomic<std::uint64_t> no_candidate{0};     ///< triggered, but no candidate could shadow
  std::atomic<std::uint64_t> shadows_sent{0};
  std::atomic<std::uint64_t> loser_tokens{0};     ///< tokens losers reported (racing overhead)
};

/// Keeps the admin switches across restarts (the state store's writer).
class SwitchSink {
 public:
  virtual ~SwitchSink() = default;
  /// An operator changed the switches: keep them as the state's `switches()` are when the write
  /// is made (so the last change wins, whatever the order of concurrent calls). Called on an I/O
  /// thread, under the state's switch lock: it must only queue.
  virtual void switchesChanged() = 0;
  /// Writes of the switches and latency learning given up on (monotonic), for `/metrics`.
  virtual std::uint64_t failedWrites() const = 0;
};

class RacingState {
 public:
  explicit RacingState(config::RacingSettings const& settings)
      : budget(settings.hedge_budget), slots(settings.max_shadows_in_flight) {}

  /// A reload: the limits follow the configuration (what is in flight stays).
  void apply(config::RacingSettings const& settings) {
    budget.setShare(settings.hedge_budget);
    slots.setMax(settings.max_shadows_in_flight);
  }

  /// The global switch: an operator's `PUT /admin/racing` when made, else the configuration's.
  bool enabled(config::RacingSettings const& settings) const {
    int set = enabled_override_.load(std::memory_order_acquire);
    return set < 0 ? settings.enabled : set == 1;
  }
  /// The global cost preference, likewise.
  config::CostPreference preference(config::RacingSettings const& settings) const {
    int set = preference_override_.load(std::memory_order_acquire);
    return set < 0 ? settings.cost_preference : static_cast<config::CostPreference>(set);
  }
  std::optional<bool> enabledOverride() const {
    int set = enabled_override_.load(std::memory_order_acquire);
    if (set < 0) return std::nullopt;
    return set == 1;
  }
  std::optional<config::CostPreference> preferenceOverride() const {
    int set = preference_override_.load(std::memory_order_acquire);
    if (set < 0) return std::nullopt;
    return static_cast<config::CostPreference>(set);
  }
  /// The switches as an operator (or the shared store) left them, with the generation of the
  /// last operator change on this replica.
  struct Switches {
    std::optional<bool> enabled;                           ///< unset: the configuration's
    std::optional<config::CostPreference> cost_preference;  ///< unset: the configuration's
    std::uint64_t generation = 0;
  };
  Switches switches() const {
    std::lock_guard lock(switches_mutex_);
    return {enabledOverride(), preferenceOverride(), generation_};
  }
  /// An operator's change on this replica (`PUT /admin/racing`): a member given (an inner
  /// nullopt: back to the configuration's) is set, the generation moves on and the sink is told.
  void changeSwitches(std::optional<std::optional<bool>> enabled,
                      std::optional<std::optional<config::CostPreference>> preference) {
    if (!enabled && !preference) return;
    std::lock_guard lock(switches_mutex_);
    if (enabled) overrideEnabled(*enabled);
    if (preference) overridePreference(*preference);
    ++generation_;
    if (SwitchSink* sink = switch_sink_.load(std::memory_order_acquire)) sink->switchesChanged();
  }
  /// Start-up, or what another replica stored (the shared store): takes both switches as they
  /// are unless an operator changed them here since `seen_generation` — that change is the newer
  /// one, and it is on its way to the store. Returns whether anything changed. The sink is not
  /// told: the switches came from it.
  bool adoptSwitches(std::optional<bool> enabled,
                     std::optional<config::CostPreference> preference,
                     std::uint64_t seen_generation) {
    std::lock_guard lock(switches_mutex_);
    if (generation_ != seen_generation) return false;
    if (enabledOverride() == enabled && preferenceOverride() == preference) return false;
    overrideEnabled(enabled);
    overridePreference(preference);
    return true;
  }
  /// Where `switchesChanged` goes (nullptr: nowhere). Set before serving.
  void setSwitchSink(SwitchSink* sink) { switch_sink_.store(sink, std::memory_order_release); }
  /// The sink's writes given up on (0 without one).
  std::uint64_t persistenceFailures() const {
    SwitchSink const* sink = switch_sink_.load(std::memory_order_acquire);
    return sink != nullptr ? sink->failedWrites() : 0;
  }

  ThresholdRegistry thresholds;
  LatencyMemory latency;
  HedgeBudget budget;
  ShadowSlots slots;
  ToolFailures tool_failures;  ///< routes that answered tools with markup as text
  RaceCounters counters;

 private:
  void overrideEnabled(std::optional<bool> enabled) {
    enabled_override_.store(enabled ? (*enabled ? 1 : 0) : -1, std::memory_order_release);
  }
  void overridePreference(std::optional<config::CostPreference> preference) {
    preference_override_.store(preference ? static_cast<int>(*preference) : -1,
                               std::memory_order_release);
  }

  // Read lock-free on every request; written under the mutex, so a change and an adoption never
  // interleave.
  std::atomic<int> enabled_override_{-1};     ///< -1: the configuration's
  std::atomic<int> preference_override_{-1};  ///< -1: the configuration's
  mutable std::mutex switches_mutex_;
  std::uint64_t generation_ = 0;  ///< operator changes on this replica
  std::atomic<SwitchSink*> switch_sink_{nullptr};
};

}  // namespace llmux::racing
