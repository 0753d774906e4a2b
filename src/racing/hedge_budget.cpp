#include "racing/hedge_budget.h"

namespace llmux::racing {
namespace {

std::int64_t secondOf(MonoTime now) {
  return std::chrono::duration_cast<std::chrono::seconds>(now.time_since_epoch()).count();
}

}  // namespace

HedgeBudget::Slot& HedgeBudget::slotFor(std::int64_t second) {
  Slot& slot = slots_[static_cast<std::size_t>(((second % 60) + 60) % 60)];
  if (slot.second != second) slot = Slot{second, {}};  // a minute old: reused
  return slot;
}

HedgeBudget::Usage HedgeBudget::sumLocked(std::int64_t second) const {
  Usage sum;
  for (auto const& slot : slots_) {
    if (slot.second > second - 60 && slot.second <= second) {
      sum.requests += slot.counts.requests;
      sum.shadows += slot.counts.shadows;
    }
  }
  return sum;
}

void HedgeBudget::noteRequest(MonoTime now) {
  std::lock_guard lock(mutex_);
  ++slotFor(secondOf(now)).counts.requests;
}

bool HedgeBudget::tryTakeShadow(MonoTime now) {
  std::lock_guard lock(mutex_);
  std::int64_t const second = secondOf(now);
  Usage const used = sumLocked(second);
  if (static_cast<double>(used.shadows + 1) > share_ * static_cast<double>(used.requests)) {
    return false;
  }
  ++slotFor(second).counts.shadows;
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
