#pragma once

// Anti-amplification: how many shadows may be in flight at once (process-wide), and what share of
// the armed requests of the last minute may have sent one. Neither ever makes a request wait: a
// shadow that does not fit is not sent (and counted by the caller).

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <optional>
#include <utility>

#include "core/clock.h"

namespace llmux::racing {

/// Shadows sent <= share x armed requests, over a sliding minute (60 one-second slots).
class HedgeBudget {
 public:
  explicit HedgeBudget(double share) : share_(share) {}

  /// An armed request (the denominator): note it before asking for its shadow. Lock-free but
  /// once a second (every armed request passes here; shadows are rare and take the lock).
  void noteRequest(MonoTime now);
  /// Takes one shadow from the budget when it fits: sent + 1 <= share x requests in the minute.
  bool tryTakeShadow(MonoTime now);

  struct Usage {
    std::uint64_t requests = 0;
    std::uint64_t shadows = 0;
  };
  Usage usage(MonoTime now);
  void setShare(double share);

 private:
  /// One second's counts. `second` and `requests` are written under the mutex when the slot is
  /// reused, and `requests` is incremented without it while the slot is the current second's.
  struct Slot {
    std::atomic<std::int64_t> second{-1};
    std::atomic<std::uint64_t> requests{0};
    std::uint64_t shadows = 0;  ///< under the mutex
  };
  /// The slot of `second`, reused when it held one a minute old. Under the mutex.
  Slot& slotFor(std::int64_t second);
  Usage sumLocked(std::int64_t second) const;

  std::mutex mutex_;
  double share_;
  std::array<Slot, 60> slots_{};
};

/// At most `max` shadows in flight in the process; try-acquire only.
class ShadowSlots {
 public:
  explicit ShadowSlots(int max) : max_(max) {}

  /// Held by a running shadow; gives its slot back when destroyed.
  class Slot {
   public:
    Slot(Slot&& other) noexcept : owner_(std::exchange(other.owner_, nullptr)) {}
    Slot& operator=(Slot&&) = delete;
    Slot(Slot const&) = delete;
    ~Slot() {
      if (owner_) owner_->in_flight_.fetch_sub(1, std::memory_order_acq_rel);
    }

   private:
    friend class ShadowSlots;
    explicit Slot(ShadowSlots* owner) : owner_(owner) {}
    ShadowSlots* owner_;
  };

  std::optional<Slot> tryAcquire();
  int inFlight() const { return in_flight_.load(std::memory_order_acquire); }
  void setMax(int max) { max_.store(max, std::memory_order_release); }

 private:
  std::atomic<int> max_;
  std::atomic<int> in_flight_{0};
};

}  // namespace llmux::racing
