#pragma once

#include <atomic>
#include <cstddef>

namespace llmux::http {

/// The process-wide budget of request body bytes held in memory (bodies being read, and bodies
/// of requests in flight, which stay for replay on failover). Shared by every worker; a body that
/// does not fit gets a 503 instead of the process running out of memory. It counts body bytes
/// (and the room of the read in progress); a growing string's spare capacity is not counted, so
/// memory stays within about twice the budget.
class BodyBudget {
 public:
  explicit BodyBudget(std::size_t capacity) : capacity_(capacity) {}

  /// Takes `bytes` if they fit; false (nothing taken) otherwise.
  bool tryCharge(std::size_t bytes) {
    std::size_t used = used_.load(std::memory_order_relaxed);
    do {
      if (bytes > capacity_ - used) return false;
    } while (!used_.compare_exchange_weak(used, used + bytes, std::memory_order_relaxed));
    return true;
  }
  void release(std::size_t bytes) { used_.fetch_sub(bytes, std::memory_order_relaxed); }

  std::size_t used() const { return used_.load(std::memory_order_relaxed); }
  std::size_t capacity() const { return capacity_; }

 private:
  std::size_t const capacity_;
  std::atomic<std::size_t> used_{0};
};

/// What one request holds of a BodyBudget, given back when it goes out of scope (every path,
/// exceptions included).
class BodyCharge {
 public:
  explicit BodyCharge(BodyBudget& budget) : budget_(budget) {}
  ~BodyCharge() { budget_.release(held_); }
  BodyCharge(BodyCharge const&) = delete;
  BodyCharge& operator=(BodyCharge const&) = delete;

  /// Grows the charge to `total` bytes; false when the budget cannot give that much.
  bool growTo(std::size_t total) {
    if (total <= held_) return true;
    if (!budget_.tryCharge(total - held_)) return false;
    held_ = total;
    return true;
  }

 private:
  BodyBudget& budget_;
  std::size_t held_ = 0;
};

}  // namespace llmux::http
