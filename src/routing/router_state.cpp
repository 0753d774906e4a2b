#include "routing/router_state.h"

#include <algorithm>
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

  ModelStats const* find(std::string_view model) const {
    for (auto const& m : models) {
      if (m.model == model) return &m;
    }
    return nullptr;
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

struct RouterState::Impl {
  mutable std::shared_mutex mutex;
  StringMap<KeyEntry> keys;
  KeyIndex key_index;  ///< `keys` for the planner

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

/// The filter bit of a key hash in SessionState::failing_filter.
std::pair<std::size_t, std::uint64_t> filterBit(std::size_t hash) {
  return {(hash >> 6) & 3, std::uint64_t{1} << (hash & 63)};
}

}  // namespace

int SessionState::failuresOn(std::string_view key_id) const { return failuresOn(HashedKeyId(key_id)); }

int SessionState::failuresOn(HashedKeyId const& key) const {
  if (!failing) return 0;
  auto [word, bit] = filterBit(key.hash);
  if (!(failing_filter[word] & bit)) return 0;
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

RouterState::Snapshot::~Snapshot() { impl_.mutex.unlock_shared(); }

CandidateState RouterState::Snapshot::candidate(config::ChannelKey const& key,
                                                std::string_view upstream_model) const {
  return candidate(key, HashedKeyId(key.id), upstream_model);
}

CandidateState RouterState::Snapshot::candidate(config::ChannelKey const& key, HashedKeyId const& id,
                                                std::string_view upstream_model) const {
  CandidateState out;
  auto const& limits = key.limits;
  auto const* node = impl_.key_index.find(id);
  if (!node) {
    // Never used: only a zero limit leaves no room.
    bool zero = (limits.rpm && *limits.rpm <= 0) || (limits.tpm && *limits.tpm <= 0) ||
                (limits.concurrency && *limits.concurrency <= 0) ||
                (key.daily_quota && *key.daily_quota <= 0);
    out.exhausted = zero;
    if (key.daily_quota && *key.daily_quota > 0) out.quota_remaining = 1.0;
    return out;
  }
  auto const& entry = node->second;

  // Factor 1: every exhausted dimension must clear; an unknown end (concurrency) leaves none.
  bool unknown_end = false;
  std::optional<MonoTime> until;
  auto exhaust = [&](std::optional<MonoTime> when) {
    out.exhausted = true;
    if (!when) unknown_end = true;
    else if (!until || *when > *until) until = when;
  };
  if (limits.concurrency && entry.in_flight >= *limits.concurrency) exhaust(std::nullopt);
  if ((limits.rpm || limits.tpm) && !entry.starts.empty()) {
    auto first = std::upper_bound(entry.starts.begin(), entry.starts.end(), now_ - sc::kRateWindow,
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
  if (entry.upstream_blocked_until && *entry.upstream_blocked_until > now_) {
    exhaust(entry.upstream_blocked_until);
  }
  if (key.daily_quota) {
    std::int64_t used = entry.quota_day == today_ ? entry.quota_used : 0;
    std::int64_t quota = *key.daily_quota;
    out.quota_remaining = quota > 0 ? std::max(0.0, 1.0 - static_cast<double>(used) / quota) : 0.0;
    if (used >= quota) {
      // Until 00:00 UTC, measured on the wall clock and carried over to the monotonic one.
      auto midnight = WallTime(std::chrono::seconds((today_ + 1) * 86400));
      exhaust(now_ + std::chrono::duration_cast<MonoClock::duration>(midnight - wall_now_));
    }
  }
  if (out.exhausted && !unknown_end) out.exhausted_until = until;

  if (auto const* stats = entry.find(upstream_model)) {
    out.consecutive_failures = stats->consecutive_failures;
    out.cooling = stats->cooldown_until > now_;
    out.success_streak = stats->success_streak;
    out.success_rate = stats->success_rate;
    out.first_token_ms = stats->first_token_ms;
  }
  return out;
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
    auto [word, bit] = filterBit(f.hash);
    out.failing_filter[word] |= bit;
  }
  return out;
}

}  // namespace llmux::routing
