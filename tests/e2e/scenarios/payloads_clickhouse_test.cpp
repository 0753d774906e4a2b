// Payload capture (`payloads:`): a gateway serving through the mock provider writes the bodies of
// its sampled requests — the client's request and answer (attempt 0), each attempt's upstream
// request and answer (1…) — into a private ClickHouse 18.16 (tests/support/clickhouse_server),
// redacted and cut as configured; `sample: 0` captures nothing; and with ClickHouse down every
// request is still answered and logged while the payload batches are dropped and counted; and
// `retention.payloads_days` deletes the rows older than its days.
#include <gtest/gtest.h>

#include <csignal>
#include <string>

#include "e2e/support/e2e_test.h"
#include "failover_helpers.h"
#include "payloads/json_each_row.h"
#include "support/clickhouse_server.h"
#include "support/redis_server.h"

namespace llmux::e2e {
namespace {

using failover::callGateway;
using failover::clientCall;
using failover::ClientCall;
using test_support::ClickHouseServer;

constexpr char kClientSecret[] = "sk-client-field-secret-31337";
constexpr char kChannelKey[] = "sk-payload-channel-key-1";
constexpr char kAdminToken[] = "adm-payloads-token-1";

/// GET /admin/requests/{id}/payloads with the admin token.
Result<Response> adminPayloads(std::uint16_t port, std::string const& request_id) {
  ClientCall call;
  call.method = "GET";
  call.target = "/admin/requests/" + request_id + "/payloads";
  call.headers.add("Authorization", std::string("Bearer ") + kAdminToken);
  return callGateway(port, call);
}

/// One ClickHouse for the whole binary: it takes about a second to start.
class PayloadsE2e : public E2eTest {
 protected:
  static void SetUpTestSuite() { clickhouse_ = ClickHouseServer::start(start_error_); }
  static void TearDownTestSuite() { clickhouse_.reset(); }

  void SetUp() override {
    E2eTest::SetUp();
    ASSERT_TRUE(clickhouse_) << "cannot start ClickHouse: " << start_error_;  // never skipped
  }

  /// The rows of `sql` (tab-separated); fails the test when the query fails.
  static std::vector<std::string> rowsOf(std::string const& sql) {
    std::string error;
    auto rows = clickhouse_->query(sql, error);
    EXPECT_TRUE(rows) << sql << ": " << error;
    return rows ? *rows : std::vector<std::string>{};
  }

  /// A gateway with the mock's channels and `payloads_yaml` appended.
  GatewayConfig config(std::string const& base_url, std::string const& payloads_yaml) {
    auto chat = failover::channel("pl-chat", Protocol::OpenAiChat, base_url, {kChannelKey});
    auto anthropic = failover::channel("pl-anth", Protocol::Anthropic, base_url, {"sk-payload-anth-key"});
    // Its first request fails (503), so the second key answers: two attempts.
    auto flaky = failover::channel("pl-flaky", Protocol::OpenAiChat, base_url,
                                   {"sk-payload-flaky-1", "sk-payload-flaky-2"});
    flaky.headers = {{"x-mock-fault", "fail-nth=1:503@payloads-" + std::to_string(::getpid())}};
    GatewayConfig gateway = failover::gatewayConfig({chat, anthropic, flaky}, temp().path() + "/access.log");
    gateway.extra_yaml = "state_dir: " + yamlQuote(temp().path() + "/state") + "\nadmin_token: " +
                         kAdminToken + "\n" + payloads_yaml;
    return gateway;
  }

  static ClientCall pinned(bool stream, std::string const& channel, std::string const& extra_fields = "") {
    ClientCall call = clientCall(Protocol::OpenAiChat, stream);
    call.headers.add("X-Channel", channel);
    // A secret in the body, one level down, and one at the top.
    call.body.insert(1, " \"api_key\": \"" + std::string(kClientSecret) +
                            "\", \"metadata\": {\"api_key\": \"" + kClientSecret + "\"}," +
                            extra_fields);
    return call;
  }

  static std::string payloadsYaml(std::uint16_t port, std::string const& more = "") {
    return "payloads:\n  clickhouse_url: \"http://127.0.0.1:" + std::to_string(port) +
           "\"\n  max_bytes: 2048\n  redact: [api_key, authorization]\n" + more;
  }

  static inline std::unique_ptr<ClickHouseServer> clickhouse_;
  static inline std::string start_error_;
};

TEST_F(PayloadsE2e, BodiesOfEveryKindOfRequestLandInClickHouseRedactedAndCut) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGatewayYaml(toYaml(config(mock->baseUrl(), payloadsYaml(clickhouse_->httpPort()))));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  std::string const padding = "\"padding\": \"" + std::string(5000, 'p') + "\",";
  struct Case {
    std::string id;
    ClientCall call;
  };
  std::vector<Case> const cases = {
      {"pl-whole", pinned(false, "pl-chat")},
      {"pl-stream", pinned(true, "pl-chat")},
      {"pl-translated", pinned(false, "pl-anth")},
      {"pl-failover", pinned(false, "pl-flaky")},
      {"pl-big", pinned(false, "pl-chat", padding)},
  };
  for (auto const& c : cases) {
    auto answer = callGateway(gateway->port, c.call, c.id);
    ASSERT_TRUE(answer.ok()) << c.id << ": " << answer.error().message;
    EXPECT_EQ(answer->status(), 200) << c.id << ": " << answer->body;
  }
  // Two rows for the client's side and two per attempt: 4 + 4 + 4 + 6 + 4.
  EXPECT_EQ(failover::waitForMetric(gateway->port, "llmux_payloads_written_total", {}, 22, Millis(10'000)),
            22.0);

  std::string const ids = "('pl-whole','pl-stream','pl-translated','pl-failover','pl-big')";
  EXPECT_EQ(rowsOf("SELECT request_id, attempt, kind, truncated FROM default.llmux_payloads WHERE "
                   "request_id IN " + ids + " ORDER BY request_id, attempt, kind FORMAT TSV"),
            (std::vector<std::string>{
                "pl-big\t0\trequest\t1", "pl-big\t0\tresponse\t0", "pl-big\t1\trequest\t1",
                "pl-big\t1\tresponse\t0",
                "pl-failover\t0\trequest\t0", "pl-failover\t0\tresponse\t0",
                "pl-failover\t1\trequest\t0", "pl-failover\t1\tresponse\t0",
                "pl-failover\t2\trequest\t0", "pl-failover\t2\tresponse\t0",
                "pl-stream\t0\trequest\t0", "pl-stream\t0\tresponse\t0",
                "pl-stream\t1\trequest\t0", "pl-stream\t1\tresponse\t0",
                "pl-translated\t0\trequest\t0", "pl-translated\t0\tresponse\t0",
                "pl-translated\t1\trequest\t0", "pl-translated\t1\tresponse\t0",
                "pl-whole\t0\trequest\t0", "pl-whole\t0\tresponse\t0",
                "pl-whole\t1\trequest\t0", "pl-whole\t1\tresponse\t0"}));

  // No secret anywhere: the body field, the gateway key, the channel keys.
  EXPECT_EQ(rowsOf("SELECT count() FROM default.llmux_payloads WHERE request_id IN " + ids +
                   " AND (position(body, '" + kClientSecret + "') > 0 OR position(headers, '" +
                   failover::kGatewayKey + "') > 0 OR position(body, '" + failover::kGatewayKey +
                   "') > 0 OR position(body, 'sk-payload-') > 0) FORMAT TSV"),
            std::vector<std::string>{"0"});
  // The field is blanked where it was, at both depths, on the client's side and upstream.
  EXPECT_EQ(rowsOf("SELECT attempt, position(body, '\"api_key\": \"\", \"metadata\": {\"api_key\": "
                   "\"\"}') > 0 FROM default.llmux_payloads WHERE request_id = 'pl-whole' AND kind = "
                   "'request' ORDER BY attempt FORMAT TSV"),
            (std::vector<std::string>{"0\t1", "1\t1"}));
  // The client's headers on its request row, credentials blanked; no headers on other rows.
  auto headers = rowsOf("SELECT attempt, headers FROM default.llmux_payloads WHERE request_id = "
                        "'pl-whole' AND kind = 'request' ORDER BY attempt FORMAT TSV");
  ASSERT_EQ(headers.size(), 2u);
  EXPECT_NE(headers[0].find("\"authorization\":\"\""), std::string::npos) << headers[0];
  EXPECT_NE(headers[0].find("\"x-channel\":\"pl-chat\""), std::string::npos) << headers[0];
  EXPECT_EQ(headers[1], "1\t");

  // A stream is kept as the SSE text that passed, on both sides.
  EXPECT_EQ(rowsOf("SELECT attempt, startsWith(body, 'data: '), position(body, '[DONE]') > 0 FROM "
                   "default.llmux_payloads WHERE request_id = 'pl-stream' AND kind = 'response' "
                   "ORDER BY attempt FORMAT TSV"),
            (std::vector<std::string>{"0\t1\t1", "1\t1\t1"}));
  // Translated: the upstream spoke Anthropic, the client got OpenAI Chat.
  EXPECT_EQ(rowsOf("SELECT attempt, position(body, '\"max_tokens\"') > 0, position(body, "
                   "'\"type\":\"message\"') > 0, position(body, 'chat.completion') > 0 FROM "
                   "default.llmux_payloads WHERE request_id = 'pl-translated' ORDER BY attempt, "
                   "kind FORMAT TSV"),
            (std::vector<std::string>{"0\t0\t0\t0", "0\t0\t0\t1", "1\t1\t0\t0", "1\t0\t1\t0"}));
  // Failover: the second attempt answered the client.
  EXPECT_EQ(rowsOf("SELECT attempt, position(body, 'chat.completion') > 0 FROM "
                   "default.llmux_payloads WHERE request_id = 'pl-failover' AND kind = 'response' "
                   "ORDER BY attempt FORMAT TSV"),
            (std::vector<std::string>{"0\t1", "1\t0", "2\t1"}));
  // Cut at max_bytes (then redacted: shorter still), with the whole body's length.
  auto const big_length = std::to_string(cases[4].call.body.size());
  EXPECT_EQ(rowsOf("SELECT attempt, length(body) <= 2048, length(body) > 1900, body_bytes FROM "
                   "default.llmux_payloads WHERE request_id = 'pl-big' AND kind = 'request' ORDER "
                   "BY attempt FORMAT TSV"),
            (std::vector<std::string>{"0\t1\t1\t" + big_length, "1\t1\t1\t" + big_length}));

  // The admin API reads a request's bodies back from ClickHouse.
  auto read_back = adminPayloads(gateway->port, "pl-failover");
  ASSERT_TRUE(read_back.ok()) << read_back.error().message;
  ASSERT_EQ(read_back->status(), 200) << read_back->body;
  auto document = failover::parseObject(read_back->body);
  ASSERT_TRUE(document.ok()) << read_back->body;
  auto const& data = document->at("data").as_array();
  ASSERT_EQ(data.size(), 6u);
  EXPECT_EQ(data[0].at("attempt").as_int64(), 0);
  EXPECT_EQ(data[0].at("kind").as_string(), "request");
  EXPECT_NE(std::string(data[0].at("body").as_string()).find("\"api_key\": \"\""), std::string::npos);
  EXPECT_EQ(data[5].at("attempt").as_int64(), 2);
  EXPECT_EQ(data[5].at("kind").as_string(), "response");
  EXPECT_NE(std::string(data[5].at("body").as_string()).find("chat.completion"), std::string::npos);
  auto unknown = adminPayloads(gateway->port, "pl-never-sent");
  ASSERT_TRUE(unknown.ok()) << unknown.error().message;
  EXPECT_EQ(unknown->status(), 200) << unknown->body;
  EXPECT_NE(unknown->body.find("\"rows\": 0"), std::string::npos) << unknown->body;
}

TEST_F(PayloadsE2e, SampleZeroCapturesNothing) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startGatewayYaml(
      toYaml(config(mock->baseUrl(), payloadsYaml(clickhouse_->httpPort(), "  sample: 0\n"))));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  for (bool stream : {false, true, false}) {
    auto answer = callGateway(gateway->port, pinned(stream, "pl-chat"), "pl-unsampled");
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status(), 200) << answer->body;
  }
  EXPECT_EQ(failover::waitForMetric(gateway->port, "llmux_request_log_records_written_total", {}, 3),
            3.0);
  // Several of the writer's flush intervals: nothing was queued, so nothing arrives.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  auto metrics = failover::fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_payloads_written_total", {}), 0.0);
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_payloads_dropped_total", {}), 0.0);
  EXPECT_EQ(rowsOf("SELECT count() FROM default.llmux_payloads WHERE request_id = 'pl-unsampled' "
                   "FORMAT TSV"),
            std::vector<std::string>{"0"});
}

TEST_F(PayloadsE2e, ClickHouseDownDropsPayloadBatchesAndNothingElse) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  // Nothing listens there: every batch fails at once.
  std::uint16_t const nowhere = test_support::freeLoopbackPort();
  auto gateway = startGatewayYaml(toYaml(config(mock->baseUrl(), payloadsYaml(nowhere))));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  constexpr int kRequests = 6;
  for (int i = 0; i < kRequests; ++i) {
    auto started = std::chrono::steady_clock::now();
    auto answer = callGateway(gateway->port, pinned(i % 2 == 1, "pl-chat"),
                              "pl-down-" + std::to_string(i), Millis(3000));
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status(), 200) << answer->body;
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  }
  // Every request is in the request log ...
  EXPECT_EQ(failover::waitForMetric(gateway->port, "llmux_request_log_records_written_total", {},
                                    kRequests),
            static_cast<double>(kRequests));
  // ... and every captured body was dropped, in batches, and counted.
  EXPECT_EQ(failover::waitForMetric(gateway->port, "llmux_payloads_dropped_total", {}, kRequests * 4,
                                    Millis(10'000)),
            static_cast<double>(kRequests * 4));
  auto metrics = failover::fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_GE(failover::metricValue(*metrics, "llmux_payload_batches_dropped_total", {}).value_or(0), 1.0);
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_payloads_written_total", {}), 0.0);
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_log_records_dropped_total", {{"sink", "request_log"}}),
            0.0);
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_client_requests_total", {{"outcome", "success"}}),
            static_cast<double>(kRequests));
  // Reading bodies back says ClickHouse cannot be reached.
  auto read_back = adminPayloads(gateway->port, "pl-down-0");
  ASSERT_TRUE(read_back.ok()) << read_back.error().message;
  EXPECT_EQ(read_back->status(), 502) << read_back->body;

  // The gateway stops promptly: the last flush is bounded.
  auto stopping = std::chrono::steady_clock::now();
  ASSERT_TRUE(gateway->process->signal(SIGINT).ok());
  auto status = gateway->process->waitExit(Millis(10'000));
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - stopping, std::chrono::seconds(5));
}

TEST_F(PayloadsE2e, RowsOlderThanTheRetentionAreDeletedAndFreshOnesStay) {
  // Rows put straight into the gateway's table: two days old, and an hour old.
  rowsOf(payloads::createTableStatement("default", "llmux_payloads"));
  std::int64_t const now =
      std::chrono::duration_cast<std::chrono::seconds>(WallClock::now().time_since_epoch()).count();
  for (auto const& [id, age] : {std::pair{"pl-aged", 2 * 86'400}, std::pair{"pl-fresh", 3'600}}) {
    rowsOf("INSERT INTO default.llmux_payloads (ts, request_id, attempt, kind, headers, body, "
           "body_bytes, truncated, encoding) VALUES (toDateTime(" + std::to_string(now - age) +
           "), '" + id + "', 0, 'request', '', '{}', 2, 0, '')");
  }
  auto count = [](std::string const& id) {
    return rowsOf("SELECT count() FROM default.llmux_payloads WHERE request_id = '" + id +
                  "' FORMAT TSV");
  };
  ASSERT_EQ(count("pl-aged"), std::vector<std::string>{"1"});

  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  std::string const retention = "retention:\n  payloads_days: 1\n";
  auto gateway = startGatewayYaml(
      toYaml(config(mock->baseUrl(), payloadsYaml(clickhouse_->httpPort()) + retention)));
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  // The deletion is sent at start; ClickHouse applies the mutation in the background.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (count("pl-aged") != std::vector<std::string>{"0"} &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_EQ(count("pl-aged"), std::vector<std::string>{"0"}) << "older than a day: deleted";
  EXPECT_EQ(count("pl-fresh"), std::vector<std::string>{"1"}) << "an hour old: kept";

  // Captures go on as before, and nothing failed.
  auto answer = callGateway(gateway->port, pinned(false, "pl-chat"), "pl-after-expiry");
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 200) << answer->body;
  EXPECT_EQ(failover::waitForMetric(gateway->port, "llmux_payloads_written_total", {}, 4,
                                    Millis(10'000)),
            4.0);
  EXPECT_EQ(count("pl-after-expiry"), std::vector<std::string>{"4"});
  auto metrics = failover::fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_payload_expiry_failures_total", {}), 0.0);
}

}  // namespace
}  // namespace llmux::e2e
