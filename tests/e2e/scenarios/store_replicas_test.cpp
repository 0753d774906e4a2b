// Three replicas on one PostgreSQL (`database:`): a request's row and its attempts show while its
// stream still runs, numbered across failover, and end as the same row; a 403 freeze made by one
// replica stops the others from using the key within a second, and a lift on another frees it
// everywhere; a replica killed mid-stream has its running row closed as interrupted by the others.
#include <gtest/gtest.h>

#include <csignal>
#include <string>
#include <thread>

#include "e2e/scenarios/failover_helpers.h"
#include "e2e/scenarios/mock_journal.h"
#include "e2e/scenarios/routing_support.h"
#include "e2e/support/e2e_test.h"
#include "e2e/support/http_client.h"
#include "e2e/support/sse_reader.h"
#include "support/postgres_server.h"

namespace llmux::e2e {
namespace {

using namespace failover;
using routing_scenarios::adminCall;
using routing_scenarios::kAdminToken;
using test_support::PostgresServer;

class StoreReplicas : public E2eTest {
 protected:
  void SetUp() override {
    E2eTest::SetUp();
    std::string error;
    pg_ = PostgresServer::start(error);
    ASSERT_TRUE(pg_) << "cannot start PostgreSQL: " << error;  // never skipped
    ASSERT_TRUE(pg_->createDatabase("llmux", error)) << error;
    auto mock = startMockProvider();
    ASSERT_TRUE(mock.ok()) << mock.error().message;
    mock_ = std::move(*mock);
  }

  /// Replica `name`'s configuration: the channels of `channels`, short heartbeats and syncs.
  std::string replicaYaml(std::string const& name, std::vector<ChannelSpec> channels) {
    GatewayConfig config = gatewayConfig(std::move(channels), temp().path() + "/" + name + ".log");
    config.extra_yaml = "state_dir: " + yamlQuote(temp().path() + "/state-" + name) +
                        "\nadmin_token: " + kAdminToken +
                        "\ndatabase: {url_env: LLMUX_DATABASE_URL, replica: " + name +
                        ", heartbeat_ms: 200, heartbeat_lapse_ms: 1500, sync_interval_ms: 200}\n";
    return toYaml(config);
  }

  Result<Server> startReplica(std::string const& name, std::vector<ChannelSpec> channels) {
    // Trust authentication ignores the password; it makes the URL a secret the sweep looks for.
    std::string const url = "postgres://llmux:pw-replicas-5150@127.0.0.1:" +
                            std::to_string(pg_->port()) + "/llmux";
    return startGatewayYaml(replicaYaml(name, std::move(channels)), {},
                            {{"LLMUX_DATABASE_URL", url}});
  }

  /// The rows of `sql` as "a|b|c" lines (NULL as "\N").
  std::vector<std::string> rows(std::string const& sql) {
    std::string error;
    auto lines = test_support::postgresLines(pg_->url("llmux"), sql, error);
    EXPECT_TRUE(lines) << sql << ": " << error;
    return lines ? *lines : std::vector<std::string>{};
  }

  /// Polls `sql` until it gives `expected` (or `timeout` passes); returns what it gave last.
  std::vector<std::string> waitForRows(std::string const& sql,
                                       std::vector<std::string> const& expected,
                                       Millis timeout = Millis(10'000)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    auto got = rows(sql);
    while (got != expected && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
      got = rows(sql);
    }
    return got;
  }

  /// GET /admin/freezes on `port`: the ids listed.
  std::vector<std::string> freezeIds(std::uint16_t port) {
    auto answer = callGateway(port, adminCall("GET", "/admin/freezes"));
    EXPECT_TRUE(answer.ok()) << answer.error().message;
    std::vector<std::string> ids;
    if (!answer.ok()) return ids;
    auto doc = parseObject(answer->body);
    EXPECT_TRUE(doc.ok()) << answer->body;
    if (!doc.ok()) return ids;
    for (auto const& f : doc->at("freezes").as_array()) {
      ids.emplace_back(f.as_object().at("id").as_string());
    }
    return ids;
  }

  /// Starts a streamed request on its own connection and reads its head: the stream then runs
  /// while the test looks at the database.
  HttpClient startStream(std::uint16_t port, std::string const& request_id) {
    auto call = clientCall(Protocol::OpenAiChat, true);
    call.headers.add("X-Request-Id", request_id);
    auto client = HttpClient::connect(port);
    EXPECT_TRUE(client.ok()) << client.error().message;
    EXPECT_TRUE(client->sendRequest("POST", call.target, call.headers, call.body).ok());
    auto head = client->readHead(Millis(5000));
    EXPECT_TRUE(head.ok()) << head.error().message;
    if (head.ok()) EXPECT_EQ(head->status, 200);
    return std::move(*client);
  }

  std::unique_ptr<PostgresServer> pg_;
  Server mock_;
};

TEST_F(StoreReplicas, ARequestsRowsShowWhileItsStreamRunsNumberedAcrossFailover) {
  // The first channel fails (503) and the request fails over to a slow stream: 300 ms a chunk.
  auto failing = channel("failing", Protocol::OpenAiChat, mock_.baseUrl(), {"k-failing"}, 10);
  failing.headers = {{"x-mock-fault", "503"}};
  auto paced = channel("paced", Protocol::OpenAiChat, mock_.baseUrl(), {"k-paced"}, 0);
  paced.headers = {{"x-mock-chunk-delay", "300"}};
  std::vector<Server> replicas;
  for (std::string name : {"r1", "r2", "r3"}) {
    auto replica = startReplica(name, {failing, paced});
    ASSERT_TRUE(replica.ok()) << replica.error().message;
    replicas.push_back(std::move(*replica));
  }

  HttpClient stream = startStream(replicas[1].port, "live-1");
  // Running: the request's row and both attempts are there while the stream goes on.
  EXPECT_EQ(waitForRows("SELECT state, replica, status FROM requests WHERE id = 'live-1'",
                        {"in_progress|r2|0"}),
            std::vector<std::string>{"in_progress|r2|0"});
  EXPECT_EQ(waitForRows("SELECT attempt, channel, outcome FROM attempts WHERE request_id = "
                        "'live-1' ORDER BY attempt",
                        {"1|failing|failover:status_503", "2|paced|in_progress"}),
            (std::vector<std::string>{"1|failing|failover:status_503", "2|paced|in_progress"}));
  std::string const seq = rows("SELECT seq FROM requests WHERE id = 'live-1'").at(0);

  SseReader sse(stream);
  for (;;) {
    auto event = sse.next(Millis(10'000));
    ASSERT_TRUE(event.ok()) << event.error().message;
    if (!event->has_value()) break;
  }
  // Ended: the same row, done, with its attempts' outcomes.
  EXPECT_EQ(waitForRows("SELECT seq, state, status, channel FROM requests WHERE id = 'live-1'",
                        {seq + "|done|200|paced"}),
            std::vector<std::string>{seq + "|done|200|paced"});
  EXPECT_EQ(rows("SELECT attempt, channel, outcome FROM attempts WHERE request_id = 'live-1' "
                 "ORDER BY attempt"),
            (std::vector<std::string>{"1|failing|failover:status_503", "2|paced|ok"}));
  EXPECT_EQ(rows("SELECT id FROM replicas ORDER BY id"),
            (std::vector<std::string>{"r1", "r2", "r3"}));

  // A replica killed mid-stream: once its heartbeat lapses, another closes its running row.
  HttpClient cut = startStream(replicas[2].port, "cut-1");
  EXPECT_EQ(waitForRows("SELECT state FROM requests WHERE id = 'cut-1'", {"in_progress"}),
            std::vector<std::string>{"in_progress"});
  ASSERT_TRUE(replicas[2].process->signal(SIGKILL).ok());
  EXPECT_EQ(waitForRows("SELECT state, error FROM requests WHERE id = 'cut-1'",
                        {"interrupted|interrupted: its replica stopped before it ended"}),
            std::vector<std::string>{"interrupted|interrupted: its replica stopped before it ended"});
  EXPECT_EQ(rows("SELECT outcome FROM attempts WHERE request_id = 'cut-1' ORDER BY attempt"),
            (std::vector<std::string>{"failover:status_503", "interrupted"}));
  EXPECT_EQ(waitForRows("SELECT id FROM replicas ORDER BY id", {"r1", "r2"}),
            (std::vector<std::string>{"r1", "r2"}));
  double closed = 0;
  for (int i : {0, 1}) {
    auto metrics = fetchMetrics(replicas[i].port);
    ASSERT_TRUE(metrics.ok()) << metrics.error().message;
    closed += metricValue(*metrics, "llmux_request_log_requests_interrupted_total", {}).value_or(0);
  }
  EXPECT_EQ(closed, 1.0) << "one survivor closed it, once";
}

TEST_F(StoreReplicas, AFreezeMadeByOneReplicaHoldsOnEveryOtherAndALiftAnywhereFreesIt) {
  // The mock answers 403 to a key containing "forbidden": the default rule freezes the key.
  auto banned = channel("banned", Protocol::OpenAiChat, mock_.baseUrl(), {"k-forbidden"}, 10);
  auto live = channel("live", Protocol::OpenAiChat, mock_.baseUrl(), {"k-live"}, 0);
  std::vector<Server> replicas;
  for (std::string name : {"r1", "r2", "r3"}) {
    auto replica = startReplica(name, {banned, live});
    ASSERT_TRUE(replica.ok()) << replica.error().message;
    replicas.push_back(std::move(*replica));
  }
  auto call = clientCall(Protocol::OpenAiChat, false);
  auto first = callGateway(replicas[0].port, call, "frz-a");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->status(), 200) << first->body;
  auto frozen_at = std::chrono::steady_clock::now();
  auto ids = freezeIds(replicas[0].port);
  ASSERT_EQ(ids.size(), 1u);

  // The other replicas hold the freeze within a second: their requests never reach the key.
  while ((freezeIds(replicas[1].port) != ids || freezeIds(replicas[2].port) != ids) &&
         std::chrono::steady_clock::now() - frozen_at < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - frozen_at, std::chrono::seconds(1));
  ASSERT_EQ(freezeIds(replicas[2].port), ids);
  ASSERT_TRUE(clearJournal(mock_.port).ok());
  for (int i = 0; i < 3; ++i) {
    auto answer = callGateway(replicas[1].port, call, "frz-b-" + std::to_string(i));
    ASSERT_TRUE(answer.ok()) << answer.error().message;
    EXPECT_EQ(answer->status(), 200) << answer->body;
  }
  auto journal = waitForJournal(mock_.port, 3);
  ASSERT_TRUE(journal.ok()) << journal.error().message;
  EXPECT_EQ(keysOf(*journal), (std::vector<std::string>{"k-live", "k-live", "k-live"}));

  // Lifted on C: freed on A and B within a second, and the key is tried again.
  auto lifted = callGateway(replicas[2].port, adminCall("DELETE", "/admin/freezes/" + ids[0]));
  ASSERT_TRUE(lifted.ok()) << lifted.error().message;
  EXPECT_EQ(lifted->status(), 204) << lifted->body;
  auto lifted_at = std::chrono::steady_clock::now();
  while ((!freezeIds(replicas[0].port).empty() || !freezeIds(replicas[1].port).empty()) &&
         std::chrono::steady_clock::now() - lifted_at < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - lifted_at, std::chrono::seconds(1));
  EXPECT_TRUE(freezeIds(replicas[0].port).empty());
  EXPECT_EQ(rows("SELECT COUNT(*) FROM freezes"), std::vector<std::string>{"0"});
  ASSERT_TRUE(clearJournal(mock_.port).ok());
  auto again = callGateway(replicas[0].port, call, "frz-again");
  ASSERT_TRUE(again.ok()) << again.error().message;
  auto tried = waitForJournal(mock_.port, 2);
  ASSERT_TRUE(tried.ok()) << tried.error().message;
  EXPECT_EQ(keysOf(*tried).front(), "k-forbidden") << "the lifted key is in rotation again";
}

TEST_F(StoreReplicas, RacingSwitchesAndAdminObjectsSetThroughOneReplicaHoldOnTheOthers) {
  auto live = channel("live", Protocol::OpenAiChat, mock_.baseUrl(), {"k-live"}, 0);
  std::vector<Server> replicas;
  for (std::string name : {"r1", "r2"}) {
    auto replica = startReplica(name, {live});
    ASSERT_TRUE(replica.ok()) << replica.error().message;
    replicas.push_back(std::move(*replica));
  }
  auto switches = [](std::uint16_t port) {
    auto doc = routing_scenarios::adminJson(port, "GET", "/admin/racing");
    if (doc.empty()) return std::string("<none>");
    return std::string(doc.at("enabled").is_bool() && doc.at("enabled").as_bool() ? "on" : "off") +
           "/" + std::string(doc.at("cost_preference").as_string()) + "/" +
           std::string(doc.at("enabled_source").as_string());
  };
  auto waitForSwitches = [&](std::uint16_t port, std::string const& expected) {
    auto started = std::chrono::steady_clock::now();
    while (switches(port) != expected &&
           std::chrono::steady_clock::now() - started < std::chrono::seconds(5)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
    return switches(port);
  };
  ASSERT_EQ(switches(replicas[1].port), "off/balanced/config");
  routing_scenarios::adminJson(replicas[0].port, "PUT", "/admin/racing",
                               R"({"enabled":true,"cost_preference":"quality_first"})");
  EXPECT_EQ(waitForSwitches(replicas[1].port, "on/quality_first/admin"), "on/quality_first/admin");
  EXPECT_EQ(rows("SELECT enabled, cost_preference FROM racing_switches"),
            std::vector<std::string>{"1|quality_first"});
  // Back to the configuration's switch through the other replica.
  routing_scenarios::adminJson(replicas[1].port, "PUT", "/admin/racing", R"({"enabled":null})");
  EXPECT_EQ(waitForSwitches(replicas[0].port, "off/quality_first/config"),
            "off/quality_first/config");

  // A gateway key created through one replica is accepted by the other within a second.
  auto created = callGateway(replicas[0].port, adminCall("POST", "/admin/gateway_keys",
                                                         R"({"name":"team-shared"})"));
  ASSERT_TRUE(created.ok()) << created.error().message;
  ASSERT_EQ(created->status(), 201) << created->body;
  auto doc = parseObject(created->body);
  ASSERT_TRUE(doc.ok());
  std::string const secret(doc->at("key").as_string());
  auto call = clientCall(Protocol::OpenAiChat, false);
  call.headers.set("Authorization", "Bearer " + secret);
  auto started = std::chrono::steady_clock::now();
  auto answer = callGateway(replicas[1].port, call);
  while ((!answer.ok() || answer->status() == 401) &&
         std::chrono::steady_clock::now() - started < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    answer = callGateway(replicas[1].port, call);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  ASSERT_TRUE(answer.ok()) << answer.error().message;
  EXPECT_EQ(answer->status(), 200) << answer->body;
  EXPECT_EQ(rows("SELECT kind, name, version FROM managed_objects"),
            std::vector<std::string>{"gateway_keys|team-shared|1"});
}

TEST_F(StoreReplicas, AVideoJobCreatedThroughOneReplicaIsPolledThroughAnother) {
  auto videos = channel("videos", Protocol::OpenAiChat, mock_.baseUrl(), {"k-videos"}, 0);
  videos.models = {"sora-2"};
  videos.extra_yaml = "media: {videos: true}\n";
  std::vector<Server> replicas;
  for (std::string name : {"r1", "r2"}) {
    auto replica = startReplica(name, {videos});
    ASSERT_TRUE(replica.ok()) << replica.error().message;
    replicas.push_back(std::move(*replica));
  }
  ClientCall create;
  create.target = "/v1/videos";
  create.headers.add("Authorization", std::string("Bearer ") + kGatewayKey);
  create.headers.add("Content-Type", "application/json");
  create.body = R"({"model":"sora-2","prompt":"Waves","seconds":"4"})";
  auto created = callGateway(replicas[0].port, create, "video-1");
  ASSERT_TRUE(created.ok()) << created.error().message;
  ASSERT_EQ(created->status(), 200) << created->body;
  auto doc = parseObject(created->body);
  ASSERT_TRUE(doc.ok()) << created->body;
  std::string const id(doc->at("id").as_string());

  ClientCall poll;
  poll.method = "GET";
  poll.target = "/v1/videos/" + id;
  poll.headers.add("Authorization", std::string("Bearer ") + kGatewayKey);
  auto created_at = std::chrono::steady_clock::now();
  Result<Response> polled = callGateway(replicas[1].port, poll);
  while ((!polled.ok() || polled->status() == 404) &&
         std::chrono::steady_clock::now() - created_at < std::chrono::seconds(5)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    polled = callGateway(replicas[1].port, poll);
  }
  ASSERT_TRUE(polled.ok()) << polled.error().message;
  EXPECT_EQ(polled->status(), 200) << polled->body;
  EXPECT_LT(std::chrono::steady_clock::now() - created_at, std::chrono::seconds(1));
  EXPECT_EQ(rows("SELECT channel, client_model FROM video_jobs WHERE id = '" + id + "'"),
            std::vector<std::string>{"videos|sora-2"});
}

}  // namespace
}  // namespace llmux::e2e
