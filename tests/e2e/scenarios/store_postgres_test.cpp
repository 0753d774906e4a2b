// The request log in PostgreSQL (`database:`): a gateway serving through the mock provider writes
// its request and attempt rows into a private PostgreSQL (tests/support/postgres_server), keeps
// serving a load while the server is gone, writes every row once it is back, and never shows
// the URL's password.
#include <gtest/gtest.h>

#include <atomic>
#include <csignal>
#include <string>
#include <thread>

#include "e2e/support/e2e_test.h"
#include "failover_helpers.h"
#include "support/postgres_server.h"

namespace llmux::e2e {
namespace {

using failover::callGateway;
using failover::clientCall;
using test_support::PostgresServer;

constexpr char kPassword[] = "pg-password-e2e-4711";

/// The rows of `sql` as "a|b|c" lines (NULL as "\N"); fails the test when the query fails.
std::vector<std::string> rowsOf(PostgresServer const& server, std::string const& sql) {
  std::string error;
  auto lines = test_support::postgresLines(server.url("llmux"), sql, error);
  EXPECT_TRUE(lines) << sql << ": " << error;
  return lines ? *lines : std::vector<std::string>{};
}

TEST_F(E2eTest, RequestLogRowsGoToPostgresqlAndServingNeverWaitsForIt) {
  std::string error;
  auto pg = PostgresServer::start(error);
  ASSERT_TRUE(pg) << "cannot start PostgreSQL: " << error;  // never skipped
  ASSERT_TRUE(pg->createDatabase("llmux", error)) << error;

  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  GatewayConfig config = failover::gatewayConfig(
      {failover::channel("pg-a", Protocol::OpenAiChat, mock->baseUrl(), {"sk-pg-channel-key-1"})},
      temp().path() + "/access.log");
  config.extra_yaml = "state_dir: " + yamlQuote(temp().path() + "/state") +
                      "\ndatabase: {url_env: LLMUX_DATABASE_URL}\n";
  // Trust authentication ignores the password; it is there to be kept out of every output.
  std::string const url = "postgres://llmux:" + std::string(kPassword) +
                          "@127.0.0.1:" + std::to_string(pg->port()) + "/llmux";
  std::vector<std::pair<std::string, std::string>> const env = {{"LLMUX_DATABASE_URL", url}};

  // check-config says where the request log goes, with the password masked.
  ChildOptions check{binary(), {"check-config", writeTempFile(toYaml(config))}};
  check.env = env;
  auto checker = spawn(std::move(check));
  ASSERT_TRUE(checker.ok()) << checker.error().message;
  auto checked = (*checker)->waitExit(Millis(10'000));
  ASSERT_TRUE(checked.ok()) << checked.error().message;
  EXPECT_EQ(checked->code, 0) << (*checker)->output(Stream::Stderr);
  std::string const check_output = (*checker)->output();
  EXPECT_NE(check_output.find("request log store: PostgreSQL at postgres://llmux:***@127.0.0.1:" +
                              std::to_string(pg->port()) + "/llmux (from $LLMUX_DATABASE_URL)"),
            std::string::npos)
      << check_output;
  EXPECT_NE(check_output.find("shared state (freezes, racing switches and latency penalties, video "
                              "jobs): PostgreSQL, read back every 500 ms; replica heartbeat every 2000 ms, lapsed after 15000 ms"),
            std::string::npos)
      << check_output;
  EXPECT_EQ(check_output.find(kPassword), std::string::npos) << check_output;

  auto gateway = startGatewayYaml(toYaml(config), {}, env);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  for (bool stream : {false, true}) {
    auto answer = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, stream),
                              stream ? "pg-stream-1" : "pg-whole-1");
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status(), 200) << answer->body;
  }
  EXPECT_EQ(
      failover::waitForMetric(gateway->port, "llmux_request_log_records_written_total", {}, 2),
      2.0);
  EXPECT_EQ(rowsOf(*pg,
                   "SELECT id, route, client_protocol, model, stream, channel, key_label, "
                   "status FROM requests ORDER BY seq"),
            (std::vector<std::string>{
                "pg-whole-1|/v1/chat/completions|openai-chat|m-fail|0|pg-a|pg-a#0|200",
                "pg-stream-1|/v1/chat/completions|openai-chat|m-fail|1|pg-a|pg-a#0|200"}));
  EXPECT_EQ(rowsOf(*pg,
                   "SELECT a.request_id, a.attempt, a.channel, a.status, a.outcome FROM "
                   "attempts a JOIN requests r ON r.seq = a.request_seq ORDER BY r.seq"),
            (std::vector<std::string>{"pg-whole-1|1|pg-a|200|ok", "pg-stream-1|1|pg-a|200|ok"}));

  // The server goes away in the middle of a load: every request is served as before, their
  // rows wait in the queue ...
  constexpr int kClients = 3;
  constexpr int kPerClient = 20;
  std::atomic<int> answered{0};
  std::vector<std::thread> clients;
  for (int c = 0; c < kClients; ++c) {
    clients.emplace_back([&, c] {
      for (int i = 0; i < kPerClient; ++i) {
        auto answer = callGateway(gateway->port, clientCall(Protocol::OpenAiChat, i % 2 == 1),
                                  "pg-load-" + std::to_string(c) + "-" + std::to_string(i),
                                  Millis(5000));
        if (answer.ok() && answer->status() == 200) answered.fetch_add(1);
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(pg->stop(error)) << error;
  for (auto& client : clients) client.join();
  EXPECT_EQ(answered.load(), kClients * kPerClient) << "no client request is lost";
  // ... and are written once it is back (the writer reconnects within its 5 s backoff).
  ASSERT_TRUE(pg->restart(error)) << error;
  double const total = 2 + kClients * kPerClient;
  EXPECT_EQ(failover::waitForMetric(gateway->port, "llmux_request_log_records_written_total", {},
                                    total, Millis(20'000)),
            total);
  EXPECT_EQ(rowsOf(*pg, "SELECT COUNT(*) FROM requests WHERE id LIKE 'pg-load-%' AND state = "
                        "'done' AND status = 200"),
            std::vector<std::string>{std::to_string(kClients * kPerClient)});
  auto metrics = failover::fetchMetrics(gateway->port);
  ASSERT_TRUE(metrics.ok()) << metrics.error().message;
  EXPECT_EQ(
      failover::metricValue(*metrics, "llmux_log_records_dropped_total", {{"sink", "request_log"}}),
      0.0);
  EXPECT_EQ(failover::metricValue(*metrics, "llmux_store_write_failures_total",
                                  {{"store", "request_log"}}),
            0.0);

  ASSERT_TRUE(gateway->process->signal(SIGINT).ok());
  auto status = gateway->process->waitExit(Millis(10'000));
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0);
  // The SQLite state database holds no request rows: they all went to PostgreSQL.
  auto shell = spawn(ChildOptions{
      "sqlite3",
      {"-readonly", temp().path() + "/state/llmux.db", "SELECT COUNT(*) FROM requests"}});
  ASSERT_TRUE(shell.ok()) << "reading llmux.db needs the sqlite3 shell: " << shell.error().message;
  auto shell_status = (*shell)->waitExit(Millis(10'000));
  ASSERT_TRUE(shell_status.ok()) << shell_status.error().message;
  EXPECT_EQ((*shell)->output(), "0\n") << (*shell)->output(Stream::Stderr);
  // Where the log goes is said with the password masked; the password itself never shows.
  std::string const output =
      gateway->process->output(Stream::Stdout) + gateway->process->output(Stream::Stderr);
  EXPECT_NE(output.find("PostgreSQL at postgres://llmux:***@127.0.0.1:"), std::string::npos)
      << output;
  EXPECT_EQ(output.find(kPassword), std::string::npos) << output;
}

}  // namespace
}  // namespace llmux::e2e
