// Racing's admin API end to end: the switches an operator sets with PUT /admin/racing and the
// latency learning are kept in the state database across restarts; latency penalties are listed
// and cleared (DELETE), and one cleared stays cleared. No race runs here, so the learning is
// written into the stopped gateway's database the way a gateway that raced would have left it.
#include <gtest/gtest.h>

#include <signal.h>
#include <sqlite3.h>

#include <chrono>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"
#include "racing/latency_memory.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

class RoutingRacingAdmin : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    auto started = startMockProvider();
    ASSERT_TRUE(started.ok()) << started.error().message;
    mock_url_ = started->baseUrl();
  }

  Result<Server> start() {
    auto live = channel("live", Protocol::OpenAiChat, mock_url_, {"k-live"});
    GatewayConfig c = gatewayConfig({live}, temp().path() + "/access.log");
    c.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
    c.extra_yaml += "server: {lame_duck_ms: 0}\n";  // stop at once on SIGTERM
    return startGateway(c);
  }

  /// Stops a gateway the way an orchestrator does (SIGTERM): queued writes are made first.
  void stop(Server const& gateway) {
    ASSERT_TRUE(gateway.process->signal(SIGTERM).ok());
    auto exited = gateway.process->waitExit(Millis(10'000));
    ASSERT_TRUE(exited.ok()) << exited.error().message;
    EXPECT_EQ(exited->code, 0);
  }

  boost::json::array penalties(std::uint16_t port) {
    auto doc = adminJson(port, "GET", "/admin/latency-penalties");
    return doc.contains("latency_penalties") ? doc.at("latency_penalties").as_array()
                                             : boost::json::array{};
  }

  std::string database() { return temp().path() + "/llmux-home/llmux.db"; }

  /// Runs `sql` on the (stopped) gateway's state database; with `count`, the first column of
  /// its single row.
  long long sql(std::string const& statement, bool count = false) {
    sqlite3* db = nullptr;
    EXPECT_EQ(sqlite3_open(database().c_str(), &db), SQLITE_OK);
    sqlite3_stmt* stmt = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, statement.c_str(), -1, &stmt, nullptr), SQLITE_OK)
        << sqlite3_errmsg(db);
    int rc = sqlite3_step(stmt);
    EXPECT_EQ(rc, count ? SQLITE_ROW : SQLITE_DONE) << sqlite3_errmsg(db);
    long long value = count && rc == SQLITE_ROW ? sqlite3_column_int64(stmt, 0) : 0;
    sqlite3_finalize(stmt);
    sqlite3_close(db);
    return value;
  }

  /// A latency entry as the gateway writes one, last updated `age` ago.
  void seedPenalty(racing::Combination const& c, int streak, bool degraded,
                   std::chrono::milliseconds age) {
    auto updated = static_cast<long long>(wallNowMs()) - age.count();
    sql("INSERT INTO latency_penalties (id, key_id, upstream_model, task_class, slow_streak, "
        "degraded, updated_ms) VALUES ('" + racing::LatencyMemory::idOf(c) + "', '" + c.key_id +
        "', '" + c.upstream_model + "', '" + c.task_class + "', " + std::to_string(streak) +
        ", " + (degraded ? "1" : "0") + ", " + std::to_string(updated) + ")");
  }

 private:
  std::string mock_url_;
};

TEST_F(RoutingRacingAdmin, SwitchesSetThroughTheAdminApiSurviveARestart) {
  auto gateway = start();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto racing = adminJson(gateway->port, "GET", "/admin/racing");
  EXPECT_EQ(racing.at("enabled").as_bool(), false);
  EXPECT_EQ(racing.at("enabled_source").as_string(), "config");
  EXPECT_EQ(racing.at("cost_preference").as_string(), "balanced");
  EXPECT_EQ(racing.at("thresholds").as_array().size(), 8u);  // 4 families x 2 stages

  racing = adminJson(gateway->port, "PUT", "/admin/racing",
                     R"({"enabled": true, "cost_preference": "cost_first"})");
  EXPECT_EQ(racing.at("enabled").as_bool(), true);
  EXPECT_EQ(racing.at("enabled_source").as_string(), "admin");
  EXPECT_EQ(racing.at("cost_preference").as_string(), "cost_first");
  auto refused = callGateway(gateway->port,
                             adminCall("PUT", "/admin/racing", R"({"cost_preference": "fastest"})"));
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->status(), 400);
  EXPECT_NE(refused->body.find("cost_preference"), std::string::npos) << refused->body;
  auto no_token = callGateway(gateway->port,
                              adminCall("PUT", "/admin/racing", R"({"enabled": false})", ""));
  ASSERT_TRUE(no_token.ok());
  EXPECT_EQ(no_token->status(), 401);
  stop(*gateway);

  // The same state directory: the operator's switches are back.
  auto restarted = start();
  ASSERT_TRUE(restarted.ok()) << restarted.error().message;
  racing = adminJson(restarted->port, "GET", "/admin/racing");
  EXPECT_EQ(racing.at("enabled").as_bool(), true);
  EXPECT_EQ(racing.at("enabled_source").as_string(), "admin");
  EXPECT_EQ(racing.at("cost_preference").as_string(), "cost_first");
  EXPECT_EQ(racing.at("cost_preference_source").as_string(), "admin");

  // null: back to the configuration's, and that is kept too.
  racing = adminJson(restarted->port, "PUT", "/admin/racing",
                     R"({"enabled": null, "cost_preference": null})");
  EXPECT_EQ(racing.at("enabled_source").as_string(), "config");
  stop(*restarted);
  auto third = start();
  ASSERT_TRUE(third.ok()) << third.error().message;
  racing = adminJson(third->port, "GET", "/admin/racing");
  EXPECT_EQ(racing.at("enabled").as_bool(), false);
  EXPECT_EQ(racing.at("enabled_source").as_string(), "config");
  EXPECT_EQ(racing.at("cost_preference").as_string(), "balanced");
  EXPECT_EQ(racing.at("cost_preference_source").as_string(), "config");
}

TEST_F(RoutingRacingAdmin, LatencyPenaltiesAreKeptADayListedAndClearedForGood) {
  auto gateway = start();
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  EXPECT_TRUE(penalties(gateway->port).empty());
  auto unknown = callGateway(gateway->port,
                             adminCall("DELETE", "/admin/latency-penalties/0123456789abcdef"));
  ASSERT_TRUE(unknown.ok());
  EXPECT_EQ(unknown->status(), 404) << unknown->body;
  stop(*gateway);

  // What a gateway that raced would have left: one entry from an hour ago, one over a day old.
  racing::Combination slow{"retired/00ff", "claude-sonnet-4", "coding"};
  seedPenalty(slow, 3, true, std::chrono::hours(1));
  seedPenalty({"retired/00ff", "gpt-4o", "unknown"}, 3, true, std::chrono::hours(25));

  auto restarted = start();
  ASSERT_TRUE(restarted.ok()) << restarted.error().message;
  auto listed = penalties(restarted->port);
  ASSERT_EQ(listed.size(), 1u) << boost::json::serialize(listed);
  auto const& entry = listed[0].as_object();
  std::string id(entry.at("id").as_string());
  EXPECT_EQ(id.size(), 16u);
  EXPECT_EQ(entry.at("key").as_string(), "retired/00ff");  // no such key configured: its id
  EXPECT_EQ(entry.at("model").as_string(), "claude-sonnet-4");
  EXPECT_EQ(entry.at("task_class").as_string(), "coding");
  EXPECT_EQ(entry.at("slow_streak").as_int64(), 3);
  EXPECT_EQ(entry.at("degraded").as_bool(), true);
  EXPECT_TRUE(std::string_view(entry.at("updated").as_string()).ends_with("Z"));

  auto cleared = callGateway(restarted->port, adminCall("DELETE", "/admin/latency-penalties/" + id));
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(cleared->status(), 204) << cleared->body;
  EXPECT_TRUE(penalties(restarted->port).empty());
  stop(*restarted);
  // The clearing was written and the expired entry dropped: nothing is left to come back.
  EXPECT_EQ(sql("SELECT COUNT(*) FROM latency_penalties", true), 0);

  auto third = start();
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_TRUE(penalties(third->port).empty());
}

}  // namespace
}  // namespace llmux::e2e
