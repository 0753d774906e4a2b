#include "routing/router_state.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <deque>
#include <list>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "core/retry_after.h"
#include "routing/scoring.h"

namespace llmux::routing {

namespace sc = scoring_constants;

namespace {

/// Lets the maps be searched with a string_view (no allocation on the planning path) or with a
/// HashedKeyId (no hashing either: the planner hashed the id once for all its lookups).
struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  std::size_t operator()(HashedKeyId const& key) const { return key.hash; }
};
struct StringEqual {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
  bool operator()(std::string_view a, HashedKeyId const& b) const { return a == b.id; }
  bool operator()(HashedKeyId const& a, std::string_view b) const { return a.id == b; }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, StringEqual>;

// --- Upstream rate-limit headers ------------------------------------------------------------

/// What the rate-limit headers say: nullopt when they say nothing, else when the key has room
/// again (`now` or earlier: room now). A limit at 0 without a reset time is left alone for
/// kDefaultUpstreamReset.
std::optional<MonoTime> upstreamBlockedUntil(HeaderList const& headers, MonoTime now, WallTime wall_now) {
  std::optional<MonoTime> result;
  for (auto const& limit : announcedLimits(headers, wall_now)) {
    if (!limit.remaining) continue;
    MonoTime until = now;
    if (*limit.remaining <= 0) {
      until = limit.reset ? now + std::chrono::duration_cast<MonoClock::duration>(*limit.reset - wall_now)
                          : now + sc::kDefaultUpstreamReset;
    }
    if (!result || until > *result) result = until;
  }
  return result;
}

std::int64_t utcDay(WallTime t) {
  auto seconds = std::chrono::duration_cast<std::chrono::seconds>(t.time_since_epoch()).count();
  return seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400;
}

}  // namespace

// --- State --------------------------------------------------------------------------------------

namespace {

/// Failure and performance statistics of one (key, upstream model).
struct ModelStats {
  std::string model;
  int consecutive_failures = 0;
  int success_streak = 0;
  std::deque<MonoTime> window;  ///< counting failures since the last cooldown, within the window
  int cooldown_repeats = 0;
  MonoTime cooldown_until{};
  std::optional<MonoTime> last_failure;
  double success_rate = 1;
  std::optional<double> first_token_ms;
  bool latency_degraded = false;
};

/// One attempt start in the RPM/TPM window.
struct RateStart {
  MonoTime at;
  std::int64_t tokens_before;  ///< the key's cumulative estimated tokens before this start
};

/// Headroom, quota and statistics of one key.
struct KeyEntry {
  std::int64_t in_flight = 0;
  std::deque<RateStart> starts;  ///< kept only for keys with an RPM or TPM limit
  std::int64_t cumulative_tokens = 0;
  std::optional<MonoTime> upstream_blocked_until;
  std::int64_t quota_day = -1;
  std::int64_t quota_used = 0;
  std::vector<ModelStats> models;

  /// The position of the model's statistics in `models` (never erased, so it stays), or -1.
  std::int32_t indexOf(std::string_view model) const {
    for (std::size_t i = 0; i < models.size(); ++i) {
      if (models[i].model == model) return static_cast<std::int32_t>(i);
    }
    return -1;
  }
  ModelStats& at(std::string_view model) {
    for (auto& m : models) {
      if (m.model == model) return m;
    }
    models.push_back(ModelStats{.model = std::string(model)});
    return models.back();
  }
};

struct Session {
  std::string last_key_id;
  std::size_t last_key_hash = 0;  ///< HashedKeyId's hash of last_key_id
  std::string last_model;
  std::vector<SessionFailure> failing;
  MonoTime last_used{};
  std::list<std::string>::iterator lru;
};

}  // namespace

/// The planner's way into `keys`: an open-addressed table of the map's nodes by key-id hash, a
/// power of two in size, so that a lookup masks the hash instead of dividing it (unordered_map's
/// bucket index is a division, ~1 µs over 100 candidates). The map's nodes never move and keys
/// are never erased, so the pointers stay valid.
class KeyIndex {
 public:
  using Node = std::pair<std::string const, KeyEntry>;

  Node const* find(HashedKeyId const& id) const {
    if (slots_.empty()) return nullptr;
    for (std::size_t i = id.hash & mask();; i = (i + 1) & mask()) {
      auto const& slot = slots_[i];
      if (!slot.node) return nullptr;
      if (slot.hash == id.hash && slot.node->first == id.id) return slot.node;
    }
  }

  void add(std::size_t hash, Node* node) {
    if ((count_ + 1) * 2 > slots_.size()) grow();
    place(hash, node);
    ++count_;
  }

 private:
  struct Slot {
    std::size_t hash = 0;
    Node* node = nullptr;
  };

  std::size_t mask() const { return slots_.size() - 1; }

  void place(std::size_t hash, Node* node) {
    std::size_t i = hash & mask();
    while (slots_[i].node) i = (i + 1) & mask();
    slots_[i] = Slot{hash, node};
  }

  void grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(16, old.size() * 2), Slot{});
    for (auto const& slot : old) {
      if (slot.node) place(slot.hash, slot.node);
    }
  }

  std::vector<Slot> slots_;  ///< at most half full
  std::size_t count_ = 0;
};

/// A catalog's slots resolved to this state's entries: key slot -> its KeyEntry, (key, upstream
/// model) slot -> the position of its ModelStats. Filled as lookups find them (under the shared
/// lock, so the stores are atomic; every thread stores the same value), never emptied: entries
/// and statistics are never erased or moved. An unresolved slot (nullptr, -1) is looked up by
/// name, which resolves it once the entry exists.
struct RouterState::Binding {
  std::shared_ptr<const void> catalog;  ///< Catalog::identity(), held so it is never reused
  std::unique_ptr<std::atomic<KeyEntry const*>[]> keys;
  std::unique_ptr<std::atomic<std::int32_t>[]> stats;

  explicit Binding(Catalog const& from)
      : catalog(from.identity()),
        keys(new std::atomic<KeyEntry const*>[from.keySlots()]),
        stats(new std::atomic<std::int32_t>[from.statsSlots()]) {
    for (std::size_t i = 0; i < from.keySlots(); ++i) keys[i].store(nullptr, std::memory_order_relaxed);
    for (std::size_t i = 0; i < from.statsSlots(); ++i) stats[i].store(-1, std::memory_order_relaxed);
  }
};

namespace {

/// Catalogs whose bindings a state keeps: the current one, and the ones a reload just replaced
/// (requests that started before it still plan with theirs). Ours.
constexpr std::size_t kMaxBindings = 4;

}  // namespace

struct RouterState::Impl {
  mutable std::shared_mutex mutex;
  StringMap<KeyEntry> keys;
  KeyIndex key_index;  ///< `keys` for the planner
  /// Catalogs' slot bindings, oldest first; read under the shared lock, changed under the unique.
  mutable std::vector<std::unique_ptr<Binding>> bindings;

  Binding const* findBinding(Catalog const& catalog) const {
    for (auto const& b : bindings) {
      if (b->catalog == catalog.identity()) return b.get();
    }
    return nullptr;
  }
  /// Keeps a new catalog's binding, dropping the oldest beyond kMaxBindings (unique lock held).
  /// Allocates nothing (`bindings` has its room from the start).
  void adopt(std::unique_ptr<Binding> fresh) const {
    if (findBinding(*fresh)) return;
    if (bindings.size() >= kMaxBindings) bindings.erase(bindings.begin());
    bindings.push_back(std::move(fresh));
  }
  Binding const* findBinding(Binding const& like) const {
    for (auto const& b : bindings) {
      if (b->catalog == like.catalog) return b.get();
    }
    return nullptr;
  }

  Impl() { bindings.reserve(kMaxBindings); }

  /// The key's entry, created on first use (unique lock held).
  KeyEntry& keyEntry(std::string_view key_id) {
    auto it = keys.find(key_id);
    if (it == keys.end()) {
      it = keys.emplace(std::string(key_id), KeyEntry{}).first;
      key_index.add(HashedKeyId(key_id).hash, &*it);
    }
    return it->second;
  }
  StringMap<Session> sessions;
  std::list<std::string> lru;  ///< session keys, least recently used first

  Session& touchSession(std::string_view name, MonoTime now) {
    // Forget idle sessions and keep the count bounded, oldest first.
    while (!lru.empty()) {
      auto oldest = sessions.find(lru.front());
      bool idle = oldest->second.last_used + sc::kSessionIdleTtl < now;
      if (!idle && sessions.size() < sc::kMaxSessions) break;
      if (oldest->first == name && !idle) break;
      sessions.erase(oldest);
      lru.pop_front();
    }
    auto it = sessions.find(name);
    if (it == sessions.end()) {
      it = sessions.emplace(std::string(name), Session{}).first;
      it->second.lru = lru.insert(lru.end(), it->first);
    } else {
      lru.splice(lru.end(), lru, it->second.lru);
    }
    it->second.last_used = now;
    return it->second;
  }
};

RouterState::RouterState(TimeSource const& clock) : clock_(clock), impl_(std::make_unique<Impl>()) {}
RouterState::~RouterState() = default;

void RouterState::attemptStarted(std::string_view key_id, config::ChannelKey const& key,
                                 std::int64_t estimated_tokens) {
  MonoTime now = clock_.now();
  std::unique_lock lock(impl_->mutex);
  auto& entry = impl_->keyEntry(key_id);
  ++entry.in_flight;
  if (!key.limits.rpm && !key.limits.tpm) return;
  while (!entry.starts.empty() && entry.starts.front().at + sc::kRateWindow <= now) {
    entry.starts.pop_front();
  }
  entry.starts.push_back(RateStart{now, entry.cumulative_tokens});
  entry.cumulative_tokens += std::max<std::int64_t>(estimated_tokens, 0);
}

void RouterState::setLatencyDegraded(std::string_view key_id, std::string_view upstream_model,
                                     bool degraded) {
  std::unique_lock lock(impl_->mutex);
  impl_->keyEntry(key_id).at(upstream_model).latency_degraded = degraded;
}

void RouterState::attemptFinished(AttemptReport const& report, config::ChannelKey const& key) {
  MonoTime now = clock_.now();
  WallTime wall_now = clock_.wallNow();
  auto action = actionFor(report.outcome);
  bool success = report.outcome == Outcome::Success;
  bool failure = action.counts_against_key;

  std::unique_lock lock(impl_->mutex);
  auto& entry = impl_->keyEntry(report.key_id);
  entry.in_flight = std::max<std::int64_t>(entry.in_flight - 1, 0);

  // Daily quota, in the account's billing unit, per UTC day.
  if (key.daily_quota) {
    std::int64_t today = utcDay(wall_now);
    if (entry.quota_day != today) {
      entry.quota_day = today;
      entry.quota_used = 0;
    }
    if (key.billing == config::Billing::PerRequest) {
      if (success) ++entry.quota_used;
    } else {
      entry.quota_used += std::max<std::int64_t>(report.tokens, 0);
    }
  }

  if (report.headers) {
    if (auto until = upstreamBlockedUntil(*report.headers, now, wall_now)) {
      if (*until > now) entry.upstream_blocked_until = until;
      else entry.upstream_blocked_until.reset();  // the upstream says there is room
    }
  }

  if (!success && !failure) return;  // rate limits, a client leaving: neither counts nor resets

  auto& stats = entry.at(report.upstream_model);
  if (success) {
    stats.consecutive_failures = 0;
    ++stats.success_streak;
    stats.success_rate += sc::kSuccessEwmaAlpha * (1 - stats.success_rate);
    if (report.first_token) {
      double ms = static_cast<double>(report.first_token->count());
      stats.first_token_ms = stats.first_token_ms
                                 ? *stats.first_token_ms + sc::kLatencyEwmaAlpha * (ms - *stats.first_token_ms)
                                 : ms;
    }
  } else {
    ++stats.consecutive_failures;
    stats.success_streak = 0;
    stats.success_rate -= sc::kSuccessEwmaAlpha * stats.success_rate;
    // A quiet window forgives earlier cooldowns: the next one starts at 15 s again.
    if (stats.last_failure && now - *stats.last_failure > sc::kFailureWindow) stats.cooldown_repeats = 0;
    stats.last_failure = now;
    while (!stats.window.empty() && stats.window.front() + sc::kFailureWindow < now) stats.window.pop_front();
    stats.window.push_back(now);
    if (static_cast<int>(stats.window.size()) >= sc::kWindowFailures) {
      stats.cooldown_until = now + cooldownDuration(stats.cooldown_repeats);
      ++stats.cooldown_repeats;
      stats.window.clear();  // each cooldown takes fresh failures
    }
  }

  if (report.session.empty()) return;
  auto& session = impl_->touchSession(report.session, now);
  HashedKeyId key_id(report.key_id);
  auto failing = std::find_if(session.failing.begin(), session.failing.end(),
                              [&](auto const& f) { return f.key_id == report.key_id; });
  if (success) {
    session.last_key_id.assign(report.key_id);
    session.last_key_hash = key_id.hash;
    session.last_model.assign(report.upstream_model);
    if (failing != session.failing.end()) session.failing.erase(failing);
  } else if (failing != session.failing.end()) {
    ++failing->count;
  } else {
    session.failing.push_back(SessionFailure{std::string(report.key_id), key_id.hash, 1});
  }
}

std::size_t RouterState::cooldownsActive() const {
  MonoTime now = clock_.now();
  std::shared_lock lock(impl_->mutex);
  std::size_t count = 0;
  for (auto const& [id, entry] : impl_->keys) {
    for (auto const& stats : entry.models) count += stats.cooldown_until > now;
  }
  return count;
}

std::size_t RouterState::sessionCount() const {
  std::shared_lock lock(impl_->mutex);
  return impl_->sessions.size();
}

// --- Snapshot -----------------------------------------------------------------------------------

namespace {

/// What the planner reads about a key that has no entry: never used, so only a zero limit leaves
/// no room.
void neverUsed(config::ChannelKey const& key, CandidateState& out) {
  out = CandidateState{};
  auto const& limits = key.limits;
  bool zero = (limits.rpm && *limits.rpm <= 0) || (limits.tpm && *limits.tpm <= 0) ||
              (limits.concurrency && *limits.concurrency <= 0) || (key.daily_quota && *key.daily_quota <= 0);
  out.exhausted = zero;
  if (key.daily_quota && *key.daily_quota > 0) out.quota_remaining = 1.0;
}

/// What the planner reads about a key with an entry (`stats`: its statistics for the upstream
/// model, nullptr when it has none), as of `now`.
void candidateOf(config::ChannelKey const& key, KeyEntry const& entry, ModelStats const* stats, MonoTime now,
                 WallTime wall_now, std::int64_t today, CandidateState& out) {
  out = CandidateState{};
  auto const& limits = key.limits;

  // Factor 1: every exhausted dimension must clear; an unknown end (concurrency) leaves none.
  bool unknown_end = false;
  std::optional<MonoTime> until;
  auto exhaust = [&](std::optional<MonoTime> when) {
    out.exhausted = true;
    if (!when) unknown_end = true;
    else if (!until || *when > *until) until = when;
  };
  if (limits.concurrency && entry.in_flight >= *limits.concurrency) exhaust(std::nullopt);
  // Fewer starts kept than the RPM limit cannot fill the window: no need to search it then.
  bool window_has_room = limits.rpm && !limits.tpm && static_cast<std::int64_t>(entry.starts.size()) < *limits.rpm;
  if ((limits.rpm || limits.tpm) && !entry.starts.empty() && !window_has_room) {
    auto first = std::upper_bound(entry.starts.begin(), entry.starts.end(), now - sc::kRateWindow,
                                  [](MonoTime t, RateStart const& s) { return t < s.at; });
    auto in_window = static_cast<std::int64_t>(entry.starts.end() - first);
    if (limits.rpm && in_window >= *limits.rpm) {
      // Room again when enough of the window's starts have aged out.
      exhaust((first + (in_window - std::max<std::int64_t>(*limits.rpm, 1)))->at + sc::kRateWindow);
    }
    if (limits.tpm && in_window > 0 && entry.cumulative_tokens - first->tokens_before >= *limits.tpm) {
      exhaust(first->at + sc::kRateWindow);
    }
  } else if ((limits.rpm && *limits.rpm <= 0) || (limits.tpm && *limits.tpm <= 0)) {
    exhaust(std::nullopt);
  }
  if (entry.upstream_blocked_until && *entry.upstream_blocked_until > now) {
    exhaust(entry.upstream_blocked_until);
  }
  if (key.daily_quota) {
    std::int64_t used = entry.quota_day == today ? entry.quota_used : 0;
    std::int64_t quota = *key.daily_quota;
    out.quota_remaining = quota > 0 ? std::max(0.0, 1.0 - static_cast<double>(used) / quota) : 0.0;
    if (used >= quota) {
      // Until 00:00 UTC, measured on the wall clock and carried over to the monotonic one.
      auto midnight = WallTime(std::chrono::seconds((today + 1) * 86400));
      exhaust(now + std::chrono::duration_cast<MonoClock::duration>(midnight - wall_now));
    }
  }
  if (out.exhausted && !unknown_end) out.exhausted_until = until;

  if (stats) {
    out.consecutive_failures = stats->consecutive_failures;
    out.cooling = stats->cooldown_until > now;
    out.success_streak = stats->success_streak;
    out.success_rate = stats->success_rate;
    out.first_token_ms = stats->first_token_ms;
    out.latency_degraded = stats->latency_degraded;
  }
}

}  // namespace

int SessionState::failuresOn(std::string_view key_id) const { return failuresOn(HashedKeyId(key_id)); }

int SessionState::countFailures(HashedKeyId const& key) const {
  for (auto const& f : *failing) {
    if (f.hash == key.hash && f.key_id == key.id) return f.count;
  }
  return 0;
}

RouterState::Snapshot::Snapshot(RouterState const& state)
    : impl_(*state.impl_),
      now_(state.clock_.now()),
      wall_now_(state.clock_.wallNow()),
      today_(utcDay(wall_now_)) {
  impl_.mutex.lock_shared();
}

RouterState::Snapshot::Snapshot(RouterState const& state, Catalog const& catalog) : Snapshot(state) {
  binding_ = impl_.findBinding(catalog);
  if (binding_) return;
  // A catalog this state has not seen (a reload): bind it under the unique lock, once. Made
  // while the shared lock is still held, so that a failed allocation leaves the lock as the
  // destructor expects it.
  auto fresh = std::make_unique<Binding>(catalog);
  impl_.mutex.unlock_shared();
  {
    std::unique_lock lock(impl_.mutex);
    impl_.adopt(std::move(fresh));
  }
  impl_.mutex.lock_shared();
  binding_ = impl_.findBinding(catalog);  // nullptr only if other catalogs pushed it out meanwhile
}

RouterState::Snapshot::~Snapshot() { impl_.mutex.unlock_shared(); }

CandidateState RouterState::Snapshot::candidate(config::ChannelKey const& key,
                                                std::string_view upstream_model) const {
  return candidate(key, HashedKeyId(key.id), upstream_model);
}

CandidateState RouterState::Snapshot::candidate(config::ChannelKey const& key, HashedKeyId const& id,
                                                std::string_view upstream_model) const {
  PlanKey unslotted{&key, id, 0, 0, 0, 1.0};
  CandidateState out;
  statesOf(nullptr, &unslotted, 1, upstream_model, &out);
  return out;
}

CandidateState RouterState::Snapshot::candidate(PlanKey const& key, std::string_view upstream_model) const {
  CandidateState out;
  statesOf(binding_, &key, 1, upstream_model, &out);
  return out;
}

void RouterState::Snapshot::candidates(PlanKey const* keys, std::size_t n, std::string_view upstream_model,
                                       CandidateState* out) const {
  statesOf(binding_, keys, n, upstream_model, out);
}

void RouterState::Snapshot::statesOf(Binding const* binding, PlanKey const* keys, std::size_t n,
                                     std::string_view upstream_model, CandidateState* out) const {
  for (std::size_t i = 0; i < n; ++i) {
    PlanKey const& key = keys[i];
    // The entry through its slot, else by name (then the slot remembers it).
    KeyEntry const* entry = binding ? binding->keys[key.key_slot].load(std::memory_order_relaxed) : nullptr;
    if (!entry) {
      auto const* node = impl_.key_index.find(key.id);
      if (!node) {
        neverUsed(*key.key, out[i]);
        continue;
      }
      entry = &node->second;
      if (binding) binding->keys[key.key_slot].store(entry, std::memory_order_relaxed);
    }
    std::int32_t stats = binding ? binding->stats[key.stats_slot].load(std::memory_order_relaxed) : -1;
    if (stats < 0) {
      stats = entry->indexOf(upstream_model);
      if (stats >= 0 && binding) binding->stats[key.stats_slot].store(stats, std::memory_order_relaxed);
    }
    ModelStats const* found = stats >= 0 ? &entry->models[static_cast<std::size_t>(stats)] : nullptr;
    candidateOf(*key.key, *entry, found, now_, wall_now_, today_, out[i]);
  }
}

SessionState RouterState::Snapshot::session(std::string_view name) const {
  SessionState out;
  if (name.empty()) return out;
  auto it = impl_.sessions.find(name);
  if (it == impl_.sessions.end() || it->second.last_used + sc::kSessionIdleTtl < now_) return out;
  auto const& session = it->second;
  out.known = true;
  out.last_key_id = session.last_key_id;
  out.last_key_hash = session.last_key_hash;
  out.last_model = session.last_model;
  out.failing = &session.failing;
  for (auto const& f : session.failing) {
    auto [word, bit] = SessionState::filterBit(f.hash);
    out.failing_filter[word] |= bit;
  }
  return out;
}

}  // namespace llmux::routing
