// Key pauses: a 429 takes one (key, upstream model) pair out of rotation, a rejected key or an
// exhausted account the whole key; the planner asks per pair.
#include "routing/key_health.h"

#include <gtest/gtest.h>

#include "routing/failure_policy.h"
#include "routing/freezes.h"
#include "routing/planner.h"
#include "routing/rng.h"
#include "routing/router_state.h"
#include "settings_fixture.h"

namespace llmux::routing {
namespace {

using testing::catalogFrom;
using namespace std::chrono_literals;

TEST(KeyHealth, LongerPauseWinsAndClearRestores) {
  ManualTimeSource clock;
  KeyHealth health(clock);
  health.pauseKey("k", KeyPause::Rejected, Millis(600'000));
  health.pauseKey("k", KeyPause::RateLimited, Millis(1'000));  // shorter: ignored
  health.pauseModel("k", "m", KeyPause::RateLimited, Millis(1'000));
  clock.advance(Millis(2'000));
  EXPECT_TRUE(health.pausedUntil("k", "m"));
  EXPECT_TRUE(health.pausedUntil("k", "other"));
  health.clear("k");
  EXPECT_FALSE(health.pausedUntil("k", "m"));
  EXPECT_FALSE(health.anyPaused());
}

TEST(KeyHealth, AModelPauseLeavesTheKeysOtherModelsUsable) {
  ManualTimeSource clock;
  KeyHealth health(clock);
  EXPECT_FALSE(health.anyPaused());
  health.pauseModel("k", "model-a", KeyPause::RateLimited, Millis(30'000));
  EXPECT_TRUE(health.anyPaused());
  EXPECT_EQ(health.pausedUntil("k", "model-a"), clock.now() + Millis(30'000));
  EXPECT_FALSE(health.pausedUntil("k", "model-b"));
  EXPECT_FALSE(health.pausedUntil("other-key", "model-a"));
  clock.advance(Millis(30'000));
  EXPECT_FALSE(health.pausedUntil("k", "model-a"));
}

TEST(KeyHealth, AKeyPauseCoversEveryModelAndTheLaterEndWins) {
  ManualTimeSource clock;
  KeyHealth health(clock);
  MonoTime start = clock.now();
  health.pauseModel("k", "model-a", KeyPause::RateLimited, Millis(60'000));
  health.pauseKey("k", KeyPause::Rejected, Millis(10'000));
  EXPECT_EQ(health.pausedUntil("k", "model-b"), start + Millis(10'000));
  EXPECT_EQ(health.pausedUntil("k", "model-a"), start + Millis(60'000)) << "usable once both end";
  clock.advance(Millis(10'000));
  EXPECT_FALSE(health.pausedUntil("k", "model-b"));
  EXPECT_TRUE(health.pausedUntil("k", "model-a"));
}

TEST(KeyHealth, PausesThatRanOutAreDroppedSoTheFastPathReturns) {
  ManualTimeSource clock;
  KeyHealth health(clock);
  health.pauseModel("k", "m", KeyPause::RateLimited, Millis(1'000));
  clock.advance(Millis(2'000));
  health.pauseModel("k2", "m", KeyPause::RateLimited, Millis(0));  // a pause that is already over
  EXPECT_FALSE(health.pausedUntil("k2", "m"));
  EXPECT_FALSE(health.anyPaused());
}

// One provider key serving several models, as users configure a provider.
constexpr char kOneKeyManyModels[] = R"(
gateway_keys: [{name: dev, key: sk-dev}]
channels:
  - name: provider
    protocol: openai-chat
    base_url: http://127.0.0.1:1
    keys: [only-key]
    models: [model-a, model-b, model-c]
    model_map: {alias-a: model-a}
)";

struct OneKeyManyModels : ::testing::Test {
  std::shared_ptr<const Catalog> catalog = catalogFrom(kOneKeyManyModels);
  ManualTimeSource clock;
  RouterState state{clock};
  KeyHealth health{clock};
  FreezeTable freezes{clock};
  Rng rng{1};

  std::string const& keyId() { return catalog->settings().channels[0].keys[0].id; }
  RoutePlan plan(std::string model) {
    RouteRequest request;
    request.model = std::move(model);
    return planRoute(*catalog, state, health, freezes, request, rng);
  }
  /// Pauses the key the way the forwarder does after an answer blaming it.
  void answered(int status, std::string_view body, std::string_view upstream_model, Millis pause) {
    if (pauseScopeFor(status, body) == PauseScope::Model) {
      health.pauseModel(keyId(), upstream_model, KeyPause::RateLimited, pause);
    } else {
      health.pauseKey(keyId(), KeyPause::QuotaExhausted, pause);
    }
  }
};

TEST_F(OneKeyManyModels, ARateLimitForOneModelLeavesTheOthersPlannable) {
  answered(429, R"({"error":{"code":"rate_limit_exceeded"}})", "model-a", 30s);
  auto a = plan("model-a");
  EXPECT_EQ(a.status, RouteStatus::AllPaused);
  EXPECT_EQ(a.resume_at, clock.now() + 30s)
      << "the pair's own resume time (the client's retry-after)";
  EXPECT_EQ(plan("alias-a").status, RouteStatus::AllPaused) << "same upstream model, other name";
  EXPECT_EQ(plan("model-b").status, RouteStatus::Ready);
  EXPECT_EQ(plan("model-c").status, RouteStatus::Ready);
  clock.advance(30s);
  EXPECT_EQ(plan("model-a").status, RouteStatus::Ready);
}

TEST_F(OneKeyManyModels, ARejectedKeyPausesEveryModel) {
  answered(401, R"({"error":{"code":"invalid_api_key"}})", "model-a", kRejectedKeyPause);
  for (char const* model : {"model-a", "model-b", "model-c"}) {
    auto p = plan(model);
    EXPECT_EQ(p.status, RouteStatus::AllPaused) << model;
    EXPECT_EQ(p.resume_at, clock.now() + kRejectedKeyPause) << model;
  }
}

TEST_F(OneKeyManyModels, AnExhaustedAccountPausesEveryModel) {
  answered(429,
           R"({"error":{"message":"You exceeded your current quota, please check your plan and )"
           R"(billing details.","type":"insufficient_quota","param":null,)"
           R"("code":"insufficient_quota"}})",
           "model-a", 30s);
  EXPECT_EQ(plan("model-b").status, RouteStatus::AllPaused);
  EXPECT_EQ(plan("model-c").status, RouteStatus::AllPaused);
}

}  // namespace
}  // namespace llmux::routing
