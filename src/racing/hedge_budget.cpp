#include "racing/hedge_budget.h"

namespace llmux::racing {
namespace {

std::int64_t secondOf(MonoTime now) {
  return std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
}

std::size_t slotIndex(std::int64_t second) { return static_cast<std::size_t>(((second % 60) + 60) % 60); }

}  // namespace

HedgeBudget::Slot& HedgeBudget::slotFor(std::int64_t second) {
  Slot& slot = slots_[slotIndex(second)];
  if (slot.second.load(std::memory_order_relaxed) != second) {  // a minute old: reused
    slot.requests.store(0, std::memory_order_relaxed);
    slot.shadows = 0;
    // Released after the reset: a lock-free noteRequest that sees this second counts on zero.
    slot.second.store(second, std::memory_order_release);
  }
  return slot;
}

HedgeBudget::Usage HedgeBudget::sumLocked(std::int64_t second) const {
  Usage sum;
  for (auto const& slot : slots_) {
    std::int64_t const at = slot.second.load(std::memory_order_acquire);
    if (at > second - 60 && at <= second) {
      sum.requests += slot.requests.load(std::memory_order_relaxed);
      sum.shadows += slot.shadows;
    }
  }
  return sum;
}

void HedgeBudget::noteRequest(MonoTime now) {
  std::int64_t const second = secondOf(now);
  Slot& slot = slots_[slotIndex(second)];
  if (slot.second.load(std::memory_order_acquire) != second) {
    std::lock_guard lock(mutex_);
    slotFor(second);
  }
  slot.requests.fetch_add(1, std::memory_order_relaxed);
}

bool HedgeBudget::tryTakeShadow(MonoTime now) {
  std::lock_guard lock(mutex_);
  std::int64_t const second = secondOf(now);
  Usage const used = sumLocked(second);
  if (static_cast<double>(used.shadows + 1) > share_ * static_cast<double>(used.requests)) {
    return false;
  }
  ++slotFor(second).shadows;
  return true;
}

HedgeBudget::Usage HedgeBudget::usage(MonoTime now) {
  std::lock_guard lock(mutex_);
  return sumLocked(secondOf(now));
}

void HedgeBudget::setShare(double share) {
  std::lock_guard lock(mutex_);
  share_ = share;
}

std::optional<ShadowSlots::Slot> ShadowSlots::tryAcquire() {
  int current = in_flight_.load(std::memory_order_acquire);
  do {
    if (current >= max_.load(std::memory_order_acquire)) return std::nullopt;
  } while (!in_flight_.compare_exchange_weak(current, current + 1, std::memory_order_acq_rel));
  return Slot(this);
}

}  // namespace llmux::racing
