#pragma once

// The router's learned state (implementation: router_state.cpp). The planner reads it through one
// snapshot per plan, the forwarder reports every attempt to it.

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "config/settings.h"
#include "core/clock.h"
#include "core/http_headers.h"
#include "routing/catalog.h"
#include "routing/key_id.h"
#include "routing/outcome.h"

namespace llmux::routing {

/// One finished upstream attempt, as the forwarder reports it.
struct AttemptReport {
  std::string_view channel;
  std::string_view key_id;          ///< ChannelKey::id
  std::string_view upstream_model;
  std::string_view session;         ///< "" when the request has no session
  Outcome outcome = Outcome::Success;
  std::optional<Millis> first_token;  ///< response head (non-stream) or first content (stream)
  std::int64_t tokens = 0;            ///< total tokens the answer used (0 when unknown)
  HeaderList const* headers = nullptr;  ///< the upstream's response head (rate-limit headers)
};

/// What the planner reads about one (key, upstream model), from a RouterState::Snapshot.
struct CandidateState {
  /// Factor 1: no RPM, TPM, concurrency or daily quota left (own limits or the upstream's
  /// rate-limit headers); `exhausted_until` when it is known to come back.
  bool exhausted = false;
  std::optional<MonoTime> exhausted_until;
  int consecutive_failures = 0;       ///< factor 2
  bool cooling = false;               ///< factor 3
  std::optional<double> quota_remaining;  ///< factor 6: fraction of the daily quota left
  int success_streak = 0;             ///< factor 7
  double success_rate = 1;            ///< factor 8 (optimistic before any attempt)
  std::optional<double> first_token_ms;
  bool latency_degraded = false;      ///< factor 9 (latency learning, docs/racing.md)
};

/// A key that failed a session, with how often in a row (anti-affinity).
struct SessionFailure {
  std::string key_id;
  std::size_t hash = 0;  ///< HashedKeyId's hash of key_id
  int count = 0;
};

/// What the planner reads about a request's session.
struct SessionState {
  bool known = false;
  std::string_view last_key_id;    ///< the key that last served the session successfully
  std::string_view last_model;     ///< the upstream model it used
  /// The session's consecutive failures on `key_id` (anti-affinity).
  int failuresOn(std::string_view key_id) const;
  /// The same for a hashed id; inline, as most keys never failed the session and the filter
  /// answers for them.
  int failuresOn(HashedKeyId const& key) const {
    if (!failing) return 0;
    auto [word, bit] = filterBit(key.hash);
    return failing_filter[word] & bit ? countFailures(key) : 0;
  }
  /// Whether `key` last served the session.
  bool isLastKey(HashedKeyId const& key) const {
    return known && key.hash == last_key_hash && key.id == last_key_id;
  }

  std::size_t last_key_hash = 0;
  std::vector<SessionFailure> const* failing = nullptr;
  /// A 256-bit filter of the failing keys' hashes: most keys never failed the session, and
  /// this tells them apart without searching `failing`.
  std::array<std::uint64_t, 4> failing_filter{};

  /// The word and the bit of a key hash in `failing_filter`.
  static std::pair<std::size_t, std::uint64_t> filterBit(std::size_t hash) {
    return {(hash >> 6) & 3, std::uint64_t{1} << (hash & 63)};
  }
  /// Searches `failing` for the key (the filter said it may be there).
  int countFailures(HashedKeyId const& key) const;
};

/// The router's learned state, shared by all workers; thread-safe. Keyed by names that survive
/// configuration reloads: ChannelKey::id for headroom and quota, (ChannelKey::id, upstream model)
/// for the failure and performance statistics, the session key for affinity. Sessions are
/// bounded (scoring_constants::kMaxSessions, least recently used first out, and an idle TTL);
/// keys removed from the configuration leave a small entry behind (bounded by the keys ever
/// configured).
class RouterState {
 public:
  explicit RouterState(TimeSource const& clock);
  ~RouterState();
  RouterState(RouterState const&) = delete;
  RouterState& operator=(RouterState const&) = delete;

  /// An attempt on `key` begins: concurrency +1, and the RPM/TPM windows of the key's own limits
  /// (TPM counts the estimate: the real use is known only at the end).
  void attemptStarted(std::string_view key_id, config::ChannelKey const& key,
                      std::int64_t estimated_tokens);
  /// The attempt ended: concurrency −1, the statistics, session affinity, daily quota and the
  /// upstream's rate-limit headers. Only outcomes that count against the key are failures;
  /// Success resets the consecutive failures; RateLimited and ClientGone neither count nor reset.
  void attemptFinished(AttemptReport const& report, config::ChannelKey const& key);
  /// Latency learning's verdict on a (key, upstream model): degraded costs it factor 9.
  void setLatencyDegraded(std::string_view key_id, std::string_view upstream_model, bool degraded);

  /// (key, model) pairs on a window cooldown right now (metrics).
  std::size_t cooldownsActive() const;
  /// Sessions remembered (metrics, tests).
  std::size_t sessionCount() const;

  TimeSource const& clock() const { return clock_; }

  struct Impl;
  struct Binding;

  /// A consistent view for one plan: one shared lock for all the planner's reads. Keep it short
  /// (it holds attempt reports back).
  class Snapshot {
   public:
    explicit Snapshot(RouterState const& state);
    /// The same, with the catalog's key slots bound to the state's entries: `candidate(PlanKey)`
    /// then finds an entry by its slot, with no hash or string compare, once the slot has been
    /// resolved (on its first lookup after the entry exists; the state keeps the bindings of
    /// the last few catalogs, so a reload re-resolves once). Binding a catalog the state has not
    /// seen takes the unique lock for a moment: not while this thread holds another snapshot.
    Snapshot(RouterState const& state, Catalog const& catalog);
    ~Snapshot();
    Snapshot(Snapshot const&) = delete;
    Snapshot& operator=(Snapshot const&) = delete;

    /// The state of `key` for `upstream_model`, as of the snapshot.
    CandidateState candidate(config::ChannelKey const& key, std::string_view upstream_model) const;
    /// The same with the key's id hashed already (`id` is HashedKeyId(key.id)).
    CandidateState candidate(config::ChannelKey const& key, HashedKeyId const& id,
                             std::string_view upstream_model) const;
    /// The same for a key of the catalog's plan tables (`upstream_model` is its PlanChannel's
    /// upstream name). Through the slots when the snapshot was made with that catalog.
    CandidateState candidate(PlanKey const& key, std::string_view upstream_model) const;
    /// The states of `n` keys of one channel for its upstream model, `out[i]` for `keys[i]`: the
    /// planner's batch (one call per channel, not one per key).
    void candidates(PlanKey const* keys, std::size_t n, std::string_view upstream_model, CandidateState* out) const;
    /// The session's affinity state (`known` false for "" or a forgotten session).
    SessionState session(std::string_view session) const;
    MonoTime now() const { return now_; }

   private:
    /// The states of `keys` (through `binding`'s slots, or by name when it is nullptr).
    void statesOf(Binding const* binding, PlanKey const* keys, std::size_t n, std::string_view upstream_model,
                  CandidateState* out) const;

    Impl const& impl_;
    Binding const* binding_ = nullptr;  ///< the catalog's slots (nullptr: lookups by name)
    MonoTime now_;
    WallTime wall_now_;
    std::int64_t today_;  ///< UTC day number, for the daily quota
  };

 private:
  TimeSource const& clock_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace llmux::routing
