// The clocks of one attempt: the reasoning-aware first-token deadline and the request's retry
// deadline before the commit point, with the time passed in.
#include "proxy/attempt_clock.h"

#include <gtest/gtest.h>

namespace llmux::proxy::forwarding {
namespace {

using Mode = protocol::ReasoningAsk::Mode;

protocol::ReasoningAsk on(std::string effort, std::optional<std::int64_t> budget = std::nullopt) {
  return {Mode::On, std::move(effort), budget};
}

TEST(ReasoningTier, EffortsAndBudgetsMapToTheirTier) {
  EXPECT_EQ(reasoningTierOf({}), ReasoningTier::None);
  EXPECT_EQ(reasoningTierOf({Mode::Off, "", {}}), ReasoningTier::None);
  EXPECT_EQ(reasoningTierOf({Mode::Unstated, "high", {}}), ReasoningTier::None);
  EXPECT_EQ(reasoningTierOf(on("minimal")), ReasoningTier::Low);
  EXPECT_EQ(reasoningTierOf(on("low")), ReasoningTier::Low);
  EXPECT_EQ(reasoningTierOf(on("medium")), ReasoningTier::Medium);
  EXPECT_EQ(reasoningTierOf(on("")), ReasoningTier::Medium) << "thinking on, no effort stated";
  EXPECT_EQ(reasoningTierOf(on("bespoke")), ReasoningTier::Medium);
  for (char const* effort : {"high", "xhigh", "max"}) {
    EXPECT_EQ(reasoningTierOf(on(effort)), ReasoningTier::High) << effort;
  }
  // Budgets through translation's table: >= 4096 high, >= 2048 medium, below low.
  EXPECT_EQ(reasoningTierOf(on("", 512)), ReasoningTier::Low);
  EXPECT_EQ(reasoningTierOf(on("", 1024)), ReasoningTier::Low);
  EXPECT_EQ(reasoningTierOf(on("", 2048)), ReasoningTier::Medium);
  EXPECT_EQ(reasoningTierOf(on("", 4096)), ReasoningTier::High);
  EXPECT_EQ(reasoningTierOf(on("", 32000)), ReasoningTier::High);
  EXPECT_EQ(reasoningTierOf(on("low", 32000)), ReasoningTier::Low) << "a named effort wins";
}

TEST(FirstTokenTimeout, ByTierNeverBelowTheChannelsNorAboveTotal) {
  config::Timeouts t;  // first token 15 s, reasoning 16 / 24 / 30 s, total 600 s
  EXPECT_EQ(firstTokenTimeout(t, ReasoningTier::None), Millis(15'000));
  EXPECT_EQ(firstTokenTimeout(t, ReasoningTier::Low), Millis(16'000));
  EXPECT_EQ(firstTokenTimeout(t, ReasoningTier::Medium), Millis(24'000));
  EXPECT_EQ(firstTokenTimeout(t, ReasoningTier::High), Millis(30'000));
  t.first_token = Millis(35'000);
  EXPECT_EQ(firstTokenTimeout(t, ReasoningTier::Low), Millis(35'000))
      << "the channel's own is longer";
  t.first_token = Millis(15'000);
  t.total = Millis(20'000);
  EXPECT_EQ(firstTokenTimeout(t, ReasoningTier::High), Millis(20'000)) << "capped by total";
  EXPECT_EQ(firstTokenTimeout(t, ReasoningTier::Low), Millis(16'000));
}

TEST(AttemptClock, AReasoningStreamWaitsLongerForItsFirstToken) {
  config::Timeouts t;
  MonoTime now{};
  MonoTime no_deadline = now + std::chrono::hours(1);
  auto plain = AttemptClock::start(now, t, true, ReasoningTier::None, no_deadline);
  auto thinking = AttemptClock::start(now, t, true, ReasoningTier::High, no_deadline);
  auto whole = AttemptClock::start(now, t, false, ReasoningTier::High, no_deadline);
  EXPECT_EQ(plain.first_token, now + Millis(15'000));
  EXPECT_EQ(thinking.first_token, now + Millis(30'000));
  EXPECT_EQ(whole.first_token, MonoTime::max()) << "a whole answer has no first-token clock";
  // Silent thinking at 20 s: the plain stream's wait is over, the reasoning one's is not.
  MonoTime later = now + Millis(20'000);
  EXPECT_EQ(plain.nextRead(now + Millis(10'000), ReadPhase::AwaitingContent), now + Millis(15'000));
  EXPECT_EQ(thinking.nextRead(later, ReadPhase::AwaitingContent), now + Millis(30'000));
  EXPECT_EQ(thinking.headBy(now, t.first_byte), now + Millis(30'000));
  EXPECT_EQ(thinking.timeoutReason(now + Millis(30'000)), "timeout_first_token");
}

TEST(AttemptClock, TheRetryDeadlineBoundsEveryWaitBeforeTheCommitPoint) {
  config::Timeouts t;  // connect 5 s, first byte 120 s, first token 15 s, idle 120 s, total 600 s
  MonoTime now{};
  MonoTime retry_deadline = now + Millis(500);
  auto clock = AttemptClock::start(now, t, true, ReasoningTier::None, retry_deadline);
  EXPECT_EQ(clock.connectBy(now, t.connect), retry_deadline);
  EXPECT_EQ(clock.headBy(now, t.first_byte), retry_deadline);
  EXPECT_EQ(clock.nextRead(now, ReadPhase::AwaitingContent), retry_deadline);
  EXPECT_EQ(clock.nextRead(now, ReadPhase::BeforeCommit), retry_deadline);
  EXPECT_EQ(clock.timeoutReason(retry_deadline), "deadline");
  // After the commit point the answer is the client's: idle and total only.
  EXPECT_EQ(clock.nextRead(now + Millis(400), ReadPhase::Committed), now + Millis(120'400));
  EXPECT_EQ(clock.nextRead(now + Millis(590'000), ReadPhase::Committed), now + Millis(600'000));

  // A deadline further away than the attempt's own clocks changes nothing.
  auto roomy = AttemptClock::start(now, t, true, ReasoningTier::None, now + Millis(300'000));
  EXPECT_EQ(roomy.connectBy(now, t.connect), now + Millis(5'000));
  EXPECT_EQ(roomy.headBy(now, t.first_byte), now + Millis(15'000));
  EXPECT_EQ(roomy.timeoutReason(now + Millis(15'000)), "timeout_first_token");
  auto whole = AttemptClock::start(now, t, false, ReasoningTier::None, now + Millis(300'000));
  EXPECT_EQ(whole.headBy(now, t.first_byte), now + Millis(120'000));
  EXPECT_EQ(whole.timeoutReason(now + Millis(120'000)), "timeout_first_byte");
  EXPECT_EQ(whole.timeoutReason(now + Millis(300'000)), "deadline");
}

}  // namespace
}  // namespace llmux::proxy::forwarding
