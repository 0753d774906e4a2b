#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"
#include "core/http_headers.h"
#include "core/stored_ids.h"

namespace llmux::routing {

/// One frozen object. Wall-clock times: freezes persist across restarts.
struct Freeze {
  std::string id;            ///< "frz_<hex>": the admin API's handle
  config::FreezeObject object = config::FreezeObject::Key;
  config::FreezePeriod period = config::FreezePeriod::Today;
  std::string channel;       ///< channel name (every object)
  std::string key_id;        ///< ChannelKey::id for key objects, "" otherwise
  std::string key_label;     ///< for display
  std::string model;         ///< upstream model for +model objects, "" otherwise
  WallTime created{};
  std::optional<WallTime> until;  ///< nullopt: forever (until lifted)
  std::string rule;          ///< the rule's name
  std::string reason;        ///< "status 403: <start of the error message>" (no secrets)
};

/// What an answer came from: the object a rule may freeze.
struct FreezeTarget {
  std::string channel;
  std::string key_id;
  std::string key_label;
  std::string model;  ///< upstream model
};

/// Where freezes are kept across restarts (store::FreezeWriter, over SQLite).
///
/// FreezeTable calls `saveFreeze` and `removeFreeze` on request threads (a routing decision, an
/// admin call, a /metrics scrape), with its lock held so the writes arrive in the order of the
/// changes. They must therefore return at once and never throw: queue the write for a thread of
/// the implementation's own, and count what fails (`failedWrites`). Only `loadFreezes`, at
/// start-up, is synchronous.
class FreezePersistence {
 public:
  virtual ~FreezePersistence() = default;
  /// Every stored freeze. Start-up only; throws std::runtime_error when they cannot be read.
  virtual std::vector<Freeze> loadFreezes() = 0;
  /// Queues storing `freeze` (insert, or replace the one with its id).
  virtual void saveFreeze(Freeze const& freeze) = 0;
  /// Queues removing the freeze `id`.
  virtual void removeFreeze(std::string const& id) = 0;
  /// Queued writes that were given up on so far (monotonic).
  virtual std::uint64_t failedWrites() const = 0;
};

/// The first rule matching an upstream answer (status, body substring, header), or nullptr.
config::FreezeRule const* matchFreezeRule(std::vector<config::FreezeRule> const& rules, int status,
                                          HeaderList const& headers, std::string_view body);
/// Whether some rule for `status` looks at the body (the forwarder then reads the small error body).
bool freezeRulesNeedBody(std::vector<config::FreezeRule> const& rules, int status);

/// When the upstream says its limit resets: retry-after, x-ratelimit-reset-requests/-tokens
/// (OpenAI durations such as "6m0s"), anthropic-ratelimit-*-reset (RFC 3339), Gemini RetryInfo
/// in the body. nullopt when it does not say.
std::optional<WallTime> upstreamResetTime(HeaderList const& headers, std::string_view body, WallTime now);

/// The end of a freeze period starting `now` (UTC days; weeks end on Monday 00:00 UTC; months on
/// the 1st). nullopt for Forever. UpstreamReset uses `reset`, else the end of today.
std::optional<WallTime> freezeEnd(config::FreezePeriod period, WallTime now, Millis duration,
                                  std::optional<WallTime> reset);

/// The active freezes, shared by all workers. Thread-safe; `frozen` is cheap when nothing is
/// frozen (one atomic load). Expired freezes are dropped (and removed from persistence) as they
/// are met, so a freeze whose time passed never lingers. The memory is the truth and changes at
/// once; persistence only queues its writes (see FreezePersistence), so no call waits for a disk.
class FreezeTable {
 public:
  explicit FreezeTable(TimeSource const& clock, FreezePersistence* persistence = nullptr);

  /// Reads the persisted freezes (dropping expired ones). Call once at startup.
  void load();

  /// The freeze that takes this (channel, key, upstream model) out of rotation, if any.
  std::optional<Freeze> frozen(std::string_view channel, std::string_view key_id,
                               std::string_view model) const;
  /// Whether anything may be frozen (one atomic load): when not, `frozen` answers nullopt for
  /// every candidate and need not be asked.
  bool anyFrozen() const { return count_.load(std::memory_order_acquire) != 0; }

  /// Freezes `target` as `rule` says; returns the new (or extended) freeze. An existing freeze of
  /// the same object is extended, never shortened.
  Freeze apply(config::FreezeRule const& rule, FreezeTarget const& target,
               std::optional<WallTime> upstream_reset, std::string reason);

  /// Lifts a freeze, with any other freeze of the same object (two replicas may have frozen it
  /// at once, each under its own id); false when no such id.
  bool lift(std::string const& id);
  /// Lifts every freeze of a key, whatever its period.
  std::size_t liftKey(std::string const& key_id);
  /// What a passing health probe lifts: every freeze of the key (its key and key+model
  /// objects) except those lasting `forever`, which only an operator lifts. Returns the lifted
  /// freezes; `kept` counts the forever ones left.
  std::vector<Freeze> liftKeyUnlessForever(std::string const& key_id, std::size_t& kept);

  /// The active freezes, oldest first.
  std::vector<Freeze> list() const;

  /// Takes in the freezes the shared store holds (store::SharedStateSync, with `database:`): freezes
  /// other replicas made are added, ones they extended are extended here, and ones that left
  /// the store since the last look (lifted or expired elsewhere) are lifted here. A freeze of
  /// this replica's that is not stored yet (its write is queued) is kept, and one it lifted is
  /// not taken back while its removal is on its way. Nothing is written back. Returns how many
  /// freezes changed.
  /// `read_mark` is `storeMark()` taken before `stored` was read (the default: a snapshot that
  /// saw every save noted so far).
  std::size_t adopt(std::vector<Freeze> const& stored,
                    std::uint64_t read_mark = std::numeric_limits<std::uint64_t>::max());
  /// Taken before reading a snapshot for `adopt`.
  std::uint64_t storeMark() const;
  /// This replica's save of freeze `id` reached the shared store: from now on its absence there
  /// means another replica lifted it (without this, a freeze lifted elsewhere before this
  /// replica's next look would never be seen to leave).
  void noteStored(std::string const& id);

  /// Persistence writes given up on (the table itself stays right; the change is lost at the
  /// next restart). Monotonic, for logs and metrics.
  std::uint64_t persistenceFailures() const;

 private:
  /// Lifts the freezes of `key_id` that `lifts` accepts; returns them.
  template <class Pred>
  std::vector<Freeze> liftKeyWhere(std::string const& key_id, Pred lifts);
  /// Removes expired freezes from memory and queues their removal from persistence.
  void dropExpiredLocked(WallTime now) const;
  /// Queues the removal of `id` from persistence (mutex_ held: the writes keep the order of the
  /// changes, and queueing never waits).
  void forgetLocked(std::string const& id) const;

  TimeSource const& clock_;
  FreezePersistence* persistence_;
  mutable std::mutex mutex_;
  mutable std::vector<Freeze> freezes_;  ///< oldest first
  mutable std::atomic<std::size_t> count_{0};
  /// What `adopt` saw stored last time, and the freezes this replica removed whose removal the
  /// store may not show yet.
  /// Only kept once `adopt` runs (a shared store): otherwise nothing would ever clear them.
  StoredIds stored_ids_;
  mutable std::unordered_set<std::string> removed_ids_;
  bool adopting_ = false;
};

}  // namespace llmux::routing
