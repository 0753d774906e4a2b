#include "routing/failure_policy.h"

#include <gtest/gtest.h>

namespace llmux::routing {
namespace {

TEST(FailurePolicy, ClientErrorsAreRelayedNeverRetried) {
  for (int status : {200, 201, 400, 404, 405, 409, 413, 422}) {
    EXPECT_EQ(policyForStatus(status).verdict, Verdict::Relay) << status;
  }
}

TEST(FailurePolicy, KeyProblemsMoveToTheNextKey) {
  for (int status : {401, 403, 429}) {
    EXPECT_EQ(policyForStatus(status).verdict, Verdict::NextKey) << status;
  }
  EXPECT_EQ(policyForStatus(429).reason, "status_429");
}

TEST(FailurePolicy, UpstreamProblemsMoveToTheNextCandidate) {
  for (int status : {408, 500, 502, 503, 504, 529}) {
    EXPECT_EQ(policyForStatus(status).verdict, Verdict::NextCandidate) << status;
  }
}

TEST(FailurePolicy, TransportFailuresSkipTheChannel) {
  EXPECT_EQ(policyForTransportError(ErrorKind::Connect).verdict, Verdict::NextChannel);
  EXPECT_EQ(policyForTransportError(ErrorKind::Timeout).reason, "timeout");
}

}  // namespace
}  // namespace llmux::routing
