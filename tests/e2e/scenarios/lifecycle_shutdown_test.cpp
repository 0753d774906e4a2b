// SIGTERM/SIGINT drain: requests in flight finish within the drain timeout; past it they are
// cancelled cleanly (the stream ends with its protocol's error event, the request is logged).
#include <signal.h>

#include <atomic>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "e2e/scenarios/mock_journal.h"
#include "e2e/support/sse_reader.h"
#include "lifecycle_support.h"

namespace llmux::e2e {
namespace {

using namespace lifecycle;

std::string readFile(std::string const& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ShutdownTest : public E2eTest {
 protected:
  Result<Server> startWithDrain(std::uint16_t mock_port, int drain_ms, int lame_duck_ms = 0) {
    access_log_ = temp().path() + "/access.log";
    GatewayConfig config;
    config.gateway_keys = {{"dev", kGatewayKey}};
    ChannelSpec anthropic;
    anthropic.name = "claude";
    anthropic.protocol = Protocol::Anthropic;
    anthropic.base_url = loopbackUrl(mock_port);
    anthropic.keys = {"mock-key"};
    anthropic.models = {"claude-x"};
    config.channels = {anthropic};
    config.extra_yaml = "server: {drain_timeout_ms: " + std::to_string(drain_ms) +
                        ", lame_duck_ms: " + std::to_string(lame_duck_ms) +
                        "}\nlog: {access_log: " + yamlQuote(access_log_) + "}\n";
    return startGateway(config);
  }
  /// Starts a paced Anthropic stream (one event every `delay_ms`) and reads its head.
  Result<HttpClient> startStream(std::uint16_t port, int delay_ms, std::string fault = {}) {
    auto client = HttpClient::connect(port);
    if (!client) return client.error();
    HeaderList headers;
    headers.add("x-api-key", kGatewayKey);
    headers.add("anthropic-version", "2023-06-01");
    headers.add("content-type", "application/json");
    headers.add("x-mock-chunk-delay", std::to_string(delay_ms));
    if (!fault.empty()) headers.add("x-mock-fault", fault);
    headers.add("x-request-id", "drain-request");
    auto sent = client->sendRequest("POST", "/v1/messages", headers,
                                    R"({"model":"claude-x","max_tokens":64,"stream":true,)"
                                    R"("messages":[{"role":"user","content":"a long answer please"}]})");
    if (!sent) return sent.error();
    auto head = client->readHead();
    if (!head) return head.error();
    if (head->status != 200) return makeError(ErrorKind::Internal, "status " + std::to_string(head->status));
    return std::move(*client);
  }
  std::string access_log_;
};

TEST_F(ShutdownTest, StreamInFlightFinishesThenTheProcessExits) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startWithDrain(mock->port, 10'000);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto stream = startStream(gateway->port, 60);
  ASSERT_TRUE(stream.ok()) << stream.error().message;

  ASSERT_TRUE(gateway->process->signal(SIGTERM).ok());
  // New connections are refused once draining began (the listener is closed).
  ASSERT_TRUE(eventually([&] { return !HttpClient::connect(gateway->port, Millis(200)).ok(); }));

  auto body = stream->readBody(Millis(10'000));
  ASSERT_TRUE(body.ok()) << body.error().message;
  EXPECT_NE(body->find("event: message_stop"), std::string::npos) << *body;
  EXPECT_EQ(body->find("event: error"), std::string::npos) << *body;

  auto exit = gateway->process->waitExit(Millis(10'000));
  ASSERT_TRUE(exit.ok()) << exit.error().message;
  EXPECT_EQ(exit->code, 0);
  std::string log = readFile(access_log_);
  EXPECT_NE(log.find("\"request_id\":\"drain-request\""), std::string::npos) << log;
  EXPECT_NE(log.find("\"status\":200"), std::string::npos) << log;
}

TEST_F(ShutdownTest, StreamPastTheDrainTimeoutIsCancelledCleanly) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startWithDrain(mock->port, 300);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  // The stream starts, then stalls far longer than the drain timeout.
  auto stream = startStream(gateway->port, 0, "stall=10000");
  ASSERT_TRUE(stream.ok()) << stream.error().message;

  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(gateway->process->signal(SIGTERM).ok());
  auto body = stream->readBody(Millis(10'000));
  ASSERT_TRUE(body.ok()) << body.error().message;  // a clean end of the chunked body
  EXPECT_NE(body->find("event: error"), std::string::npos) << *body;
  EXPECT_NE(body->find("shutting down"), std::string::npos) << *body;
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(3));

  auto exit = gateway->process->waitExit(Millis(10'000));
  ASSERT_TRUE(exit.ok()) << exit.error().message;
  EXPECT_EQ(exit->code, 0);
  // The upstream connection was closed, and the request was logged.
  std::string journal;  // what the last look at the journal saw
  EXPECT_TRUE(eventually([&] {
    auto entries = fetchJournal(mock->port);
    if (!entries) {
      journal = entries.error().message;
      return false;
    }
    journal = std::to_string(entries->size()) + " entries, outcomes:";
    for (auto const& e : *entries) journal += " " + e.outcome;
    return entries->size() == 1 && (*entries)[0].outcome == "client_gone";
  })) << journal;
  std::string log = readFile(access_log_);
  EXPECT_NE(log.find("\"request_id\":\"drain-request\""), std::string::npos) << log;
  EXPECT_NE(log.find("shutdown"), std::string::npos) << log;
}

TEST_F(ShutdownTest, IdleGatewayExitsAtOnceOnSigint) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startWithDrain(mock->port, 30'000);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto keep_alive = HttpClient::connect(gateway->port);  // an idle keep-alive connection
  ASSERT_TRUE(keep_alive.ok());
  ASSERT_TRUE(keep_alive->request("GET", "/healthz").ok());
  // A forwarded request leaves an idle pooled upstream connection behind: it must not hold the
  // worker loops past the drain (they used to wait for its timer, then be stopped by force).
  HeaderList headers;
  headers.add("x-api-key", kGatewayKey);
  headers.add("anthropic-version", "2023-06-01");
  headers.add("content-type", "application/json");
  auto forwarded = keep_alive->request(
      "POST", "/v1/messages", headers,
      R"({"model":"claude-x","max_tokens":16,"messages":[{"role":"user","content":"hi"}]})");
  ASSERT_TRUE(forwarded.ok()) << forwarded.error().message;
  ASSERT_EQ(forwarded->status(), 200) << forwarded->body;
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(gateway->process->signal(SIGINT).ok());
  auto exit = gateway->process->waitExit(Millis(5'000));
  ASSERT_TRUE(exit.ok()) << exit.error().message;
  EXPECT_EQ(exit->code, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(2));
  EXPECT_TRUE(keep_alive->waitForClose(Millis(1000)).ok());
  std::string const log = gateway->process->output(Stream::Stderr);
  EXPECT_EQ(log.find("still had work"), std::string::npos) << log;
}


HeaderList anthropicHeaders(std::string const& request_id) {
  HeaderList headers;
  headers.add("x-api-key", kGatewayKey);
  headers.add("anthropic-version", "2023-06-01");
  headers.add("content-type", "application/json");
  headers.add("x-request-id", request_id);
  return headers;
}

constexpr char kShortRequest[] =
    R"({"model":"claude-x","max_tokens":16,"messages":[{"role":"user","content":"hi"}]})";

TEST_F(ShutdownTest, TheLameDuckFailsReadinessAndStillServesWithConnectionClose) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startWithDrain(mock->port, 5'000, 1'500);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(gateway->process->signal(SIGTERM).ok());
  // Readiness fails at once...
  ASSERT_TRUE(eventually([&] {
    auto client = HttpClient::connect(gateway->port, Millis(200));
    if (!client.ok()) return false;
    auto ready = client->request("GET", "/readyz");
    return ready.ok() && ready->status() == 503;
  }));
  // ... while new connections are still accepted and served, each answer closing its connection.
  auto client = HttpClient::connect(gateway->port, Millis(500));
  ASSERT_TRUE(client.ok()) << client.error().message;
  auto served = client->request("POST", "/v1/messages", anthropicHeaders("lame-duck"), kShortRequest);
  ASSERT_TRUE(served.ok()) << served.error().message;
  EXPECT_EQ(served->status(), 200);
  EXPECT_EQ(served->header("connection"), "close");
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1'500));
  // After it the listener is closed and the process exits.
  ASSERT_TRUE(eventually([&] { return !HttpClient::connect(gateway->port, Millis(200)).ok(); },
                         Millis(5'000)));
  auto exit = gateway->process->waitExit(Millis(10'000));
  ASSERT_TRUE(exit.ok()) << exit.error().message;
  EXPECT_EQ(exit->code, 0);
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(1'500));
}

TEST_F(ShutdownTest, AnUploadInProgressFinishesDuringTheDrain) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startWithDrain(mock->port, 5'000);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;
  auto client = HttpClient::connect(gateway->port);
  ASSERT_TRUE(client.ok());
  std::string body = kShortRequest;
  HeaderList headers = anthropicHeaders("upload");
  headers.add("content-length", std::to_string(body.size()));
  ASSERT_TRUE(client->sendRaw(formatRequest("POST", "/v1/messages", headers, {}, gateway->port) +
                              body.substr(0, 20)).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(gateway->process->signal(SIGTERM).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // the drain has begun
  ASSERT_TRUE(client->sendRaw(body.substr(20)).ok());
  auto response = client->readResponse();
  ASSERT_TRUE(response.ok()) << response.error().message;
  EXPECT_EQ(response->status(), 200) << response->body;
  EXPECT_EQ(response->header("connection"), "close");
  auto exit = gateway->process->waitExit(Millis(10'000));
  ASSERT_TRUE(exit.ok()) << exit.error().message;
  EXPECT_EQ(exit->code, 0);
}

TEST_F(ShutdownTest, UnderLoadEveryAnsweredRequestHasItsRequestLogRow) {
  auto mock = startMockProvider();
  ASSERT_TRUE(mock.ok()) << mock.error().message;
  auto gateway = startWithDrain(mock->port, 5'000, 600);
  ASSERT_TRUE(gateway.ok()) << gateway.error().message;

  std::mutex mutex;
  std::set<std::string> answered;  // request ids whose whole answer a client received
  std::atomic<int> sequence{0};
  std::atomic<bool> stop{false};
  auto load = [&] {
    std::optional<HttpClient> client;
    while (!stop) {
      if (!client) {
        auto connected = HttpClient::connect(gateway->port, Millis(300));
        if (!connected.ok()) return;  // the listener is closed: the drain began
        client.emplace(std::move(*connected));
      }
      std::string id = "load-" + std::to_string(sequence++);
      auto response = client->request("POST", "/v1/messages", anthropicHeaders(id), kShortRequest,
                                       Millis(5'000));
      if (!response.ok()) {
        client.reset();
        continue;
      }
      {
        std::lock_guard lock(mutex);
        answered.insert(id);
      }
      if (response->header("connection") == "close") client.reset();
    }
  };
  std::vector<std::thread> clients;
  for (int i = 0; i < 4; ++i) clients.emplace_back(load);
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  ASSERT_TRUE(gateway->process->signal(SIGTERM).ok());
  auto exit = gateway->process->waitExit(Millis(15'000));
  stop = true;
  for (auto& t : clients) t.join();
  ASSERT_TRUE(exit.ok()) << exit.error().message;
  EXPECT_EQ(exit->code, 0);
  ASSERT_GT(answered.size(), 20u);

  std::string db = temp().path() + "/llmux-home/llmux.db";
  auto shell = spawn(ChildOptions{"sqlite3", {"-readonly", db, "SELECT id FROM requests"}});
  ASSERT_TRUE(shell.ok()) << "reading llmux.db needs the sqlite3 shell (scripts/bootstrap installs it)";
  auto status = (*shell)->waitExit(Millis(10'000));
  ASSERT_TRUE(status.ok() && status->code == 0) << (*shell)->output(Stream::Stderr);
  std::set<std::string> logged;
  for (auto const& line : (*shell)->lines()) logged.insert(line);
  std::vector<std::string> missing;
  for (auto const& id : answered) {
    if (!logged.contains(id)) missing.push_back(id);
  }
  EXPECT_TRUE(missing.empty()) << missing.size() << " of " << answered.size()
                               << " answered requests have no row, e.g. " << missing.front();
}

}  // namespace
}  // namespace llmux::e2e
