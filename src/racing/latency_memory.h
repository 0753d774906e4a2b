#pragma once

// Latency learning: a (channel key, upstream model, task class) combination that keeps being slow
// to its first token is marked degraded — a soft penalty in the router's score and never a
// shadow — until one fast sample shows it recovered. Slowness is not a missing capability, so it
// never excludes. Evidence is kept for a day, across restarts: a sink (the state store's writer)
// is told every change, and start-up loads what it kept. Thread-safe.

#include <atomic>
#include <cstddef>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/stored_ids.h"

namespace llmux::racing {

/// One combination. `key_id` is the channel key's stable id (`<channel>/<hash>`).
struct Combination {
  std::string key_id;
  std::string upstream_model;
  std::string task_class = "unknown";

  auto operator<=>(Combination const&) const = default;
};

class LatencySink;

class LatencyMemory {
 public:
  /// Slow evidence in a row that marks a combination degraded (one slow sample is jitter).
  static constexpr int kSlowStreak = 3;
  /// Evidence older than this is forgotten.
  static constexpr std::chrono::hours kKeep{24};
  /// The score penalty of a degraded combination (between "degraded" and "limited").
  static constexpr int kScorePenalty = 15;

  enum class Change { None, Degraded, Recovered };

  /// Slow evidence: the primary lost to a shadow, a race was started for it, or a plain stream's
  /// first token came after its family's threshold.
  Change noteSlow(Combination const& combination, WallTime now);
  /// A first token in under half the threshold: recovered at once, the streak cleared.
  Change noteFast(Combination const& combination, WallTime now);
  /// A plain stream's first token after `elapsed`: slow past `threshold`, fast under half of it,
  /// neither in between.
  Change noteFirstToken(Combination const& combination, Millis elapsed, Millis threshold,
                        WallTime now);

  /// Whether nothing is remembered (one atomic load, no lock): a fast first token then has
  /// nothing to recover, and its caller can skip noteFirstToken.
  bool empty() const { return remembered_.load(std::memory_order_relaxed) == 0; }
  /// Degraded for this task class, or for any task class (the `unknown` bucket).
  bool degraded(Combination const& combination, WallTime now);

  struct Entry {
    std::string id;  ///< stable, path-safe (hex)
    Combination combination;
    int slow_streak = 0;
    bool degraded = false;
    WallTime updated_at{};
  };
  /// Every combination with evidence, degraded ones first.
  std::vector<Entry> list(WallTime now);
  /// Forgets one combination (an operator's `DELETE`): false when the id is unknown.
  bool clear(std::string const& id);

  /// The id `list` gives a combination.
  static std::string idOf(Combination const& combination);

  /// Start-up: the entries kept before a restart (`list`'s, ids aside: they are derived). Those
  /// older than kKeep at `now` are dropped. The sink is not told: the entries came from it.
  void load(std::vector<Entry> const& entries, WallTime now);
  /// Where every later change is told (nullptr: none). Set before the memory is shared.
  void setSink(LatencySink* sink);

  /// The shared store's entries (`database:`), read back by every replica: an entry another
  /// replica made or changed later than this one's is taken, and one this replica saw stored
  /// that is gone was recovered or cleared elsewhere, so it goes here too. This replica's own
  /// changes not yet stored stay: a removal until the store shows it, a newer entry until its
  /// write lands. The sink hears `latencyAdopted` (not a change to write back). Returns how
  /// many entries changed.
  /// `read_mark` is `storeMark()` taken before `stored` was read (the default: a snapshot that
  /// saw every save noted so far).
  std::size_t adopt(std::vector<Entry> const& stored, WallTime now,
                    std::uint64_t read_mark = std::numeric_limits<std::uint64_t>::max());
  /// Taken before reading a snapshot for `adopt`.
  std::uint64_t storeMark();
  /// The writer stored this entry (the shared store): a later look that misses it means another
  /// replica removed it.
  void noteStored(std::string const& id);

 private:
  struct State {
    int slow_streak = 0;
    bool degraded = false;
    WallTime updated_at{};
  };
  void forgetExpired(WallTime now);
  State* find(Combination const& combination, WallTime now);
  void saved(Combination const& combination, State const& state);
  void removed(Combination const& combination);

  /// Keeps `remembered_` equal to the number of states when the locked call that holds it ends.
  struct Recount {
    LatencyMemory& memory;
    ~Recount() { memory.remembered_.store(memory.states_.size(), std::memory_order_relaxed); }
  };
  std::atomic<std::size_t> remembered_{0};
  std::mutex mutex_;
  std::map<Combination, State> states_;
  LatencySink* sink_ = nullptr;
  /// With a shared store only (once `adopt` runs): the ids it held at the last look (or that
  /// were stored since), and those this replica removed whose removal it does not show yet.
  StoredIds stored_ids_;
  std::set<std::string> removed_ids_;
  bool adopting_ = false;
};

/// Keeps a LatencyMemory's entries (the state store's writer). Told under the memory's lock, so
/// the calls come in the order of the changes; they must only queue, never wait for a disk.
class LatencySink {
 public:
  virtual ~LatencySink() = default;
  /// The entry was created or changed; `entry` is what it is now.
  virtual void latencySaved(LatencyMemory::Entry const& entry) = 0;
  /// The entry of `combination` (its id `id`) is gone: recovered, expired or cleared by an
  /// operator.
  virtual void latencyRemoved(std::string const& id, Combination const& combination) = 0;
  /// Another replica's verdict was taken from the shared store (LatencyMemory::adopt):
  /// `degraded` is what the combination is now. Nothing to write back.
  virtual void latencyAdopted(Combination const& combination, bool degraded) {
    (void)combination;
    (void)degraded;
  }
};

}  // namespace llmux::racing
