#include "core/attempt_outcome.h"

#include <gtest/gtest.h>

namespace llmux {
namespace {

using Kind = AttemptOutcome::Kind;

TEST(AttemptOutcome, NamesAreTheOnesTheRequestLogHasAlwaysUsed) {
  EXPECT_EQ(AttemptOutcome().text(), "in_progress");  // a running attempt's row
  EXPECT_EQ(AttemptOutcome::ok().text(), "ok");
  EXPECT_EQ(AttemptOutcome::clientError().text(), "client_error");
  EXPECT_EQ(AttemptOutcome::cancelled().text(), "cancelled");
  EXPECT_EQ(AttemptOutcome::failover("status_429").text(), "failover:status_429");
  EXPECT_EQ(AttemptOutcome::failed("mid_stream").text(), "failed:mid_stream");
  EXPECT_EQ(AttemptOutcome::failure(false, "connect").text(), "failover:connect");
  EXPECT_EQ(AttemptOutcome::failure(true, "connect").text(), "failed:connect");
  EXPECT_EQ(AttemptOutcome::racingWon().text(), "racing_won");
  EXPECT_EQ(AttemptOutcome::racingLost().text(), "racing_lost");
}

TEST(AttemptOutcome, TextReadsBackAsTheSameOutcome) {
  for (AttemptOutcome const& outcome :
       {AttemptOutcome(), AttemptOutcome::ok(), AttemptOutcome::clientError(),
        AttemptOutcome::cancelled(), AttemptOutcome::failover("timeout_first_byte"),
        AttemptOutcome::failed("deadline"), AttemptOutcome::racingWon(),
        AttemptOutcome::racingLost()}) {
    EXPECT_EQ(AttemptOutcome::parse(outcome.text()), outcome) << outcome.text();
  }
  // A name this version does not know stays readable as a failure.
  AttemptOutcome unknown = AttemptOutcome::parse("some_future_outcome");
  EXPECT_TRUE(unknown.is(Kind::Failed));
  EXPECT_EQ(unknown.reason(), "some_future_outcome");
}

TEST(AttemptOutcome, KindsAreAskedWithoutComparingText) {
  EXPECT_TRUE(AttemptOutcome().pending());
  EXPECT_TRUE(AttemptOutcome::failover("x").failedAttempt());
  EXPECT_TRUE(AttemptOutcome::failed("x").failedAttempt());
  EXPECT_FALSE(AttemptOutcome::clientError().failedAttempt());
  EXPECT_FALSE(AttemptOutcome::ok().failedAttempt());
  EXPECT_NE(AttemptOutcome::failed("a"), AttemptOutcome::failed("b"));
}

}  // namespace
}  // namespace llmux
