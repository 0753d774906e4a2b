// The inspection's results: what is logged and counted once, the gauges, the admin JSON.

#include "proxy/inspection_board.h"

#include <gtest/gtest.h>

#include "proxy/inspection_runner.h"
#include "telemetry/metrics.h"

namespace llmux::proxy {
namespace {

using Names = std::vector<std::string>;

ModelListCheck listed(Names served, Names upstream) {
  ModelListCheck check;
  check.at = WallTime(std::chrono::seconds(1'700'000'000));
  check.diff = config::diffModelLists(served, upstream);
  check.served = std::move(served);
  check.upstream = std::move(upstream);
  return check;
}

bool exposes(telemetry::MetricsRegistry const& registry, std::string const& line) {
  return registry.renderPrometheus().find(line) != std::string::npos;
}

TEST(InspectionBoard, AChangeIsReportedAndCountedOnce) {
  telemetry::MetricsRegistry registry;
  InspectionBoard board(registry);
  auto first = board.recordModels("relay", listed({"a", "b"}, {"a", "c", "d"}));
  EXPECT_EQ(first.added, (Names{"c", "d"}));
  EXPECT_EQ(first.dropped, (Names{"b"}));
  EXPECT_TRUE(exposes(registry, "llmux_channel_models{channel=\"relay\"} 3"));
  EXPECT_TRUE(exposes(registry,
                      "llmux_model_list_changes_total{channel=\"relay\",change=\"added\"} 2"));
  EXPECT_TRUE(exposes(registry,
                      "llmux_model_list_changes_total{channel=\"relay\",change=\"dropped\"} 1"));

  // The same difference an hour later is not news; a new model is.
  auto again = board.recordModels("relay", listed({"a", "b"}, {"a", "c", "d", "e"}));
  EXPECT_EQ(again.added, (Names{"e"}));
  EXPECT_TRUE(again.dropped.empty());
  EXPECT_TRUE(exposes(registry,
                      "llmux_model_list_changes_total{channel=\"relay\",change=\"added\"} 3"));
  EXPECT_TRUE(exposes(registry, "llmux_channel_models{channel=\"relay\"} 4"));
}

TEST(InspectionBoard, AFailedRefreshKeepsTheLastListWithItsError) {
  telemetry::MetricsRegistry registry;
  InspectionBoard board(registry);
  board.recordModels("relay", listed({"a"}, {"a", "b"}));
  ModelListCheck failed;
  failed.at = WallTime(std::chrono::seconds(1'700'000'100));
  failed.error = "GET /v1/models answered HTTP 502";
  EXPECT_TRUE(board.recordModels("relay", failed).empty());
  ChannelInspection seen = board.get("relay");
  ASSERT_TRUE(seen.models);
  EXPECT_EQ(seen.models->upstream, (Names{"a", "b"}));
  EXPECT_EQ(seen.models->error, "GET /v1/models answered HTTP 502");
  std::string json = channelInspectionJson(seen);
  EXPECT_NE(json.find(R"("refreshed":"2023-11-14T22:15:00Z","error":"GET /v1/models answered HTTP 502")"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find(R"("served":["a"],"upstream":["a","b"],"added":["b"],"dropped":[],"auto_updated":false)"),
            std::string::npos)
      << json;
}

TEST(InspectionBoard, BalancesAreGaugesByKeyLabel) {
  telemetry::MetricsRegistry registry;
  InspectionBoard board(registry);
  WallTime const at(std::chrono::seconds(1'700'000'000));
  board.recordBalance("relay", BalanceCheck{"relay#0", at, 74.5, ""}, 10.0);
  board.recordBalance("relay", BalanceCheck{"relay#1", at, 3.25, ""}, 10.0);
  EXPECT_TRUE(exposes(registry, "llmux_channel_balance{channel=\"relay\",key=\"relay#0\"} 74.5"));
  EXPECT_TRUE(exposes(registry, "llmux_channel_balance{channel=\"relay\",key=\"relay#1\"} 3.25"));

  // A failure keeps the last balance read, with the error.
  board.recordBalance("relay", BalanceCheck{"relay#1", at, std::nullopt, "answered HTTP 404"},
                      std::nullopt);
  ChannelInspection seen = board.get("relay");
  ASSERT_EQ(seen.balances.size(), 2u);
  EXPECT_EQ(seen.balances[1].balance, 3.25);
  EXPECT_EQ(seen.balances[1].error, "answered HTTP 404");
  EXPECT_TRUE(exposes(registry, "llmux_channel_balance{channel=\"relay\",key=\"relay#1\"} 3.25"));
  EXPECT_EQ(inspectionJson(board.all()),
            R"({"channels":[{"channel":"relay","models":null,"balances":[)"
            R"({"key":"relay#0","balance":74.5,"at":"2023-11-14T22:13:20Z","error":null},)"
            R"({"key":"relay#1","balance":3.25,"at":"2023-11-14T22:13:20Z","error":"answered HTTP 404"}]}]})");
}

TEST(InspectionRun, BodyNamesTheChannel) {
  EXPECT_EQ(parseInspectionRun(R"({"channel":"relay"})").value(), "relay");
  EXPECT_FALSE(parseInspectionRun(R"({"channel":""})"));
  EXPECT_FALSE(parseInspectionRun(R"(["relay"])"));
  EXPECT_FALSE(parseInspectionRun("relay"));
}

TEST(InspectionRun, BillingUsageCoversTheLastHundredDays) {
  WallTime const at(std::chrono::seconds(1'700'000'000));  // 2023-11-14
  EXPECT_EQ(billingUsageQuery(at), "start_date=2023-08-07&end_date=2023-11-15");
}

}  // namespace
}  // namespace llmux::proxy
