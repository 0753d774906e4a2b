// The request log read back through the admin API end to end: requests sent through the gateway
// to the mock provider are found by GET /admin/requests with their attempts in order, one by
// GET /admin/requests/{id}, and counted by GET /admin/usage with the tokens the data path wrote.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using namespace routing_scenarios;

class RoutingRequestLog : public E2eTest {
 protected:
  /// The rows of the gateway key's requests, once `count` are written (the writer batches).
  boost::json::array waitForRows(std::uint16_t port, std::size_t count) {
    boost::json::array rows;
    for (int i = 0; i < 100; ++i) {
      auto page = adminJson(port, "GET", "/admin/requests?gateway_key=failover-client&state=done");
      if (page.contains("requests")) rows = page.at("requests").as_array();
      if (rows.size() >= count) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return rows;
  }

  int statusOf(std::uint16_t port, std::string target, std::string_view token = kAdminToken) {
    auto answer = callGateway(port, adminCall("GET", std::move(target), {}, token));
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    if (!answer.ok()) return 0;
    last_body_ = answer->body;
    return answer->status();
  }

  std::string last_body_;
};

boost::json::object const* rowWithId(boost::json::array const& rows, std::string_view id) {
  for (auto const& row : rows) {
    if (row.as_object().at("id").as_string() == id) return &row.as_object();
  }
  return nullptr;
}

TEST_F(RoutingRequestLog, RequestsAreFoundWithTheirAttemptsAndCountedInUsage) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto flaky = channel("flaky", Protocol::OpenAiChat, mock->baseUrl(), {"k-flaky-secret"}, 20);
  flaky.headers = {{"x-mock-fault", "500"}};
  auto steady = channel("steady", Protocol::OpenAiChat, mock->baseUrl(), {"k-steady-secret"});
  GatewayConfig config = gatewayConfig({flaky, steady}, temp().path() + "/access.log");
  config.extra_yaml += std::string("admin_token: ") + kAdminToken + "\n";
  auto gateway = startGateway(config);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  std::uint16_t const port = gateway->port;

  // The first fails over from the flaky channel; the others may go straight to the steady one
  // (the flaky one's breaker), and one asks for a model no channel serves.
  for (std::string id : {"log-1", "log-2", "log-3"}) {
    auto answer = callGateway(port, clientCall(Protocol::OpenAiChat, false), id);
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    ASSERT_EQ(answer->status(), 200) << answer->body;
  }
  auto unknown = callGateway(port, clientCall(Protocol::OpenAiChat, false, "no-such-model"), "log-404");
  ASSERT_TRUE(unknown.ok()) << unknown.error().message;
  int const unknown_status = unknown->status();
  EXPECT_GE(unknown_status, 400);
  EXPECT_LT(unknown_status, 500);

  auto rows = waitForRows(port, 4);
  ASSERT_EQ(rows.size(), 4u) << boost::json::serialize(rows);
  // Newest first, by seq: the order the rows were written. These requests end within 10 ms, so
  // each row is written when its request is accounted, just after its answer went out: the next
  // request, on another worker, may be written first (docs/admin-api.md).
  std::set<std::string> ids;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    ids.insert(std::string(rows[i].as_object().at("id").as_string()));
    if (i > 0) {
      EXPECT_LT(rows[i].as_object().at("seq").as_int64(), rows[i - 1].as_object().at("seq").as_int64());
    }
  }
  EXPECT_EQ(ids, (std::set<std::string>{"log-1", "log-2", "log-3", "log-404"}));
  auto const* first = rowWithId(rows, "log-1");
  ASSERT_NE(first, nullptr);
  EXPECT_EQ(first->at("status").as_int64(), 200);
  EXPECT_EQ(first->at("model").as_string(), kModel);
  EXPECT_EQ(first->at("channel").as_string(), "steady");
  EXPECT_EQ(first->at("gateway_key").as_string(), "failover-client");
  EXPECT_EQ(first->at("state").as_string(), "done");
  auto const& attempts = first->at("attempts").as_array();
  ASSERT_EQ(attempts.size(), 2u) << boost::json::serialize(*first);
  EXPECT_EQ(attempts[0].as_object().at("channel").as_string(), "flaky");
  EXPECT_EQ(attempts[0].as_object().at("status").as_int64(), 500);
  EXPECT_TRUE(attempts[0].as_object().at("outcome").as_string().starts_with("failover:"));
  EXPECT_EQ(attempts[1].as_object().at("channel").as_string(), "steady");
  EXPECT_EQ(attempts[1].as_object().at("outcome").as_string(), "ok");

  // One request by id; an unknown id is a 404.
  auto one = adminJson(port, "GET", "/admin/requests/log-1");
  EXPECT_EQ(one.at("seq"), first->at("seq"));
  EXPECT_EQ(one.at("attempts").as_array().size(), 2u);
  EXPECT_EQ(statusOf(port, "/admin/requests/never-sent"), 404);

  // Filters and paging.
  // (The admin calls are in the log too, without a gateway key.)
  auto failed = adminJson(port, "GET", "/admin/requests?status=4xx&gateway_key=failover-client");
  ASSERT_EQ(failed.at("requests").as_array().size(), 1u);
  EXPECT_EQ(failed.at("requests").as_array()[0].as_object().at("id").as_string(), "log-404");
  auto by_channel = adminJson(port, "GET", "/admin/requests?channel=steady&model=m-fail&status=200");
  EXPECT_EQ(by_channel.at("requests").as_array().size(), 3u);
  auto page = adminJson(port, "GET", "/admin/requests?gateway_key=failover-client&limit=3");
  ASSERT_EQ(page.at("requests").as_array().size(), 3u);
  ASSERT_TRUE(page.at("next_before").is_int64());
  auto rest = adminJson(port, "GET", "/admin/requests?gateway_key=failover-client&limit=3&before=" +
                                         std::to_string(page.at("next_before").as_int64()));
  ASSERT_EQ(rest.at("requests").as_array().size(), 1u);
  EXPECT_EQ(rest.at("requests").as_array()[0].as_object().at("id").as_string(), "log-1");
  EXPECT_TRUE(rest.at("next_before").is_null());

  // Usage: the same tokens the rows hold, outcomes as the SLOs count them.
  std::int64_t input = 0, output = 0;
  for (auto const& row : rows) {
    auto const& usage = row.as_object().at("usage");
    if (usage.is_null()) continue;
    input += usage.as_object().at("input_tokens").as_int64();
    output += usage.as_object().at("output_tokens").as_int64();
  }
  EXPECT_GT(input, 0);
  auto usage = adminJson(port, "GET", "/admin/usage?group_by=gateway_key&bucket=hour");
  ASSERT_FALSE(usage.at("truncated").as_bool());
  auto const& usage_rows = usage.at("rows").as_array();
  std::int64_t requests = 0, succeeded = 0, rejected = 0, usage_input = 0, usage_output = 0;
  for (auto const& value : usage_rows) {
    auto const& row = value.as_object();
    if (row.at("group").as_string() != "failover-client") continue;  // the admin calls
    EXPECT_TRUE(row.at("bucket").as_string().ends_with(":00:00.000Z")) << row.at("bucket");
    requests += row.at("requests").as_int64();
    succeeded += row.at("succeeded").as_int64();
    rejected += row.at("rejected").as_int64();
    usage_input += row.at("input_tokens").as_int64();
    usage_output += row.at("output_tokens").as_int64();
  }
  EXPECT_EQ(requests, 4);
  EXPECT_EQ(succeeded, 3);
  EXPECT_EQ(rejected, 1);
  EXPECT_EQ(usage_input, input);
  EXPECT_EQ(usage_output, output);
  auto by_model = adminJson(port, "GET", "/admin/usage?group_by=model");
  std::map<std::string, std::int64_t> per_model;
  for (auto const& value : by_model.at("rows").as_array()) {
    per_model[std::string(value.as_object().at("group").as_string())] +=
        value.as_object().at("requests").as_int64();
  }
  EXPECT_EQ(per_model["m-fail"], 3);
  EXPECT_EQ(per_model["no-such-model"], 1);

  // Never a secret: neither the keys' nor the gateway key's.
  std::string const all = boost::json::serialize(rows);
  for (char const* secret : {"k-flaky-secret", "k-steady-secret", kGatewayKey}) {
    EXPECT_EQ(all.find(secret), std::string::npos) << secret;
  }

  // Bad parameters are named; without the admin token nothing is read.
  EXPECT_EQ(statusOf(port, "/admin/requests?limit=0"), 400);
  EXPECT_NE(last_body_.find("'limit'"), std::string::npos) << last_body_;
  EXPECT_EQ(statusOf(port, "/admin/usage?bucket=week"), 400);
  EXPECT_NE(last_body_.find("'bucket'"), std::string::npos) << last_body_;
  EXPECT_EQ(statusOf(port, "/admin/requests", ""), 401);
  EXPECT_EQ(statusOf(port, "/admin/usage", ""), 401);
  EXPECT_EQ(statusOf(port, "/admin/requests/log-1", ""), 401);
}

}  // namespace
}  // namespace llmux::e2e
