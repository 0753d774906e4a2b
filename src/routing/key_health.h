#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.h"

namespace llmux::routing {

/// Why a key is temporarily out of the rotation.
enum class KeyPause {
  RateLimited,     ///< the upstream answered 429 for one model: wait for its retry-after
  QuotaExhausted,  ///< a 429 whose body says the account's quota or credit is gone
  Rejected,        ///< the upstream answered 401/403: the key is benched
};

/// "rate_limited", "quota_exhausted", "rejected".
std::string_view keyPauseName(KeyPause why);

/// One pause in force (the admin API's view).
struct PauseView {
  std::string key_id;
  std::string model;  ///< the upstream model; "" for a key-wide pause
  KeyPause why = KeyPause::RateLimited;
  Millis remaining{0};
};

/// Runtime health of upstream keys. A pause covers either one (key, upstream model) pair — a 429,
/// since providers rate-limit per model — or the whole key (a rejected key, an exhausted
/// account). Keyed by `ChannelKey::id` and the upstream model name, so it survives configuration
/// reloads for keys and models that still exist. Thread-safe; shared by all workers.
/// `pausedUntil` is cheap when nothing is paused (one atomic load, no lock): the planner asks it
/// for every candidate; when something is, a lookup allocates nothing.
class KeyHealth {
 public:
  explicit KeyHealth(TimeSource const& clock) : clock_(clock) {}

  /// Takes the whole key out of rotation, every model, until `now + duration` (a longer pause is
  /// never shortened).
  void pauseKey(std::string_view key_id, KeyPause why, Millis duration);
  /// Takes the key out of rotation for `upstream_model` only (its other models stay usable).
  void pauseModel(std::string_view key_id, std::string_view upstream_model, KeyPause why,
                  Millis duration);
  /// When the key may be used for `upstream_model` again (the later of its key-wide pause and
  /// the pair's own); nullopt when it is usable now.
  std::optional<MonoTime> pausedUntil(std::string_view key_id,
                                      std::string_view upstream_model) const;
  /// Whether any key may be paused (one atomic load): when not, no key needs asking.
  bool anyPaused() const { return count_.load(std::memory_order_acquire) != 0; }
  /// Puts the key back at once, its key-wide pause and every model's.
  void clear(std::string_view key_id);

  /// The pauses in force now, by key id then model.
  std::vector<PauseView> list() const;

  TimeSource const& clock() const { return clock_; }

 private:
  struct Pause {
    MonoTime until;
    KeyPause why;
  };
  /// (key id, upstream model); the model is "" for a key-wide pause (no model has that name).
  struct Target {
    std::string key_id;
    std::string model;
  };
  using TargetView = std::pair<std::string_view, std::string_view>;
  struct TargetHash {
    using is_transparent = void;
    std::size_t operator()(TargetView t) const {
      std::size_t h = std::hash<std::string_view>{}(t.first);
      std::size_t m = std::hash<std::string_view>{}(t.second);
      return h ^ (m + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));  // boost::hash_combine's mix
    }
    std::size_t operator()(Target const& t) const { return (*this)(TargetView{t.key_id, t.model}); }
  };
  struct TargetEqual {
    using is_transparent = void;
    static TargetView view(Target const& t) { return {t.key_id, t.model}; }
    static TargetView view(TargetView t) { return t; }
    template <class A, class B>
    bool operator()(A const& a, B const& b) const { return view(a) == view(b); }
  };

  void pause(std::string_view key_id, std::string_view model, KeyPause why, Millis duration);
  /// The pause of one target still running at `now`, if any (mutex_ held).
  std::optional<MonoTime> runningLocked(TargetView target, MonoTime now) const;
  /// Publishes the table's size for the lock-free fast path (mutex_ held).
  void publishCountLocked() { count_.store(paused_.size(), std::memory_order_release); }

  TimeSource const& clock_;
  mutable std::mutex mutex_;
  std::unordered_map<Target, Pause, TargetHash, TargetEqual> paused_;
  std::atomic<std::size_t> count_{0};  ///< paused_.size(), read without the lock
};

}  // namespace llmux::routing
