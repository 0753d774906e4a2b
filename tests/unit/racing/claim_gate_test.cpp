#include "racing/claim_gate.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

namespace llmux::racing {
namespace {

TEST(ClaimGate, TheFirstClaimWinsAndLaterOnesFail) {
  ClaimGate gate;
  EXPECT_FALSE(gate.claimed());
  EXPECT_FALSE(gate.winner());
  EXPECT_TRUE(gate.claim(2));
  EXPECT_FALSE(gate.claim(0));
  EXPECT_FALSE(gate.claim(2));
  EXPECT_EQ(gate.winner(), 2);
}

TEST(ClaimGate, ThirtyTwoConcurrentClaimersMakeOneWinner) {
  for (int round = 0; round < 30; ++round) {
    ClaimGate gate;
    std::atomic<bool> go{false};
    std::atomic<int> winners{0};
    std::vector<int> won(32, 0);
    std::vector<std::thread> threads;
    for (int branch = 0; branch < 32; ++branch) {
      threads.emplace_back([&, branch] {
        while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
        if (gate.claim(branch)) {
          winners.fetch_add(1);
          won[static_cast<std::size_t>(branch)] = 1;
        }
      });
    }
    go.store(true, std::memory_order_release);
    for (auto& thread : threads) thread.join();
    ASSERT_EQ(winners.load(), 1) << "round " << round;
    ASSERT_TRUE(gate.winner());
    EXPECT_EQ(won[static_cast<std::size_t>(*gate.winner())], 1);
  }
}

}  // namespace
}  // namespace llmux::racing
