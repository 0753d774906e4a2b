// The health probes' books (proxy/probe_book.h): admission under both caps, the latest result per
// (channel, key, model, scenario), its metrics and JSON.
#include "proxy/probe_book.h"

#include <gtest/gtest.h>

#include <boost/json.hpp>

#include "telemetry/metrics.h"

namespace llmux::proxy {
namespace {

ProbeResult result(std::string scenario, bool pass, std::string reason = {}) {
  ProbeResult r;
  r.channel = "c";
  r.key_label = "c#0";
  r.model = "m";
  r.scenario = std::move(scenario);
  r.pass = pass;
  r.reason = std::move(reason);
  r.status = pass ? 200 : 403;
  return r;
}

TEST(ProbeBook, AdmitsUnderTheConcurrencyAndHourlyCaps) {
  telemetry::MetricsRegistry metrics;
  ManualTimeSource clock;
  ProbeBook book(metrics, clock);
  EXPECT_EQ(book.tryStart(2, 3), ProbeAdmission::Admitted);
  EXPECT_EQ(book.tryStart(2, 3), ProbeAdmission::Admitted);
  EXPECT_EQ(book.tryStart(2, 3), ProbeAdmission::Busy);  // two running
  book.finish();
  EXPECT_EQ(book.running(), 1u);
  EXPECT_EQ(book.tryStart(2, 3), ProbeAdmission::Admitted);
  book.finish();
  book.finish();
  EXPECT_EQ(book.tryStart(2, 3), ProbeAdmission::HourlyCap);  // three started within the hour
  clock.advance(std::chrono::minutes(59));
  EXPECT_EQ(book.tryStart(2, 3), ProbeAdmission::HourlyCap);
  clock.advance(std::chrono::minutes(1));  // the first ones are an hour old
  EXPECT_EQ(book.tryStart(2, 3), ProbeAdmission::Admitted);
}

TEST(ProbeBook, KeepsTheLatestResultPerTargetAndCountsEveryOne) {
  telemetry::MetricsRegistry metrics;
  ManualTimeSource clock;
  ProbeBook book(metrics, clock);
  book.record(result("chat", false, "status 403: forbidden"));
  book.record(result("chat", true));
  book.record(result("tools", false, "status 200: the forced tool call did not come back"));
  auto latest = book.latest();
  ASSERT_EQ(latest.size(), 2u);
  EXPECT_EQ(latest[0].scenario, "chat");
  EXPECT_TRUE(latest[0].pass);
  EXPECT_EQ(latest[1].scenario, "tools");
  EXPECT_FALSE(latest[1].pass);

  std::string text = metrics.renderPrometheus();
  EXPECT_NE(text.find(R"(llmux_probes_total{channel="c",scenario="chat",result="pass"} 1)"), std::string::npos) << text;
  EXPECT_NE(text.find(R"(llmux_probes_total{channel="c",scenario="chat",result="fail"} 1)"), std::string::npos);
  EXPECT_NE(text.find(R"(llmux_probe_last_result{channel="c",key="c#0",model="m",scenario="chat"} 1)"), std::string::npos);
  EXPECT_NE(text.find(R"(llmux_probe_last_result{channel="c",key="c#0",model="m",scenario="tools"} 0)"), std::string::npos);
}

TEST(ProbeBook, ResultsAsJson) {
  ProbeResult r = result("chat", true);
  r.freezes_lifted = {"frz_1"};
  r.freezes_kept = 1;
  r.pause_cleared = true;
  r.latency_ms = 12.34;
  r.at = WallTime(std::chrono::seconds(1'700'000'000));
  auto doc = boost::json::parse(probeResultsJson({r})).as_object();
  auto const& probe = doc.at("probes").as_array().at(0).as_object();
  EXPECT_EQ(probe.at("key").as_string(), "c#0");
  EXPECT_TRUE(probe.at("pass").as_bool());
  EXPECT_EQ(probe.at("status").as_int64(), 200);
  EXPECT_DOUBLE_EQ(probe.at("latency_ms").as_double(), 12.3);
  EXPECT_EQ(probe.at("at").as_string(), "2023-11-14T22:13:20Z");
  auto const& lifted = probe.at("lifted").as_object();
  EXPECT_EQ(lifted.at("freezes").as_array().at(0).as_string(), "frz_1");
  EXPECT_EQ(lifted.at("freezes_kept").as_int64(), 1);
  EXPECT_TRUE(lifted.at("pause").as_bool());
  EXPECT_FALSE(lifted.at("breakers").as_bool());
}

}  // namespace
}  // namespace llmux::proxy
