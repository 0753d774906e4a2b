#include "routing/breakers.h"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace llmux::routing {
namespace {

using namespace std::chrono_literals;
using Signal = AttemptSignal;

// A whole second, so the storm window's 1 s slots start exactly at kT0.
MonoTime const kT0{std::chrono::seconds(1000)};

MonoTime at(Millis since_start) {
  return kT0 + since_start;
}

struct BreakersTest : ::testing::Test {
  BreakerBoard board;
  BreakerSettings settings;  // the defaults: 5 failures, 30 s open, 60 s probe timeout, 10 s storm

  BreakerDecision admit(MonoTime now, std::string_view channel = "openai",
                        std::string_view model = "gpt-4o") {
    return board.admit(channel, model, settings, now);
  }
  void record(Signal signal, MonoTime now, bool was_probe = false,
              std::string_view channel = "openai", std::string_view model = "gpt-4o") {
    board.record(channel, model, settings, signal, was_probe, now);
  }
  void recordMany(int count, Signal signal, MonoTime now) {
    for (int i = 0; i < count; ++i) record(signal, now);
  }
  /// The pair's row as of `now` (the test fails when it is not listed).
  BreakerView view(MonoTime now, std::string_view channel = "openai",
                   std::string_view model = "gpt-4o") {
    for (auto const& row : board.list(now)) {
      if (row.channel == channel && row.model == model) return row;
    }
    ADD_FAILURE() << "no row for " << channel << "/" << model;
    return {};
  }
  /// Opens the failure breaker at `now` with five counted failures.
  void openFailure(MonoTime now) { recordMany(5, Signal::CountedFailure, now); }
  /// Opens the storm breaker at `now`: 17 answers, then four 429s (4 / 21 = 19 %).
  void openStorm(MonoTime now) {
    recordMany(17, Signal::Success, now);
    recordMany(4, Signal::RateLimited, now);
  }
};

TEST(BreakerSettings, DefaultsAreTheSpecifications) {
  BreakerSettings s;
  EXPECT_TRUE(s.enabled);
  EXPECT_EQ(s.failure_threshold, 5);
  EXPECT_EQ(s.open_for, 30'000ms);
  EXPECT_EQ(s.probe_timeout, 60'000ms);
  EXPECT_TRUE(s.storm_enabled);
  EXPECT_EQ(s.storm_window, 10'000ms);
  EXPECT_DOUBLE_EQ(s.storm_ratio, 0.15);
  EXPECT_EQ(s.storm_min_samples, 20);
  EXPECT_EQ(s.storm_open_for, 3'000ms);
}

TEST(BreakerStateName, EveryState) {
  EXPECT_EQ(breakerStateName(BreakerState::Closed), "closed");
  EXPECT_EQ(breakerStateName(BreakerState::Open), "open");
  EXPECT_EQ(breakerStateName(BreakerState::HalfOpen), "half_open");
}

// --- the failure breaker ------------------------------------------------------------------------

TEST_F(BreakersTest, FourFailuresStayClosedTheFifthOpens) {
  EXPECT_EQ(admit(kT0).admission, Admission::Allowed);
  recordMany(4, Signal::CountedFailure, kT0);
  BreakerView row = view(kT0);
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.consecutive_failures, 4);
  EXPECT_EQ(row.failure_opened_at, std::nullopt);
  EXPECT_EQ(admit(kT0).admission, Admission::Allowed);

  record(Signal::CountedFailure, at(100ms));
  row = view(at(100ms));
  EXPECT_EQ(row.failure_state, BreakerState::Open);
  EXPECT_EQ(row.consecutive_failures, 5);
  EXPECT_EQ(row.failure_opened_at, at(100ms));
  EXPECT_EQ(row.opens, 1u);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);  // failures are no storm

  BreakerDecision d = admit(at(200ms));
  EXPECT_EQ(d.admission, Admission::Refused);
  EXPECT_EQ(d.reason, "breaker_open");
  EXPECT_EQ(d.retry_at, at(30'100ms));
}

TEST_F(BreakersTest, RateLimitedAndIgnoredNeitherCountNorReset) {
  recordMany(3, Signal::CountedFailure, kT0);
  record(Signal::RateLimited, kT0);
  record(Signal::Ignored, kT0);
  record(Signal::RateLimited, kT0);
  record(Signal::CountedFailure, kT0);
  EXPECT_EQ(view(kT0).consecutive_failures, 4);
  EXPECT_EQ(view(kT0).failure_state, BreakerState::Closed);
  record(Signal::Ignored, kT0);
  record(Signal::CountedFailure, kT0);
  EXPECT_EQ(view(kT0).consecutive_failures, 5);
  EXPECT_EQ(view(kT0).failure_state, BreakerState::Open);
}

TEST_F(BreakersTest, SuccessResetsTheCount) {
  recordMany(4, Signal::CountedFailure, kT0);
  record(Signal::Success, kT0);
  EXPECT_EQ(view(kT0).consecutive_failures, 0);
  recordMany(4, Signal::CountedFailure, kT0);
  EXPECT_EQ(view(kT0).consecutive_failures, 4);
  EXPECT_EQ(view(kT0).failure_state, BreakerState::Closed);
  record(Signal::CountedFailure, kT0);
  EXPECT_EQ(view(kT0).failure_state, BreakerState::Open);
}

TEST_F(BreakersTest, TheThresholdComesFromTheSettings) {
  settings.failure_threshold = 2;
  recordMany(2, Signal::CountedFailure, kT0);
  EXPECT_EQ(view(kT0).failure_state, BreakerState::Open);
  settings.failure_threshold = 0;  // nonsense: taken as 1
  record(Signal::CountedFailure, kT0, false, "other", "m");
  EXPECT_EQ(view(kT0, "other", "m").failure_state, BreakerState::Open);
}

TEST_F(BreakersTest, RefusedUntilOpenForThenOneProbe) {
  openFailure(kT0);
  BreakerDecision early = admit(at(29'999ms));
  EXPECT_EQ(early.admission, Admission::Refused);
  EXPECT_EQ(early.reason, "breaker_open");
  EXPECT_EQ(early.retry_at, at(30'000ms));
  EXPECT_EQ(view(at(29'999ms)).failure_state, BreakerState::Open);
  EXPECT_EQ(view(at(30'000ms)).failure_state, BreakerState::HalfOpen);  // past its time

  BreakerDecision probe = admit(at(30'000ms));
  EXPECT_EQ(probe.admission, Admission::Probe);
  EXPECT_EQ(probe.reason, "");
  EXPECT_EQ(probe.retry_at, std::nullopt);

  BreakerDecision second = admit(at(30'001ms));
  EXPECT_EQ(second.admission, Admission::Refused);
  EXPECT_EQ(second.reason, "probe_in_flight");
  EXPECT_EQ(second.retry_at, at(90'000ms));  // the probe is taken as lost 60 s after it left
  EXPECT_EQ(view(at(30'001ms)).failure_state, BreakerState::HalfOpen);
}

TEST_F(BreakersTest, ProbeSuccessCloses) {
  openFailure(kT0);
  ASSERT_EQ(admit(at(30s)).admission, Admission::Probe);
  record(Signal::Success, at(31s), /*was_probe=*/true);
  BreakerView row = view(at(31s));
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.consecutive_failures, 0);
  EXPECT_EQ(row.failure_opened_at, std::nullopt);
  EXPECT_EQ(row.opens, 1u);
  EXPECT_EQ(admit(at(31s)).admission, Admission::Allowed);
  EXPECT_EQ(admit(at(31s)).admission, Admission::Allowed);
  // Closed again: it takes five new failures to open.
  recordMany(4, Signal::CountedFailure, at(32s));
  EXPECT_EQ(view(at(32s)).failure_state, BreakerState::Closed);
}

TEST_F(BreakersTest, ProbeFailureReopensWithAFreshTimer) {
  openFailure(kT0);
  ASSERT_EQ(admit(at(30s)).admission, Admission::Probe);
  record(Signal::CountedFailure, at(35s), /*was_probe=*/true);
  BreakerView row = view(at(35s));
  EXPECT_EQ(row.failure_state, BreakerState::Open);
  EXPECT_EQ(row.failure_opened_at, at(35s));
  EXPECT_EQ(row.opens, 2u);
  EXPECT_EQ(row.consecutive_failures, 6);

  BreakerDecision d = admit(at(64'999ms));
  EXPECT_EQ(d.admission, Admission::Refused);
  EXPECT_EQ(d.reason, "breaker_open");
  EXPECT_EQ(d.retry_at, at(65s));
  EXPECT_EQ(admit(at(65s)).admission, Admission::Probe);
}

TEST_F(BreakersTest, Probe429IsNeutral) {
  openFailure(kT0);
  ASSERT_EQ(admit(at(30s)).admission, Admission::Probe);
  record(Signal::RateLimited, at(31s), /*was_probe=*/true);
  // Not washed clean: still tripped, the same timer, the failures still counted.
  BreakerView row = view(at(31s));
  EXPECT_NE(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.failure_state, BreakerState::HalfOpen);  // open past its 30 s
  EXPECT_EQ(row.failure_opened_at, kT0);
  EXPECT_EQ(row.consecutive_failures, 5);
  EXPECT_EQ(row.opens, 1u);
  // Never stuck half-open: the very next caller is the new probe.
  EXPECT_EQ(admit(at(31s)).admission, Admission::Probe);
  EXPECT_EQ(admit(at(31s)).reason, "probe_in_flight");

  // A probe that ends Ignored (the client left) is neutral too.
  record(Signal::Ignored, at(32s), /*was_probe=*/true);
  EXPECT_EQ(view(at(32s)).failure_opened_at, kT0);
  EXPECT_EQ(admit(at(32s)).admission, Admission::Probe);
  record(Signal::Success, at(33s), /*was_probe=*/true);
  EXPECT_EQ(view(at(33s)).failure_state, BreakerState::Closed);
}

TEST_F(BreakersTest, OnlyTheProbeDecidesWhileTripped) {
  openFailure(kT0);
  // Attempts admitted before the open that end late change nothing.
  record(Signal::Success, at(1s));
  record(Signal::CountedFailure, at(2s));
  BreakerView row = view(at(2s));
  EXPECT_EQ(row.failure_state, BreakerState::Open);
  EXPECT_EQ(row.failure_opened_at, kT0);
  EXPECT_EQ(row.consecutive_failures, 5);
  // Nor does an attempt claiming to be a probe when none was admitted.
  record(Signal::Success, at(3s), /*was_probe=*/true);
  EXPECT_EQ(view(at(3s)).failure_state, BreakerState::Open);
  ASSERT_EQ(admit(at(30s)).admission, Admission::Probe);
  record(Signal::Success, at(31s));  // not the probe
  EXPECT_EQ(view(at(31s)).failure_state, BreakerState::HalfOpen);
  EXPECT_EQ(admit(at(31s)).reason, "probe_in_flight");
}

TEST_F(BreakersTest, ALostProbeIsReplacedAfterTheProbeTimeout) {
  openFailure(kT0);
  ASSERT_EQ(admit(at(30s)).admission, Admission::Probe);
  BreakerDecision waiting = admit(at(89'999ms));
  EXPECT_EQ(waiting.admission, Admission::Refused);
  EXPECT_EQ(waiting.reason, "probe_in_flight");
  EXPECT_EQ(waiting.retry_at, at(90s));
  EXPECT_EQ(admit(at(90s)).admission, Admission::Probe);
  EXPECT_EQ(admit(at(90s)).admission, Admission::Refused);
  EXPECT_EQ(admit(at(149'999ms)).admission, Admission::Refused);
  EXPECT_EQ(admit(at(150s)).admission, Admission::Probe);

  settings.probe_timeout = 5s;  // from the settings
  record(Signal::CountedFailure, at(151s), /*was_probe=*/true);
  ASSERT_EQ(admit(at(181s)).admission, Admission::Probe);
  EXPECT_EQ(admit(at(185'999ms)).admission, Admission::Refused);
  EXPECT_EQ(admit(at(186s)).admission, Admission::Probe);
}

TEST_F(BreakersTest, ADisabledBreakerAllowsRecordsNothingAndStaysClosed) {
  settings.enabled = false;
  settings.storm_enabled = false;
  recordMany(10, Signal::CountedFailure, kT0);
  recordMany(30, Signal::RateLimited, kT0);
  EXPECT_TRUE(board.list(kT0).empty());  // nothing kept
  EXPECT_EQ(admit(kT0).admission, Admission::Allowed);
  EXPECT_FALSE(board.refusing("openai", "gpt-4o", settings, kT0));
  BreakerView row = view(kT0);  // admit created the (empty) pair
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(row.consecutive_failures, 0);
  EXPECT_EQ(row.window_responses, 0);
  EXPECT_TRUE(board.takeTransitions().empty());
}

TEST_F(BreakersTest, TurningTheFailureBreakerOffClosesItAndLeavesTheStormBreaker) {
  openFailure(kT0);
  ASSERT_EQ(view(kT0).failure_state, BreakerState::Open);
  board.takeTransitions();
  settings.enabled = false;
  EXPECT_FALSE(board.refusing("openai", "gpt-4o", settings, at(1s)));
  EXPECT_EQ(admit(at(1s)).admission, Admission::Allowed);
  recordMany(7, Signal::CountedFailure, at(1s));
  BreakerView row = view(at(1s));
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.consecutive_failures, 0);
  EXPECT_EQ(row.window_responses, 12);  // the storm breaker still counts answers
  auto transitions = board.takeTransitions();
  ASSERT_EQ(transitions.size(), 1u);
  EXPECT_FALSE(transitions[0].storm);
  EXPECT_EQ(transitions[0].to, BreakerState::Closed);

  settings.enabled = true;  // on again: starts from nothing
  recordMany(4, Signal::CountedFailure, at(2s));
  EXPECT_EQ(view(at(2s)).failure_state, BreakerState::Closed);
  record(Signal::CountedFailure, at(2s));
  EXPECT_EQ(view(at(2s)).failure_state, BreakerState::Open);
}

// --- the 429-storm breaker ----------------------------------------------------------------------

TEST_F(BreakersTest, StormNeedsMoreThanTwentyAnswers) {
  recordMany(10, Signal::Success, kT0);
  recordMany(10, Signal::RateLimited, kT0);
  BreakerView row = view(kT0);
  EXPECT_EQ(row.window_responses, 20);
  EXPECT_EQ(row.window_429s, 10);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);    // 50 %, but only 20 answers
  EXPECT_EQ(row.failure_state, BreakerState::Closed);  // 429s are no failures
  EXPECT_EQ(admit(kT0).admission, Admission::Allowed);

  record(Signal::Success, at(10ms));  // the 21st answer: 10 / 21 opens at once
  row = view(at(10ms));
  EXPECT_EQ(row.storm_state, BreakerState::Open);
  EXPECT_EQ(row.storm_opened_at, at(10ms));
  EXPECT_EQ(row.storm_opens, 1u);
}

TEST_F(BreakersTest, StormOpensAboveFifteenPercent) {
  recordMany(17, Signal::Success, kT0);
  recordMany(3, Signal::RateLimited, kT0);
  EXPECT_EQ(view(kT0).storm_state, BreakerState::Closed);  // 20 answers
  record(Signal::RateLimited, at(500ms));                  // 4 / 21 = 19 %
  BreakerView row = view(at(500ms));
  EXPECT_EQ(row.storm_state, BreakerState::Open);
  EXPECT_EQ(row.storm_opened_at, at(500ms));
  EXPECT_EQ(row.window_responses, 21);
  EXPECT_EQ(row.window_429s, 4);

  BreakerDecision d = admit(at(600ms));
  EXPECT_EQ(d.admission, Admission::Refused);
  EXPECT_EQ(d.reason, "storm_open");
  EXPECT_EQ(d.retry_at, at(3'500ms));
  EXPECT_TRUE(board.refusing("openai", "gpt-4o", settings, at(600ms)));
}

TEST_F(BreakersTest, StormStaysClosedAtFifteenPercentOrLess) {
  recordMany(18, Signal::Success, kT0);
  recordMany(3, Signal::RateLimited, kT0);  // 3 / 21 = 14.3 %
  BreakerView row = view(kT0);
  EXPECT_EQ(row.window_responses, 21);
  EXPECT_EQ(row.window_429s, 3);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);

  // Exactly 15 % is not more than 15 %: 6 / 40 (on the way: 4 / 38, 5 / 39).
  recordMany(16, Signal::Success, kT0);
  recordMany(3, Signal::RateLimited, kT0);
  row = view(kT0);
  EXPECT_EQ(row.window_responses, 40);
  EXPECT_EQ(row.window_429s, 6);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  record(Signal::RateLimited, kT0);  // 7 / 41 = 17 %
  EXPECT_EQ(view(kT0).storm_state, BreakerState::Open);
}

TEST_F(BreakersTest, TheStormWindowSlides) {
  // Five 429s at kT0 still count 9.999 s later: with 16 answers more they make 5 / 21.
  recordMany(5, Signal::RateLimited, kT0);
  EXPECT_EQ(view(at(9'999ms)).window_429s, 5);
  recordMany(16, Signal::Success, at(9'999ms));
  EXPECT_EQ(view(at(9'999ms)).storm_state, BreakerState::Open);

  // On another pair, 10 s later they have slid out.
  for (int i = 0; i < 5; ++i) record(Signal::RateLimited, kT0, false, "other", "m");
  EXPECT_EQ(view(at(10s), "other", "m").window_responses, 0);  // listing alone lets them go
  for (int i = 0; i < 21; ++i) record(Signal::Success, at(10s), false, "other", "m");
  BreakerView row = view(at(10s), "other", "m");
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(row.window_responses, 21);
  EXPECT_EQ(row.window_429s, 0);

  // Slot by slot: one answer per second leaves 10 in the window, the oldest dropping out.
  for (int s = 11; s <= 25; ++s) record(Signal::Success, at(Millis(s * 1000)), false, "other", "m");
  row = view(at(25s), "other", "m");
  EXPECT_EQ(row.window_responses, 10);                              // the answers of 16..25 s
  EXPECT_EQ(view(at(30'500ms), "other", "m").window_responses, 5);  // of 21..25 s
  EXPECT_EQ(view(at(40s), "other", "m").window_responses, 0);
}

TEST_F(BreakersTest, StormHalfOpensAfterThreeSecondsAndA429ProbeReopensIt) {
  openStorm(kT0);
  EXPECT_EQ(admit(at(2'999ms)).reason, "storm_open");
  EXPECT_EQ(view(at(2'999ms)).storm_state, BreakerState::Open);
  EXPECT_EQ(view(at(3s)).storm_state, BreakerState::HalfOpen);
  ASSERT_EQ(admit(at(3s)).admission, Admission::Probe);
  BreakerDecision second = admit(at(3s));
  EXPECT_EQ(second.admission, Admission::Refused);
  EXPECT_EQ(second.reason, "probe_in_flight");
  EXPECT_EQ(second.retry_at, at(63s));

  record(Signal::RateLimited, at(3'500ms), /*was_probe=*/true);
  BreakerView row = view(at(3'500ms));
  EXPECT_EQ(row.storm_state, BreakerState::Open);
  EXPECT_EQ(row.storm_opened_at, at(3'500ms));
  EXPECT_EQ(row.storm_opens, 2u);
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.consecutive_failures, 0);
  BreakerDecision d = admit(at(6'499ms));
  EXPECT_EQ(d.reason, "storm_open");
  EXPECT_EQ(d.retry_at, at(6'500ms));
  EXPECT_EQ(admit(at(6'500ms)).admission, Admission::Probe);
}

TEST_F(BreakersTest, ANon429ProbeClosesTheStormWithAnEmptyWindow) {
  openStorm(kT0);
  ASSERT_EQ(admit(at(3s)).admission, Admission::Probe);
  record(Signal::Success, at(3'100ms), /*was_probe=*/true);
  BreakerView row = view(at(3'100ms));
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(row.storm_opened_at, std::nullopt);
  EXPECT_EQ(row.window_responses, 0);
  EXPECT_EQ(row.window_429s, 0);
  // The old 429s are gone: 17 answers with 4 429s more (21 in the window, 19 %) are needed again.
  recordMany(17, Signal::Success, at(3'200ms));
  recordMany(3, Signal::RateLimited, at(3'200ms));
  EXPECT_EQ(view(at(3'200ms)).storm_state, BreakerState::Closed);
  EXPECT_EQ(admit(at(3'200ms)).admission, Admission::Allowed);

  // A failed (not 429) probe closes it too: a failure is no storm.
  board.reset("openai", "gpt-4o");
  openStorm(at(4s));
  ASSERT_EQ(admit(at(7s)).admission, Admission::Probe);
  record(Signal::CountedFailure, at(7s), /*was_probe=*/true);
  row = view(at(7s));
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.consecutive_failures, 1);  // the closed failure breaker counted it
}

TEST_F(BreakersTest, AnIgnoredStormProbeIsNeutral) {
  openStorm(kT0);
  ASSERT_EQ(admit(at(3s)).admission, Admission::Probe);
  record(Signal::Ignored, at(4s), /*was_probe=*/true);
  BreakerView row = view(at(4s));
  EXPECT_EQ(row.storm_state, BreakerState::HalfOpen);
  EXPECT_EQ(row.storm_opened_at, kT0);
  EXPECT_EQ(row.storm_opens, 1u);
  EXPECT_EQ(admit(at(4s)).admission, Admission::Probe);
}

TEST_F(BreakersTest, IgnoredIsNoAnswer) {
  recordMany(30, Signal::Ignored, kT0);
  EXPECT_EQ(view(kT0).window_responses, 0);
  recordMany(17, Signal::Success, kT0);
  recordMany(3, Signal::RateLimited, kT0);
  recordMany(30, Signal::Ignored, kT0);  // would make 21+ answers if it counted
  BreakerView row = view(kT0);
  EXPECT_EQ(row.window_responses, 20);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  record(Signal::CountedFailure, kT0);  // a 5xx is an answer: 3 / 21
  EXPECT_EQ(view(kT0).window_responses, 21);
  EXPECT_EQ(view(kT0).storm_state, BreakerState::Closed);
}

TEST_F(BreakersTest, TheStormBreakerTurnedOff) {
  settings.storm_enabled = false;
  recordMany(40, Signal::RateLimited, kT0);
  EXPECT_EQ(admit(kT0).admission, Admission::Allowed);
  BreakerView row = view(kT0);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(row.window_responses, 0);

  settings.storm_enabled = true;
  openStorm(at(1s));
  ASSERT_EQ(view(at(1s)).storm_state, BreakerState::Open);
  settings.storm_enabled = false;  // off while open: closed and empty at once
  EXPECT_EQ(admit(at(1s)).admission, Admission::Allowed);
  row = view(at(1s));
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(row.window_responses, 0);
}

TEST_F(BreakersTest, TheStormSettingsAreTheChannels) {
  settings.storm_min_samples = 4;
  settings.storm_ratio = 0.5;
  settings.storm_open_for = 1s;
  recordMany(2, Signal::Success, kT0);
  recordMany(3, Signal::RateLimited, kT0);  // 3 / 5 = 60 %
  EXPECT_EQ(view(kT0).storm_state, BreakerState::Open);
  EXPECT_EQ(admit(at(999ms)).reason, "storm_open");
  EXPECT_EQ(admit(at(1s)).admission, Admission::Probe);
}

// --- the two together ---------------------------------------------------------------------------

TEST_F(BreakersTest, OneProbeTakesTheSlotOfBothHalfOpenBreakers) {
  openStorm(kT0);
  openFailure(kT0);  // counted by the failure breaker; the open storm breaker lets them pass
  BreakerView row = view(kT0);
  ASSERT_EQ(row.storm_state, BreakerState::Open);
  ASSERT_EQ(row.failure_state, BreakerState::Open);

  // The storm breaker is due at 3 s, the failure breaker not: refused until 30 s.
  BreakerDecision d = admit(at(3s));
  EXPECT_EQ(d.admission, Admission::Refused);
  EXPECT_EQ(d.reason, "breaker_open");
  EXPECT_EQ(d.retry_at, at(30s));
  EXPECT_EQ(view(at(3s)).storm_state, BreakerState::HalfOpen);

  ASSERT_EQ(admit(at(30s)).admission, Admission::Probe);
  BreakerDecision second = admit(at(30s));
  EXPECT_EQ(second.reason, "probe_in_flight");
  EXPECT_EQ(second.retry_at, at(90s));

  record(Signal::Success, at(31s), /*was_probe=*/true);
  row = view(at(31s));
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(admit(at(31s)).admission, Admission::Allowed);
}

TEST_F(BreakersTest, RetryAtIsTheLaterOfBothWaits) {
  openFailure(kT0);
  openStorm(at(28s));  // answers of attempts admitted before the failure breaker opened
  // Failure breaker due at 30 s, storm breaker at 31 s: the pair admits a probe at 31 s.
  BreakerDecision d = admit(at(29s));
  EXPECT_EQ(d.reason, "breaker_open");
  EXPECT_EQ(d.retry_at, at(31s));
  BreakerDecision storm_only = admit(at(30s));
  EXPECT_EQ(storm_only.reason, "storm_open");
  EXPECT_EQ(storm_only.retry_at, at(31s));
  EXPECT_EQ(admit(at(31s)).admission, Admission::Probe);

  // A 429 probe: neutral for the failure breaker, a fresh 3 s for the storm breaker.
  record(Signal::RateLimited, at(32s), /*was_probe=*/true);
  BreakerView row = view(at(32s));
  EXPECT_EQ(row.failure_opened_at, kT0);
  EXPECT_EQ(row.storm_opened_at, at(32s));
  BreakerDecision again = admit(at(33s));
  EXPECT_EQ(again.reason, "storm_open");
  EXPECT_EQ(again.retry_at, at(35s));
  EXPECT_EQ(admit(at(35s)).admission, Admission::Probe);
}

TEST_F(BreakersTest, RefusingNeverTakesTheProbeSlot) {
  EXPECT_FALSE(board.refusing("openai", "gpt-4o", settings, kT0));
  EXPECT_TRUE(board.list(kT0).empty());  // asking creates nothing
  openFailure(kT0);
  EXPECT_TRUE(board.refusing("openai", "gpt-4o", settings, at(29s)));
  EXPECT_FALSE(board.refusing("openai", "gpt-4o", settings, at(30s)));
  EXPECT_FALSE(board.refusing("openai", "gpt-4o", settings, at(30s)));
  ASSERT_EQ(admit(at(30s)).admission, Admission::Probe);
  EXPECT_TRUE(board.refusing("openai", "gpt-4o", settings, at(30s)));
  EXPECT_FALSE(board.refusing("openai", "gpt-4o", settings, at(90s)));  // the probe is lost
}

TEST_F(BreakersTest, PairsAreKeptApart) {
  openFailure(kT0);  // openai / gpt-4o
  EXPECT_EQ(admit(at(1s), "openai", "gpt-4o-mini").admission, Admission::Allowed);
  EXPECT_EQ(admit(at(1s), "azure", "gpt-4o").admission, Admission::Allowed);
  // The separator keeps "ab"+"c" and "a"+"bc" apart.
  for (int i = 0; i < 5; ++i) record(Signal::CountedFailure, kT0, false, "ab", "c");
  EXPECT_EQ(admit(at(1s), "a", "bc").admission, Admission::Allowed);
  EXPECT_EQ(admit(at(1s), "ab", "c").admission, Admission::Refused);
  EXPECT_EQ(view(at(1s), "a", "bc").consecutive_failures, 0);
}

// --- list, reset, transitions -------------------------------------------------------------------

TEST_F(BreakersTest, ListIsSortedByChannelThenModel) {
  admit(kT0, "openai", "gpt-4o");
  admit(kT0, "anthropic", "claude-sonnet");
  record(Signal::CountedFailure, kT0, false, "openai", "gpt-4.1");
  admit(kT0, "anthropic", "claude-haiku");
  auto rows = board.list(kT0);
  ASSERT_EQ(rows.size(), 4u);
  EXPECT_EQ(rows[0].channel, "anthropic");
  EXPECT_EQ(rows[0].model, "claude-haiku");
  EXPECT_EQ(rows[1].model, "claude-sonnet");
  EXPECT_EQ(rows[2].channel, "openai");
  EXPECT_EQ(rows[2].model, "gpt-4.1");
  EXPECT_EQ(rows[2].consecutive_failures, 1);
  EXPECT_EQ(rows[2].window_responses, 1);
  EXPECT_EQ(rows[3].model, "gpt-4o");
  EXPECT_EQ(rows[3].consecutive_failures, 0);
}

TEST_F(BreakersTest, ListJudgesWithTheSettingsThePairLastSaw) {
  settings.open_for = 5s;
  openFailure(kT0);
  EXPECT_EQ(view(at(4'999ms)).failure_state, BreakerState::Open);
  EXPECT_EQ(view(at(5s)).failure_state, BreakerState::HalfOpen);
}

TEST_F(BreakersTest, ResettingAChannelResetsEachOfItsModelsAndNoOtherChannel) {
  for (std::string_view model : {"gpt-4o", "gpt-4o-mini"}) {
    for (int i = 0; i < 5; ++i) {
      board.record("openai", model, settings, Signal::CountedFailure, false, kT0);
    }
  }
  for (int i = 0; i < 5; ++i) board.record("openai-eu", "gpt-4o", settings, Signal::CountedFailure, false, kT0);
  EXPECT_EQ(board.resetChannel("openai"), 2u);
  EXPECT_EQ(board.admit("openai", "gpt-4o", settings, at(1s)).admission, Admission::Allowed);
  EXPECT_EQ(board.admit("openai", "gpt-4o-mini", settings, at(1s)).admission, Admission::Allowed);
  EXPECT_EQ(board.admit("openai-eu", "gpt-4o", settings, at(1s)).admission, Admission::Refused);
  EXPECT_EQ(board.resetChannel("nobody"), 0u);
}

TEST_F(BreakersTest, ResetClosesAndEmptiesButKeepsTheOpenTotals) {
  EXPECT_FALSE(board.reset("openai", "gpt-4o"));  // unknown pair
  openFailure(kT0);
  openStorm(kT0);  // the storm breaker still hears answers
  ASSERT_EQ(view(kT0).storm_state, BreakerState::Open);
  board.takeTransitions();

  EXPECT_TRUE(board.reset("openai", "gpt-4o"));
  BreakerView row = view(at(1s));
  EXPECT_EQ(row.failure_state, BreakerState::Closed);
  EXPECT_EQ(row.storm_state, BreakerState::Closed);
  EXPECT_EQ(row.consecutive_failures, 0);
  EXPECT_EQ(row.window_responses, 0);
  EXPECT_EQ(row.window_429s, 0);
  EXPECT_EQ(row.failure_opened_at, std::nullopt);
  EXPECT_EQ(row.storm_opened_at, std::nullopt);
  EXPECT_EQ(row.opens, 1u);
  EXPECT_EQ(row.storm_opens, 1u);
  EXPECT_EQ(admit(at(1s)).admission, Admission::Allowed);

  auto transitions = board.takeTransitions();
  ASSERT_EQ(transitions.size(), 2u);
  EXPECT_FALSE(transitions[0].storm);
  EXPECT_EQ(transitions[0].to, BreakerState::Closed);
  EXPECT_TRUE(transitions[1].storm);
  EXPECT_EQ(transitions[1].to, BreakerState::Closed);

  // A reset of a closed pair is no transition; a probe in flight at the reset counts as any
  // answer of a closed breaker.
  EXPECT_TRUE(board.reset("openai", "gpt-4o"));
  EXPECT_TRUE(board.takeTransitions().empty());
  record(Signal::CountedFailure, at(2s), /*was_probe=*/true);
  EXPECT_EQ(view(at(2s)).consecutive_failures, 1);
}

TEST_F(BreakersTest, TransitionsAreMovedOutInOrder) {
  openFailure(kT0);
  admit(at(30s));  // half-open
  admit(at(90s));  // a lost probe replaced: no transition
  record(Signal::CountedFailure, at(91s), /*was_probe=*/true);  // open again
  admit(at(121s));                                              // half-open
  record(Signal::Success, at(122s), /*was_probe=*/true);        // closed
  openStorm(at(130s));

  auto transitions = board.takeTransitions();
  ASSERT_EQ(transitions.size(), 6u);
  BreakerState const expected[] = {BreakerState::Open,   BreakerState::HalfOpen,
                                   BreakerState::Open,   BreakerState::HalfOpen,
                                   BreakerState::Closed, BreakerState::Open};
  for (std::size_t i = 0; i < transitions.size(); ++i) {
    EXPECT_EQ(transitions[i].to, expected[i]) << i;
    EXPECT_EQ(transitions[i].storm, i == 5) << i;
    EXPECT_EQ(transitions[i].channel, "openai");
    EXPECT_EQ(transitions[i].model, "gpt-4o");
  }
  EXPECT_TRUE(board.takeTransitions().empty());
  EXPECT_EQ(board.droppedTransitions(), 0u);
}

TEST_F(BreakersTest, PendingTransitionsAreBounded) {
  settings.failure_threshold = 1;
  settings.open_for = 1ms;
  // Each round opens (failure) and half-opens (probe): two transitions.
  MonoTime now = kT0;
  record(Signal::CountedFailure, now);
  for (std::size_t i = 0; i < BreakerBoard::kMaxPendingTransitions; ++i) {
    now += 1ms;
    ASSERT_EQ(admit(now).admission, Admission::Probe);
    record(Signal::CountedFailure, now, /*was_probe=*/true);
  }
  EXPECT_EQ(board.takeTransitions().size(), BreakerBoard::kMaxPendingTransitions);
  EXPECT_EQ(board.droppedTransitions(), BreakerBoard::kMaxPendingTransitions + 1);
}

// --- the window ring ----------------------------------------------------------------------------

TEST(StormWindow, SlotsOfATenthOfTheWindow) {
  EXPECT_EQ(StormWindow::slotWidth(10s), 1s);
  EXPECT_EQ(StormWindow::slotWidth(2s), 200ms);
  EXPECT_EQ(StormWindow::slotWidth(5ms), 1ms);  // never below a millisecond

  StormWindow window;
  EXPECT_EQ(window.counts(kT0).responses, 0);
  window.add(true, kT0 + 100ms, 2s);
  window.add(false, kT0 + 250ms, 2s);
  EXPECT_EQ(window.counts(kT0 + 1'999ms).responses, 2);
  EXPECT_EQ(window.counts(kT0 + 1'999ms).rate_limited, 1);
  EXPECT_EQ(window.counts(kT0 + 2'000ms).responses, 1);  // the 100 ms slot slid out
  EXPECT_EQ(window.counts(kT0 + 2'000ms).rate_limited, 0);
  EXPECT_EQ(window.counts(kT0 + 2'200ms).responses, 0);
}

TEST(StormWindow, LateAnswersAndAChangedWindow) {
  StormWindow window;
  window.add(false, kT0 + 9s, 10s);
  window.add(true, kT0 + 5s, 10s);  // another thread's older instant, still in the window
  window.add(true, kT0 - 1s, 10s);  // slid out already: dropped
  EXPECT_EQ(window.counts(kT0 + 9s).responses, 2);
  EXPECT_EQ(window.counts(kT0 + 9s).rate_limited, 1);
  EXPECT_EQ(window.counts(kT0 + 15s).responses, 1);  // the 5 s answer left at 15 s

  window.add(false, kT0 + 9s, 20s);  // a reload changed the window: start again
  EXPECT_EQ(window.counts(kT0 + 9s).responses, 1);
  EXPECT_EQ(window.counts(kT0 + 9s).rate_limited, 0);
  window.clear();
  EXPECT_EQ(window.counts(kT0 + 9s).responses, 0);
}

TEST(StormWindow, AcrossTheClocksEpoch) {
  StormWindow window;
  MonoTime const epoch{};
  window.add(true, epoch - 1'500ms, 10s);             // slot -2
  window.add(false, epoch + 500ms, 10s);              // slot 0
  EXPECT_EQ(window.counts(epoch + 7s).responses, 2);  // slots -2..7
  EXPECT_EQ(window.counts(epoch + 8s).responses, 1);  // slots -1..8: the 429 slid out
  EXPECT_EQ(window.counts(epoch + 8s).rate_limited, 0);
}

// --- threads ------------------------------------------------------------------------------------

TEST(BreakerBoardThreads, ConcurrentRecordsAreAllCounted) {
  BreakerBoard board;
  BreakerSettings settings;
  settings.storm_min_samples = 1'000'000;  // keep the storm breaker closed: only counting here
  constexpr int kThreads = 4;
  constexpr int kEach = 2'000;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&board, &settings, t] {
      for (int i = 0; i < kEach; ++i) {
        // Two pairs shared by all threads: one map, one mutex.
        std::string_view model = i % 2 == 0 ? "even" : "odd";
        board.admit("ch", model, settings, kT0);
        board.record("ch", model, settings, t == 0 ? Signal::RateLimited : Signal::Success, false,
                     kT0);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  auto rows = board.list(kT0);
  ASSERT_EQ(rows.size(), 2u);
  for (auto const& row : rows) {
    EXPECT_EQ(row.window_responses, kThreads * kEach / 2) << row.model;
    EXPECT_EQ(row.window_429s, kEach / 2) << row.model;
  }
}

}  // namespace
}  // namespace llmux::routing
