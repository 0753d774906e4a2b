// What stands between a candidate and its attempt: the breaker signal of every outcome, the
// buckets an attempt takes, and the refusals behind a 503, plus the cost of an answer.

#include <gtest/gtest.h>

#include "proxy/attempt_gates.h"
#include "proxy/request_cost.h"

namespace llmux::proxy {
namespace {

using routing::AttemptSignal;
using routing::Outcome;

TEST(BreakerSignal, OnlyTheUpstreamsBreakageCounts) {
  EXPECT_EQ(breakerSignal(Outcome::Success), AttemptSignal::Success);
  EXPECT_EQ(breakerSignal(Outcome::RateLimited), AttemptSignal::RateLimited);
  for (Outcome broken : {Outcome::ServerError, Outcome::Overloaded, Outcome::ConnectError,
                         Outcome::TlsError, Outcome::TimeoutFirstByte, Outcome::TimeoutFirstToken,
                         Outcome::StreamErrorBeforeContent}) {
    EXPECT_EQ(breakerSignal(broken), AttemptSignal::CountedFailure) << routing::outcomeName(broken);
  }
  // The client's errors, a client leaving, a key problem, a stream that broke after content (a
  // long answer is not a broken upstream) and an untranslatable request say nothing about it.
  for (Outcome neutral : {Outcome::ClientError, Outcome::ContextOverflow, Outcome::ContentPolicy,
                          Outcome::KeyRejected, Outcome::MidStreamFailure, Outcome::ClientGone,
                          Outcome::Untranslatable, Outcome::DeadlineReached}) {
    EXPECT_EQ(breakerSignal(neutral), AttemptSignal::Ignored) << routing::outcomeName(neutral);
  }
}

config::Channel channelWithModelLimits() {
  config::Channel channel;
  channel.name = "oa";
  channel.model_limits["gpt-5"] = config::BucketLimits{100, 50'000};
  return channel;
}

TEST(BucketDemands, TheKeysAndTheModelsBuckets) {
  config::Channel channel = channelWithModelLimits();
  config::ChannelKey key;
  key.id = "oa/0123456789ab";
  key.limits.rpm = 60;
  auto both = bucketDemandsFor(channel, key, "gpt-5");
  ASSERT_EQ(both.size(), 2u);
  EXPECT_EQ(both[0].id, "key:oa/0123456789ab");
  EXPECT_EQ(both[0].limits, (config::BucketLimits{60, 0}));
  EXPECT_EQ(both[1].id, "model:oa/gpt-5");
  EXPECT_EQ(both[1].limits, (config::BucketLimits{100, 50'000}));

  auto key_only = bucketDemandsFor(channel, key, "gpt-5-mini");
  ASSERT_EQ(key_only.size(), 1u);
  EXPECT_EQ(key_only[0].id, "key:oa/0123456789ab");

  config::ChannelKey unlimited;
  unlimited.id = "oa/ffffffffffff";
  unlimited.limits.concurrency = 3;  // a slot, not a bucket
  EXPECT_TRUE(bucketDemandsFor(channel, unlimited, "gpt-5-mini").empty());
}

TEST(BreakerRefusals, NameTheFirstFewAndTheEarliestProbe) {
  BreakerRefusals refusals;
  EXPECT_FALSE(refusals.any());
  MonoTime t0{};
  for (int i = 0; i < 6; ++i) {
    routing::BreakerDecision decision;
    decision.admission = routing::Admission::Refused;
    decision.reason = i % 2 ? "storm_open" : "breaker_open";
    decision.retry_at = t0 + Millis(1000 * (6 - i));
    refusals.note("c" + std::to_string(i), decision);
  }
  EXPECT_TRUE(refusals.any());
  EXPECT_EQ(refusals.retry_at, t0 + Millis(1000));
  EXPECT_EQ(refusals.describe(),
            "c0: breaker_open, c1: storm_open, c2: breaker_open, c3: storm_open and 2 more");
}

TEST(RequestCost, PricedByTheAnsweringModelElseTheAskedOne) {
  std::map<std::string, config::ModelPrice> prices{{"gpt-5", {1.25, 10}}, {"alias", {2, 4}}};
  RequestRecord record;
  record.model = "alias";
  record.attempts.emplace_back();
  record.attempts.back().upstream_model = "gpt-5";
  TokenUsage usage;
  usage.input = 1'000'000;
  usage.output = 500'000;
  EXPECT_DOUBLE_EQ(costOf(prices, record, usage), 1.25 + 5.0);
  record.attempts.back().upstream_model = "unpriced";
  EXPECT_DOUBLE_EQ(costOf(prices, record, usage), 2.0 + 2.0);
  record.model = "unknown";
  EXPECT_DOUBLE_EQ(costOf(prices, record, usage), 0.0);
}

}  // namespace
}  // namespace llmux::proxy
