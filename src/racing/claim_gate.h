#pragma once

// The one decision of a race: which branch answers the client. The first branch to claim wins;
// every later claim fails, whatever thread it comes from.

#include <atomic>
#include <optional>

namespace llmux::racing {

class ClaimGate {
 public:
  /// True for the first claim only. `branch` >= 0 (0 is the primary, shadows 1...).
  bool claim(int branch) {
    int expected = kOpen;
    return winner_.compare_exchange_strong(expected, branch, std::memory_order_acq_rel);
  }
  std::optional<int> winner() const {
    int winner = winner_.load(std::memory_order_acquire);
    if (winner == kOpen) return std::nullopt;
    return winner;
  }
  bool claimed() const { return winner_.load(std::memory_order_acquire) != kOpen; }

 private:
  static constexpr int kOpen = -1;
  std::atomic<int> winner_{kOpen};
};

}  // namespace llmux::racing
