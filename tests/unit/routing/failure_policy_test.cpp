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
  for (int status : {408, 500, 501, 502, 503, 504, 520, 529}) {
    EXPECT_EQ(policyForStatus(status).verdict, Verdict::NextCandidate) << status;
  }
  EXPECT_EQ(policyForStatus(520).reason, "status_5xx");
}

TEST(FailurePolicy, TransportFailuresSkipTheChannel) {
  EXPECT_EQ(policyForTransportError(ErrorKind::Connect).verdict, Verdict::NextChannel);
  EXPECT_EQ(policyForTransportError(ErrorKind::Timeout).reason, "timeout");
}

}  // namespace
}  // namespace llmux::routing

namespace llmux::routing {
namespace {

TEST(FailurePolicy, ContentPolicyRefusalsAreToldByTheirBody) {
  // OpenAI (recorded shape of an image/moderation refusal), Azure OpenAI, Gemini.
  EXPECT_TRUE(isContentPolicyRefusal(
      400, R"({"error":{"message":"Your request was rejected as a result of our safety system.",)"
           R"("type":"invalid_request_error","param":null,"code":"content_policy_violation"}})"));
  EXPECT_TRUE(isContentPolicyRefusal(
      400, R"({"error":{"message":"The response was filtered","type":null,"param":"prompt",)"
           R"("code":"content_filter","status":400,"innererror":{"code":"ResponsibleAIPolicyViolation"}}})"));
  EXPECT_TRUE(isContentPolicyRefusal(
      400, R"({"error":{"code":400,"message":"Blocked: PROHIBITED_CONTENT","status":"INVALID_ARGUMENT"}})"));
  EXPECT_FALSE(isContentPolicyRefusal(
      400, R"({"error":{"message":"Unsupported parameter: 'temperature'","type":"invalid_request_error"}})"));
  EXPECT_FALSE(isContentPolicyRefusal(
      429, R"({"error":{"code":"content_policy_violation"}})")) << "only a 400 is a refusal";
  // The table: the client's to change, never retried, not the key's fault.
  auto action = actionFor(Outcome::ContentPolicy);
  EXPECT_EQ(action.verdict, Verdict::Relay);
  EXPECT_FALSE(action.counts_against_key);
  EXPECT_FALSE(action.trips_breaker);
}

TEST(FailurePolicy, GeminiWrongKeyIsAKeyProblemDespiteItsStatus400) {
  constexpr char kGoogle[] =
      R"({"error":{"code":400,"message":"API key not valid. Please pass a valid API key.",)"
      R"("status":"INVALID_ARGUMENT","details":[{"reason":"API_KEY_INVALID"}]}})";
  EXPECT_TRUE(needsBodyToDecide(Protocol::Gemini, 400));
  EXPECT_TRUE(needsBodyToDecide(Protocol::OpenAiChat, 400)) << "a content-policy refusal is told by its body";
  EXPECT_FALSE(needsBodyToDecide(Protocol::OpenAiChat, 429));
  EXPECT_FALSE(needsBodyToDecide(Protocol::Gemini, 404));
  EXPECT_TRUE(needsBodyToDecide(Protocol::Gemini, 429)) << "its retry delay is in the body";
  EXPECT_FALSE(isRejectedKeyAnswer(Protocol::Gemini, 429, kGoogle));
  EXPECT_TRUE(isRejectedKeyAnswer(Protocol::Gemini, 400, kGoogle));
  EXPECT_FALSE(isRejectedKeyAnswer(Protocol::Gemini, 400,
                                   R"({"error":{"code":400,"message":"Invalid JSON payload"}})"));
  EXPECT_FALSE(isRejectedKeyAnswer(Protocol::Anthropic, 400, kGoogle));
}

TEST(FailurePolicy, ARateLimitPausesTheModelAnExhaustedAccountTheKey) {
  // Rate limits are per model at OpenAI, Anthropic and Gemini (Google's quota ids say PerModel).
  EXPECT_EQ(pauseScopeFor(429, R"({"error":{"type":"requests","code":"rate_limit_exceeded"}})"),
            PauseScope::Model);
  EXPECT_EQ(pauseScopeFor(429, R"({"type":"error","error":{"type":"rate_limit_error"}})"),
            PauseScope::Model);
  EXPECT_EQ(pauseScopeFor(
                429, R"({"error":{"code":429,"status":"RESOURCE_EXHAUSTED","details":[)"
                     R"({"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]}})"),
            PauseScope::Model);
  EXPECT_EQ(pauseScopeFor(429, ""), PauseScope::Model) << "a bare 429 (decided on its head)";
  // The account, whatever the model.
  for (
      char const* body :
      {R"({"error":{"type":"insufficient_quota","code":"insufficient_quota"}})",
       R"({"error":{"code":"billing_hard_limit_reached"}})",
       R"({"error":{"code":"billing_not_active"}})",
       R"({"type":"error","error":{"details":{"error_code":"enforced_spend_limit_reached"}}})",
       R"({"type":"error","error":{"type":"billing_error"}})",
       R"({"type":"error","error":{"message":"Your credit balance is too low to access the API"}})"}) {
    EXPECT_TRUE(isAccountExhaustedAnswer(body)) << body;
    EXPECT_EQ(pauseScopeFor(429, body), PauseScope::Key) << body;
  }
  for (int status : {401, 403, 400})
    EXPECT_EQ(pauseScopeFor(status, ""), PauseScope::Key) << status;
}

TEST(FailurePolicy, RateLimitPausesAreClampedToTheConfiguredMaximum) {
  Millis const hour{3'600'000};
  EXPECT_EQ(rateLimitPause(Millis(99'999'999'000), hour), hour) << "retry-after: 99999999";
  EXPECT_EQ(rateLimitPause(Millis(34'400), hour), Millis(34'400));
  EXPECT_EQ(rateLimitPause(std::nullopt, hour), kDefaultRateLimitPause);
  EXPECT_EQ(rateLimitPause(std::nullopt, Millis(5'000)), Millis(5'000))
      << "the default is clamped too";
  EXPECT_EQ(rateLimitPause(Millis(0), hour), Millis(0));
}

}  // namespace
}  // namespace llmux::routing
