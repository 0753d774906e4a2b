#include "proxy/racing_admin.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "admin_fixture.h"

namespace llmux::proxy {
namespace {

namespace json = boost::json;
using namespace std::chrono_literals;
using config::CostPreference;

/// Counts what the state asks to keep.
class CountingSwitchSink final : public racing::SwitchSink {
 public:
  void switchesChanged() override { ++told; }
  std::uint64_t failedWrites() const override { return 0; }
  int told = 0;
};

config::Settings racingSettings() {
  config::Settings settings;
  settings.admin_token = "adm";
  settings.admin_tokens.push_back({"admin", "adm", false});
  settings.racing.cost_preference = CostPreference::CostFirst;
  settings.racing.max_shadows_in_flight = 7;
  settings.racing.hedge_budget = 0.25;
  config::Channel relay;
  relay.name = "relay-a";
  relay.keys.push_back({"sk-relay-secret", "relay-a#0", "relay-a/3f2a"});
  settings.channels.push_back(relay);
  return settings;
}

class RacingAdminTest : public AdminHandlerTest {
 protected:
  RacingAdminTest() {
    catalog = catalogOf(racingSettings());
    racing.setSwitchSink(&sink);
  }

  json::object racingAnswer(std::string method, std::string body = {}) {
    auto answer = call(std::move(method), "/admin/racing", "adm", std::move(body));
    EXPECT_EQ(answer.status, 200) << answer.body;
    auto doc = json::parse(answer.body);
    return doc.is_object() ? doc.as_object() : json::object{};
  }

  CountingSwitchSink sink;
};

TEST_F(RacingAdminTest, GetShowsTheSwitchesLimitsCountersAndEveryThreshold) {
  racing.counters.armed = 5;
  racing.counters.won_by_shadow = 2;
  racing.counters.loser_tokens = 1234;
  for (int i = 0; i < 3; ++i) racing.budget.noteRequest(clock.now());
  for (int i = 0; i < 20; ++i) {
    racing.thresholds.record(racing::ModelFamily::Claude, racing::Stage::StreamFirstContent,
                             Millis(1000 + 100 * i), clock.now());
  }
  racing.thresholds.record(racing::ModelFamily::Gpt, racing::Stage::NonStreamCompletion, 3s,
                           clock.now());

  auto doc = racingAnswer("GET");
  EXPECT_EQ(doc.at("enabled").as_bool(), false);
  EXPECT_EQ(doc.at("enabled_source").as_string(), "config");
  EXPECT_EQ(doc.at("cost_preference").as_string(), "cost_first");
  EXPECT_EQ(doc.at("cost_preference_source").as_string(), "config");
  EXPECT_EQ(doc.at("max_shadows_in_flight").as_int64(), 7);
  EXPECT_DOUBLE_EQ(doc.at("hedge_budget").as_double(), 0.25);
  EXPECT_EQ(doc.at("budget").at("requests_last_minute").as_int64(), 3);
  EXPECT_EQ(doc.at("budget").at("shadows_last_minute").as_int64(), 0);
  EXPECT_EQ(doc.at("shadows_in_flight").as_int64(), 0);
  auto const& counters = doc.at("counters").as_object();
  EXPECT_EQ(counters.at("armed").as_int64(), 5);
  EXPECT_EQ(counters.at("won_by_shadow").as_int64(), 2);
  EXPECT_EQ(counters.at("loser_tokens").as_int64(), 1234);
  for (auto name : {"triggered", "won_by_primary", "blocked_by_budget", "blocked_by_cap",
                    "no_candidate", "shadows_sent"}) {
    EXPECT_EQ(counters.at(name).as_int64(), 0) << name;
  }

  auto const& thresholds = doc.at("thresholds").as_array();
  ASSERT_EQ(thresholds.size(), std::size_t{racing::kModelFamilies * racing::kStages});
  int with_p90 = 0;
  for (auto const& value : thresholds) {
    auto const& t = value.as_object();
    std::string family(t.at("family").as_string());
    std::string stage(t.at("stage").as_string());
    if (family == "claude" && stage == racing::stageName(racing::Stage::StreamFirstContent)) {
      EXPECT_EQ(t.at("samples").as_int64(), 20);
      EXPECT_EQ(t.at("p90_ms").as_int64(), 2700);  // nearest rank: the 18th of 20
      ++with_p90;
    } else {
      EXPECT_TRUE(t.at("p90_ms").is_null()) << json::serialize(t);  // under kMinSamples
    }
    if (family == "gpt" && stage == racing::stageName(racing::Stage::NonStreamCompletion)) {
      EXPECT_EQ(t.at("samples").as_int64(), 1);
    }
  }
  EXPECT_EQ(with_p90, 1);
  EXPECT_EQ(sink.told, 0);
}

TEST_F(RacingAdminTest, PutSetsTheSwitchesAndNullGivesThemBackToTheConfiguration) {
  auto doc = racingAnswer("PUT", R"({"enabled": true, "cost_preference": "quality_first"})");
  EXPECT_EQ(doc.at("enabled").as_bool(), true);
  EXPECT_EQ(doc.at("enabled_source").as_string(), "admin");
  EXPECT_EQ(doc.at("cost_preference").as_string(), "quality_first");
  EXPECT_EQ(doc.at("cost_preference_source").as_string(), "admin");
  EXPECT_EQ(racing.preferenceOverride(), CostPreference::QualityFirst);
  EXPECT_EQ(sink.told, 1) << "the change is handed to the state store";
  EXPECT_EQ(racingAnswer("GET"), doc);

  // An absent member is unchanged; nothing to keep.
  doc = racingAnswer("PUT", "{}");
  EXPECT_EQ(doc.at("enabled_source").as_string(), "admin");
  EXPECT_EQ(sink.told, 1);

  doc = racingAnswer("PUT", R"({"cost_preference": null, "enabled": false})");
  EXPECT_EQ(doc.at("enabled").as_bool(), false);
  EXPECT_EQ(doc.at("enabled_source").as_string(), "admin");
  EXPECT_EQ(doc.at("cost_preference").as_string(), "cost_first");
  EXPECT_EQ(doc.at("cost_preference_source").as_string(), "config");
  EXPECT_EQ(racing.enabledOverride(), false);

  doc = racingAnswer("PUT", R"({"enabled": null})");
  EXPECT_EQ(doc.at("enabled_source").as_string(), "config");
  EXPECT_EQ(racing.enabledOverride(), std::nullopt);
  EXPECT_EQ(sink.told, 3);
}

TEST_F(RacingAdminTest, PutRefusesABadBodyNamingTheMemberAndChangesNothing) {
  racing.changeSwitches(std::optional<bool>(true), std::nullopt);
  struct Case {
    char const* body;
    char const* named;
  };
  Case const cases[] = {
      {"", "JSON object"},
      {"{\"enabled\": tru", "JSON object"},
      {"[true]", "JSON object"},
      {R"({"enabled": "false"})", "'enabled'"},
      {R"({"enabled": 0})", "'enabled'"},
      {R"({"cost_preference": "fastest"})", "'cost_preference'"},
      {R"({"cost_preference": 1})", "'cost_preference'"},
      {R"({"enabled": false, "enable": true})", "'enable'"},
  };
  for (auto const& c : cases) {
    auto answer = call("PUT", "/admin/racing", "adm", c.body);
    EXPECT_EQ(answer.status, 400) << c.body;
    auto doc = json::parse(answer.body);
    EXPECT_EQ(doc.at("error").at("type").as_string(), "invalid_request_error");
    std::string message(doc.at("error").at("message").as_string());
    EXPECT_NE(message.find(c.named), std::string::npos) << c.body << ": " << message;
  }
  EXPECT_EQ(racing.enabledOverride(), true) << "a refused body changes nothing";
  EXPECT_EQ(racing.preferenceOverride(), std::nullopt);
  EXPECT_EQ(sink.told, 1) << "only the change made before the refused ones";
}

TEST_F(RacingAdminTest, ListsLatencyPenaltiesByKeyLabelNeverTheSecret) {
  WallTime now = clock.wallNow();
  racing::Combination slow{"relay-a/3f2a", "claude-sonnet-4", "coding"};
  for (int i = 0; i < 3; ++i) racing.latency.noteSlow(slow, now);
  racing::Combination gone{"retired/77aa", "gpt-4o", "unknown"};  // no longer configured
  racing.latency.noteSlow(gone, now - 1h);

  auto answer = call("GET", "/admin/latency-penalties", "adm");
  ASSERT_EQ(answer.status, 200);
  auto doc = json::parse(answer.body);
  auto const& list = doc.at("latency_penalties").as_array();
  ASSERT_EQ(list.size(), 2u);
  auto const& degraded = list[0].as_object();  // degraded first
  EXPECT_EQ(degraded.at("id").as_string(), racing::LatencyMemory::idOf(slow));
  EXPECT_EQ(degraded.at("key").as_string(), "relay-a#0");
  EXPECT_EQ(degraded.at("model").as_string(), "claude-sonnet-4");
  EXPECT_EQ(degraded.at("task_class").as_string(), "coding");
  EXPECT_EQ(degraded.at("slow_streak").as_int64(), 3);
  EXPECT_EQ(degraded.at("degraded").as_bool(), true);
  EXPECT_EQ(degraded.at("updated").as_string(), rfc3339Utc(now));
  EXPECT_EQ(list[1].at("key").as_string(), "retired/77aa");
  EXPECT_EQ(list[1].at("degraded").as_bool(), false);
  EXPECT_EQ(answer.body.find("sk-relay-secret"), std::string::npos);

  EXPECT_EQ(latencyPenaltiesJson({}, config::Settings{}), R"({"latency_penalties":[]})");
}

TEST_F(RacingAdminTest, ClearsALatencyPenaltyByIdAnd404sAnUnknownOne) {
  racing::Combination slow{"relay-a/3f2a", "claude-sonnet-4", "coding"};
  for (int i = 0; i < 3; ++i) racing.latency.noteSlow(slow, clock.wallNow());
  std::string id = racing::LatencyMemory::idOf(slow);
  EXPECT_EQ(call("DELETE", "/admin/latency-penalties/" + id, "adm").status, 204);
  EXPECT_FALSE(racing.latency.degraded(slow, clock.wallNow()));
  auto again = call("DELETE", "/admin/latency-penalties/" + id, "adm");
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(json::parse(again.body).at("error").at("type").as_string(), "not_found_error");
}

TEST_F(RacingAdminTest, TheAdminTokenGuardsTheRacingRoutes) {
  EXPECT_EQ(call("GET", "/admin/racing", "").status, 401);
  EXPECT_EQ(call("PUT", "/admin/racing", "wrong", R"({"enabled": true})").status, 403);
  EXPECT_EQ(call("GET", "/admin/latency-penalties", "").status, 401);
  EXPECT_EQ(call("DELETE", "/admin/latency-penalties/00", "wrong").status, 403);
  EXPECT_EQ(racing.enabledOverride(), std::nullopt);
}

}  // namespace
}  // namespace llmux::proxy
