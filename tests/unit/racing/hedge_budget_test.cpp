#include "racing/hedge_budget.h"

#include <gtest/gtest.h>

#include <thread>
#include <vector>

namespace llmux::racing {
namespace {

using namespace std::chrono_literals;

MonoTime const kT0{std::chrono::hours(100)};

TEST(HedgeBudget, ShadowsStayWithinTheirShareOfTheMinutesRequests) {
  HedgeBudget budget(0.10);
  // Nine requests: a shadow would be 1 of 9, over 10 %.
  for (int i = 0; i < 9; ++i) budget.noteRequest(kT0);
  EXPECT_FALSE(budget.tryTakeShadow(kT0));
  budget.noteRequest(kT0);
  EXPECT_TRUE(budget.tryTakeShadow(kT0));   // 1 of 10
  EXPECT_FALSE(budget.tryTakeShadow(kT0));  // 2 of 10 would not fit
  for (int i = 0; i < 10; ++i) budget.noteRequest(kT0 + 10s);
  EXPECT_TRUE(budget.tryTakeShadow(kT0 + 10s));  // 2 of 20
  auto used = budget.usage(kT0 + 10s);
  EXPECT_EQ(used.requests, 20u);
  EXPECT_EQ(used.shadows, 2u);
}

TEST(HedgeBudget, TheWindowSlidesOverAMinute) {
  HedgeBudget budget(0.10);
  for (int i = 0; i < 10; ++i) budget.noteRequest(kT0);
  EXPECT_TRUE(budget.tryTakeShadow(kT0));
  // 59 s later the first second still counts: the one shadow used it up.
  for (int i = 0; i < 5; ++i) budget.noteRequest(kT0 + 59s);
  EXPECT_FALSE(budget.tryTakeShadow(kT0 + 59s));
  // 60 s later it has left the window: 5 requests, no shadow fits.
  EXPECT_EQ(budget.usage(kT0 + 60s).requests, 5u);
  EXPECT_EQ(budget.usage(kT0 + 60s).shadows, 0u);
  for (int i = 0; i < 5; ++i) budget.noteRequest(kT0 + 60s);
  EXPECT_TRUE(budget.tryTakeShadow(kT0 + 60s));  // 1 of 10
  // Two minutes on, the slots are reused from scratch.
  EXPECT_EQ(budget.usage(kT0 + 180s).requests, 0u);
}

TEST(HedgeBudget, NoShareNoShadows) {
  HedgeBudget budget(0.0);
  for (int i = 0; i < 1000; ++i) budget.noteRequest(kT0);
  EXPECT_FALSE(budget.tryTakeShadow(kT0));
  budget.setShare(1.0);
  EXPECT_TRUE(budget.tryTakeShadow(kT0));
}

TEST(HedgeBudget, RequestsNotedConcurrentlyAreAllCounted) {
  // Armed requests are noted without the lock while their second's slot is current: none is
  // lost, across a slot's turn to a new second too (the minute's first second is reused).
  HedgeBudget budget(0.10);
  budget.noteRequest(kT0 - 60s);  // the slot kT0 will reuse holds a minute-old count
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&budget, t] {
      for (int i = 0; i < 20000; ++i) budget.noteRequest(kT0 + (t % 2 == 0 ? 0s : 1s));
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(budget.usage(kT0 + 1s).requests, 80000u);
}

TEST(ShadowSlots, TheCapIsNeverExceededAndSlotsComeBack) {
  ShadowSlots slots(2);
  auto first = slots.tryAcquire();
  auto second = slots.tryAcquire();
  ASSERT_TRUE(first);
  ASSERT_TRUE(second);
  EXPECT_FALSE(slots.tryAcquire());
  EXPECT_EQ(slots.inFlight(), 2);
  first.reset();
  EXPECT_EQ(slots.inFlight(), 1);
  auto third = slots.tryAcquire();
  EXPECT_TRUE(third);
  std::vector<ShadowSlots::Slot> moved;
  moved.push_back(std::move(*third));
  third.reset();
  EXPECT_EQ(slots.inFlight(), 2);  // the moved slot still holds its place
  moved.clear();
  second.reset();
  EXPECT_EQ(slots.inFlight(), 0);
  slots.setMax(0);
  EXPECT_FALSE(slots.tryAcquire());
}

}  // namespace
}  // namespace llmux::racing
