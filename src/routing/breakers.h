#pragma once

// The two circuit breakers kept per (channel, upstream model): a failure breaker that opens after
// consecutive counted failures, and a 429-storm breaker that opens when too large a share of the
// recent answers are 429s. Pure logic: the caller classifies answers into AttemptSignals and
// passes the time (implementation: breakers.cpp).

#include <array>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"

namespace llmux::routing {

/// A channel's breaker settings (config: the `breaker:` section of a channel). The defaults are
/// the product specification's (circuit breakers).
using BreakerSettings = config::BreakerSettings;

/// Where a breaker stands.
enum class BreakerState { Closed, Open, HalfOpen };

/// "closed" | "open" | "half_open" (admin API, metric labels).
std::string_view breakerStateName(BreakerState state);

/// What one finished attempt tells the breakers; the caller classifies.
enum class AttemptSignal {
  Success,         ///< an answer that is not a failure
  CountedFailure,  ///< 5xx, connect/TLS failure, first-token timeout
  RateLimited,     ///< 429: a storm sign, never a failure
  Ignored,         ///< 4xx, client gone, total-duration timeout, racing loser: says nothing
};

/// Whether a caller may use the pair.
enum class Admission { Allowed, Probe, Refused };

/// The answer of BreakerBoard::admit.
struct BreakerDecision {
  Admission admission = Admission::Allowed;
  std::string_view reason;  ///< "" | "breaker_open" | "storm_open" | "probe_in_flight"
  std::optional<MonoTime>
      retry_at;  ///< when a refused pair will next admit a probe (at the latest)
};

/// One row of GET /admin/breakers.
struct BreakerView {
  std::string channel, model;
  BreakerState failure_state = BreakerState::Closed;
  BreakerState storm_state = BreakerState::Closed;
  int consecutive_failures = 0;
  int window_responses = 0;  ///< answers in the storm window (as of the listing)
  int window_429s = 0;       ///< of which 429s
  std::optional<MonoTime> failure_opened_at, storm_opened_at;  ///< nullopt when closed
  std::uint64_t opens = 0;        ///< failure-breaker transitions to Open (ever)
  std::uint64_t storm_opens = 0;  ///< storm-breaker transitions to Open (ever)
};

/// A breaker changing state (for llmux_breaker_transitions_total).
struct BreakerTransition {
  std::string channel, model;
  bool storm = false;  ///< the storm breaker, else the failure breaker
  BreakerState to = BreakerState::Closed;
};

/// What a breaker says to one caller, before any probe slot is taken.
struct BreakerGate {
  enum class Kind {
    Pass,        ///< closed
    ProbeReady,  ///< half-open with the probe slot free (or its probe lost)
    OpenWait,    ///< open, not yet due for a probe
    ProbeWait,   ///< half-open, its probe still out
  };
  Kind kind = Kind::Pass;
  MonoTime until{};  ///< for the waits: when a probe may next be admitted
};

/// The open → half-open → one-probe cycle both breakers share. Not thread-safe (BreakerBoard
/// holds it under its mutex). Half-open is not stored: an open breaker past its time is half-open.
class TripCycle {
 public:
  /// Open or half-open.
  bool tripped() const { return opened_at_.has_value(); }
  /// The state as of `now`.
  BreakerState state(Millis open_for, MonoTime now) const;
  /// When it opened; nullopt when closed.
  std::optional<MonoTime> openedAt() const { return opened_at_; }
  /// Whether a probe was admitted and has not reported.
  bool probeOut() const { return probe_sent_at_.has_value(); }
  /// Pass, wait, or probe, as of `now`.
  BreakerGate gate(Millis open_for, Millis probe_timeout, MonoTime now) const;
  /// Takes the probe slot; true for the first probe since the open (the move to half-open).
  bool takeProbe(MonoTime now);
  /// Opens with a fresh timer (from closed, or a failed probe).
  void open(MonoTime now);
  /// A neutral probe: frees the slot without touching the timer, so the next caller probes again.
  void releaseProbe() { probe_sent_at_.reset(); }
  /// Back to closed.
  void close();

 private:
  std::optional<MonoTime> opened_at_;
  std::optional<MonoTime> probe_sent_at_;
  bool probed_ = false;  ///< a probe was admitted since the open (half-open was reported)
};

/// The failure breaker of one pair. Not thread-safe (BreakerBoard holds it under its mutex).
class FailureBreaker {
 public:
  /// Pass (also when disabled), wait or probe, as of `now`.
  BreakerGate gate(BreakerSettings const& settings, MonoTime now) const;
  /// Takes the probe slot; true for the first probe since the open.
  bool takeProbe(MonoTime now) { return trip_.takeProbe(now); }
  /// Learns from one attempt; the state it moved to, if it moved.
  std::optional<BreakerState> record(BreakerSettings const& settings, AttemptSignal signal,
                                     bool was_probe, MonoTime now);
  /// The state as of `now` (Closed when disabled).
  BreakerState state(BreakerSettings const& settings, MonoTime now) const;
  /// Counted failures in a row (a probe's failure included; a success clears them).
  int consecutiveFailures() const { return consecutive_; }
  /// When it last opened; nullopt when closed.
  std::optional<MonoTime> openedAt() const { return trip_.openedAt(); }
  /// Transitions to Open, ever (a reset keeps them).
  std::uint64_t opens() const { return opens_; }
  /// Back to closed with no failure counted (admin reset, breaker turned off); opens() stays.
  /// True when it was open or half-open.
  bool reset();
  /// Closed with nothing counted: nothing to reset.
  bool idle() const { return !trip_.tripped() && consecutive_ == 0; }

 private:
  TripCycle trip_;
  int consecutive_ = 0;
  std::uint64_t opens_ = 0;
};

/// Answers and 429s in a sliding window, in a ring of sub-buckets: O(1) per record, no list of
/// timestamps. The window is kSlots slots of storm_window / kSlots, so an answer leaves it between
/// (kSlots - 1) and kSlots slot widths after it came. Not thread-safe.
class StormWindow {
 public:
  /// 1 s slots for the default 10 s window (the product specification's granularity).
  static constexpr std::size_t kSlots = 10;

  /// What the window holds.
  struct Counts {
    int responses = 0;
    int rate_limited = 0;
  };

  /// Counts one answer at `now`. A different `window` than before empties the ring first.
  void add(bool rate_limited, MonoTime now, Millis window);
  /// The counts as of `now` (slots that slid out are left out; nothing is changed).
  Counts counts(MonoTime now) const;
  /// Forgets every answer.
  void clear();
  /// The slot width for a window (at least 1 ms).
  static MonoClock::duration slotWidth(Millis window);

 private:
  struct Slot {
    int responses = 0;
    int rate_limited = 0;
  };
  /// Which slot `now` falls in (time / width_, rounded down).
  std::int64_t slotIndex(MonoTime now) const;
  /// Empties the slots after head_ up to `index` and makes it the head.
  void advanceTo(std::int64_t index);
  /// Where slot `index` lives in the ring (also for indexes before the clock's epoch).
  static std::size_t ringPosition(std::int64_t index);

  std::array<Slot, kSlots> slots_{};
  MonoClock::duration width_{0};  ///< 0: empty (no answer since the last clear)
  std::int64_t head_ = 0;         ///< the newest slot's index; slot i lives at slots_[i % kSlots]
  Counts total_;                  ///< the sum over the live slots
};

/// The 429-storm breaker of one pair. Not thread-safe (BreakerBoard holds it under its mutex).
class StormBreaker {
 public:
  /// Pass (also when disabled), wait or probe, as of `now`.
  BreakerGate gate(BreakerSettings const& settings, MonoTime now) const;
  /// Takes the probe slot; true for the first probe since the open.
  bool takeProbe(MonoTime now) { return trip_.takeProbe(now); }
  /// Learns from one attempt; the state it moved to, if it moved.
  std::optional<BreakerState> record(BreakerSettings const& settings, AttemptSignal signal,
                                     bool was_probe, MonoTime now);
  /// The state as of `now` (Closed when disabled).
  BreakerState state(BreakerSettings const& settings, MonoTime now) const;
  /// The window's answers and 429s as of `now`.
  StormWindow::Counts windowCounts(MonoTime now) const { return window_.counts(now); }
  /// When it last opened; nullopt when closed.
  std::optional<MonoTime> openedAt() const { return trip_.openedAt(); }
  /// Transitions to Open, ever (a reset keeps them).
  std::uint64_t opens() const { return opens_; }
  /// Back to closed with an empty window (admin reset, breaker turned off); opens() stays.
  /// True when it was open or half-open.
  bool reset();
  /// Closed with an empty window: nothing to reset.
  bool idle(MonoTime now) const { return !trip_.tripped() && window_.counts(now).responses == 0; }

 private:
  TripCycle trip_;
  StormWindow window_;
  std::uint64_t opens_ = 0;
};

/// Both breakers of every (channel, upstream model), shared by all workers. Thread-safe: one
/// mutex around a map keyed by channel + '\0' + model, searched by string_views without
/// allocating, so a refused admit costs one lock and one lookup. Pairs are created on their first
/// admit or record and stay (bounded by channels × models).
class BreakerBoard {
 public:
  /// Whether a caller may use the pair now; a Probe takes the probe slot of every half-open
  /// breaker of the pair (the caller must then record with was_probe = true).
  BreakerDecision admit(std::string_view channel, std::string_view model,
                        BreakerSettings const& settings, MonoTime now);
  /// Refused-or-not without taking a probe slot (route preview, planning).
  bool refusing(std::string_view channel, std::string_view model, BreakerSettings const& settings,
                MonoTime now) const;
  /// Feeds one finished attempt to both breakers.
  void record(std::string_view channel, std::string_view model, BreakerSettings const& settings,
              AttemptSignal signal, bool was_probe, MonoTime now);
  /// Every pair, sorted by channel then model; states as of `now` (open past its time shows
  /// half_open), judged with the settings the pair last saw.
  std::vector<BreakerView> list(MonoTime now) const;
  /// Admin reset: back to closed with empty counters (the `opens` totals stay: they count
  /// history); false when the pair is unknown.
  bool reset(std::string_view channel, std::string_view model);
  /// Resets every pair of `channel` (its route changed on a reload: what its breakers learned
  /// was about another upstream or exit); how many pairs it had.
  std::size_t resetChannel(std::string_view channel);
  /// Transitions since the last call (for metrics llmux_breaker_transitions_total), moved out.
  std::vector<BreakerTransition> takeTransitions();

  /// Transitions kept between two takeTransitions calls; later ones are dropped (and counted)
  /// so that a board nobody drains cannot grow without bound. Ours: far above what a scrape
  /// interval sees (a transition needs an open, at least seconds apart per pair).
  static constexpr std::size_t kMaxPendingTransitions = 4096;
  /// Transitions dropped because kMaxPendingTransitions were pending (monotonic).
  std::uint64_t droppedTransitions() const;

 private:
  /// A pair looked up without building its key.
  struct PairRef {
    std::string_view channel, model;
  };
  /// Hashes a stored key ("channel\0model") and a PairRef alike.
  struct PairHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view key) const;
    std::size_t operator()(PairRef ref) const;
  };
  struct PairEqual {
    using is_transparent = void;
    bool operator()(std::string_view a, std::string_view b) const { return a == b; }
    bool operator()(PairRef a, std::string_view key) const;
    bool operator()(std::string_view key, PairRef b) const { return (*this)(b, key); }
  };
  struct Pair {
    BreakerSettings settings;  ///< as last seen (list() judges with them)
    FailureBreaker failure;
    StormBreaker storm;
  };
  using PairMap = std::unordered_map<std::string, Pair, PairHash, PairEqual>;

  /// The pair's entry, created when new (mutex_ held).
  PairMap::iterator findOrCreateLocked(std::string_view channel, std::string_view model);
  /// Keeps the settings and clears a breaker that was turned off (mutex_ held).
  void adoptLocked(std::string_view key, Pair& pair, BreakerSettings const& settings, MonoTime now);
  /// Queues a transition (mutex_ held).
  void noteLocked(std::string_view key, bool storm, BreakerState to);

  mutable std::mutex mutex_;
  PairMap pairs_;
  std::vector<BreakerTransition> transitions_;
  /// Whether `transitions_` holds any: takeTransitions runs after every attempt and must not
  /// take the lock when nothing moved (the usual case).
  std::atomic<bool> has_transitions_{false};
  std::uint64_t dropped_transitions_ = 0;
};

}  // namespace llmux::routing
