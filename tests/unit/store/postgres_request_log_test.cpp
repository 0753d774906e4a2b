// The request log in PostgreSQL, against a real private server (tests/support/postgres_server):
// the migration, a batch's round trip, the retention, and the server going away and coming back.

#include "store/postgres_request_log.h"
#include "managed_object_checks.h"
#include "store/postgres_managed_object_store.h"
#include "store/postgres_request_log_reader.h"
#include "store/postgres_racing_store.h"
#include "store/racing_writer.h"
#include "store/sqlite_db.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <span>
#include <chrono>
#include <thread>

#include "captured_log.h"
#include "request_log_reader_cases.h"
#include "sample_records.h"
#include "support/postgres_server.h"
#include "support/redis_server.h"  // freeLoopbackPort

namespace llmux::store {
namespace {

using test_support::PostgresServer;
using Rows = std::vector<std::vector<std::optional<std::string>>>;

/// One server for the whole binary (initdb takes a second or two); each test has a database.
class PostgresRequestLogTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { server_ = PostgresServer::start(start_error_).release(); }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  void SetUp() override {
    // No skipping: a machine without a working PostgreSQL fails these tests, with the reason.
    ASSERT_NE(server_, nullptr) << "cannot start PostgreSQL: " << start_error_;
    static std::atomic<int> next{0};
    database_ = "t" + std::to_string(::getpid()) + "_" + std::to_string(next++);
    std::string error;
    ASSERT_TRUE(server_->createDatabase(database_, error)) << error;
  }

  std::string url() const { return server_->url(database_); }

  Rows query(std::string const& sql) {
    std::string error;
    auto rows = test_support::postgresQuery(url(), sql, error);
    EXPECT_TRUE(rows) << sql << ": " << error;
    return rows ? *rows : Rows{};
  }
  std::string scalar(std::string const& sql) {
    Rows rows = query(sql);
    if (rows.size() != 1 || rows[0].size() != 1 || !rows[0][0]) return "<none>";
    return *rows[0][0];
  }

  /// A connected, migrated backend.
  std::unique_ptr<PostgresRequestLog> backend() {
    auto log = std::make_unique<PostgresRequestLog>(url());
    auto connected = log->reconnect();
    EXPECT_TRUE(connected.ok()) << connected.error().message;
    return log;
  }

  static PostgresServer* server_;
  static std::string start_error_;
  std::string database_;
};

PostgresServer* PostgresRequestLogTest::server_ = nullptr;
std::string PostgresRequestLogTest::start_error_;

/// The sample record with the routing facts of its winning attempt too (strategy, factors, role,
/// tokens), so every attempt column is written.
RequestRecord routedRecord(std::string id) {
  RequestRecord r = failedOverRecord(std::move(id));
  r.attempts.back().strategy = "latency";
  r.attempts.back().factors = "score=0.75 latency=0.5";
  r.attempts.back().role = AttemptRole::Primary;
  r.attempts.back().usage = TokenUsage{.input = 900, .output = 120};
  return r;
}

/// One finished request as a batch of one row.
std::vector<LogRow> rowsOf(RequestRecord record) {
  std::vector<LogRow> rows;
  rows.push_back(LogRow{0, false, std::move(record)});
  return rows;
}

/// Fast pacing for the tests: no linger, no retries, reconnecting every few milliseconds.
RequestLogWriterOptions quick(RequestLogWriterOptions options = {}) {
  options.linger = std::chrono::milliseconds(0);
  options.write_retries = 0;
  options.reconnect_min = std::chrono::milliseconds(20);
  options.reconnect_max = std::chrono::milliseconds(100);
  return options;
}

TEST_F(PostgresRequestLogTest, MigratesAnEmptyDatabaseAndARerunChangesNothing) {
  auto first = backend();
  ASSERT_TRUE(first->connected());
  EXPECT_EQ(scalar("SELECT version FROM schema_version"),
            std::to_string(PostgresRequestLog::currentSchemaVersion()));
  // The columns SQLite's newest migrations added are there from the start.
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM information_schema.columns WHERE table_name = 'requests' "
                   "AND column_name IN ('media_modality', 'media_unit', 'media_quantity', "
                   "'cost_usd', 'client', 'usage_estimated')"),
            "6");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM information_schema.columns WHERE table_name = 'attempts' "
                   "AND column_name IN ('first_token_ms', 'role', 'total_tokens', 'strategy')"),
            "4");

  // A second process (or a restart) migrates nothing and keeps the rows.
  auto kept = rowsOf(routedRecord("kept"));
  ASSERT_TRUE(first->insertBatch(kept, "test").ok());
  auto second = backend();
  ASSERT_TRUE(second->reconnect().ok());
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM schema_version"), "1");
  EXPECT_EQ(scalar("SELECT version FROM schema_version"),
            std::to_string(PostgresRequestLog::currentSchemaVersion()));
  EXPECT_EQ(scalar("SELECT id FROM requests"), "kept");
}

TEST_F(PostgresRequestLogTest, ADatabaseOfANewerLlmuxIsRefused) {
  backend();
  query("UPDATE schema_version SET version = 99");
  PostgresRequestLog log(url());
  auto connected = log.reconnect();
  ASSERT_FALSE(connected.ok());
  EXPECT_NE(connected.error().message.find("schema version 99"), std::string::npos)
      << connected.error().message;
}

TEST_F(PostgresRequestLogTest, ABatchRoundTripsWithItsAttemptsMediaAndCost) {
  RequestLogWriter writer("PostgreSQL request log", backend(), quick());
  RequestRecord chat = routedRecord("r-chat");
  chat.error = "tab\there, newline\nthere, back\\slash";  // COPY's escapes
  writer.record(chat);
  RequestRecord video = routedRecord("r-video");
  video.route = "/v1/videos";
  video.usage.reset();
  video.first_byte_ms = -1;  // never came: NULL
  video.attempts.clear();
  video.media = MediaUsage{"videos", "seconds", 8};
  video.cost_usd = 0.8;
  writer.record(video);
  writer.flush();
  EXPECT_EQ(writer.stats().written, 2u);
  EXPECT_EQ(writer.stats().dropped, 0u);

  Rows requests = query(
      "SELECT id, started_at, route, client_protocol, gateway_key, model, stream, channel, "
      "key_label, status, error, first_byte_ms, total_ms, overhead_ms, bytes_in, bytes_out, "
      "client, "
      "input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens, "
      "total_tokens, usage_estimated, media_modality, media_unit, media_quantity, cost_usd "
      "FROM requests ORDER BY seq");
  ASSERT_EQ(requests.size(), 2u);
  using O = std::optional<std::string>;
  std::vector<O> const expected_chat = {"r-chat",
                                        "1700000000123",
                                        "/v1/chat/completions",
                                        "openai-chat",
                                        "team-a",
                                        "gpt-4o",
                                        "1",
                                        "backup",
                                        "backup#1",
                                        "200",
                                        "tab\there, newline\nthere, back\\slash",
                                        "450.5",
                                        "2600.125",
                                        "0.075",
                                        "1234",
                                        "56789",
                                        "codex-cli",
                                        "900",
                                        "120",
                                        "600",
                                        "50",
                                        "40",
                                        "1020",
                                        "0",
                                        std::nullopt,
                                        std::nullopt,
                                        std::nullopt,
                                        std::nullopt};
  EXPECT_EQ(requests[0], expected_chat);
  EXPECT_EQ(requests[1][0], O("r-video"));
  EXPECT_EQ(requests[1][11], std::nullopt) << "a first byte that never came";
  EXPECT_EQ(requests[1][17], std::nullopt) << "no usage";
  EXPECT_EQ(requests[1][24], O("videos"));
  EXPECT_EQ(requests[1][25], O("seconds"));
  EXPECT_EQ(requests[1][26], O("8"));
  EXPECT_EQ(requests[1][27], O("0.8"));

  Rows attempts = query(
      "SELECT a.request_id, a.attempt, a.channel, a.key_label, a.upstream_model, a.status, "
      "a.outcome, a.first_byte_ms, a.duration_ms, a.upstream_protocol, a.translated, a.strategy, "
      "a.route_score, a.first_token_ms, a.role, a.total_tokens, a.request_seq = r.seq "
      "FROM attempts a JOIN requests r ON r.seq = a.request_seq ORDER BY a.attempt");
  ASSERT_EQ(attempts.size(), 2u);
  EXPECT_EQ(attempts[0],
            (std::vector<O>{"r-chat", "1", "primary", "primary#0", "gpt-4o-2024", "429",
                            "failover:status_429", "35.5", "36", "", "0", std::nullopt,
                            std::nullopt, std::nullopt, std::nullopt, std::nullopt, "t"}));
  EXPECT_EQ(attempts[1],
            (std::vector<O>{"r-chat", "2", "backup", "backup#1", "gpt-4o", "200", "ok", "410.25",
                            "2500.75", "anthropic", "1", "latency", "score=0.75 latency=0.5",
                            "980.5", "primary", "1020", "t"}));
}

TEST_F(PostgresRequestLogTest, BytesThatAreNotUtf8AreWrittenAsReplacementCharacters) {
  using namespace std::string_literals;
  RequestLogWriter writer("PostgreSQL request log", backend(), quick());
  RequestRecord r = routedRecord("r-bytes");
  r.model = "gpt-\xff\xc0\x80-4o"s;  // stray bytes, an overlong NUL
  r.error =
      "nul\0here; kept: \u00e9 \u65e5\u672c \U0001F600; surrogate \xed\xa0\x80; cut \xe6\x97"s;
  writer.record(r);
  writer.flush();
  EXPECT_EQ(writer.stats().written, 1u) << writer.lastWriteError();
  EXPECT_EQ(scalar("SELECT model FROM requests"), "gpt-\uFFFD\uFFFD\uFFFD-4o");
  EXPECT_EQ(scalar("SELECT error FROM requests"),
            "nul\uFFFDhere; kept: \u00e9 \u65e5\u672c \U0001F600; surrogate "
            "\uFFFD\uFFFD\uFFFD; cut \uFFFD\uFFFD");
}

TEST_F(PostgresRequestLogTest, TheWriterDeletesExpiredRequestsAndTheirAttemptsInChunks) {
  ManualTimeSource clock;
  RequestLogWriterOptions options = quick();
  options.clock = &clock;
  options.retention = std::chrono::days(30);
  options.retention_interval = std::chrono::minutes(5);
  options.retention_chunk = 2;  // five expired requests: three chunks
  RequestLogWriter writer("PostgreSQL request log", backend(), options);
  auto startedAgo = [&](std::string id, std::chrono::hours age) {
    RequestRecord r = routedRecord(std::move(id));
    r.started_at = clock.wallNow() - age;
    return r;
  };
  using std::chrono::hours;
  for (int i = 0; i < 5; ++i) writer.record(startedAgo("old", hours(24 * 31 + i)));
  writer.record(startedAgo("recent", hours(24 * 29)));
  writer.flush();
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM requests"), "6") << "not due yet";

  clock.advance(options.retention_interval);
  for (int i = 0; i < 3; ++i) {  // each batch lets one more chunk go
    writer.record(startedAgo("new", hours(0)));
    writer.flush();
  }
  EXPECT_EQ(writer.stats().expired, 5u);
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM requests WHERE id = 'old'"), "0");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM requests"), "4");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM attempts"), "8") << "the old attempts went with them";
}

TEST_F(PostgresRequestLogTest, WhileTheServerIsGoneRowsQueueToTheBoundThenDropAndWritesResume) {
  CapturedLog log;
  RequestLogWriterOptions options = quick();
  options.queue_capacity = 8;
  options.batch_size = 4;
  RequestLogWriter writer("PostgreSQL request log", backend(), options);
  writer.record(routedRecord("before"));
  writer.flush();
  ASSERT_EQ(writer.stats().written, 1u);

  std::string error;
  ASSERT_TRUE(server_->stop(error)) << error;
  // The writer holds at most one batch and the queue its capacity; the rest is dropped at once.
  auto started = std::chrono::steady_clock::now();
  for (int i = 0; i < 40; ++i) writer.record(routedRecord("during"));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(500))
      << "record() never waits for the database";
  RequestLogStats during = writer.stats();
  EXPECT_GE(during.dropped, 40u - options.queue_capacity - options.batch_size);
  EXPECT_LE(during.queued, options.queue_capacity);
  EXPECT_EQ(during.written, 1u);

  ASSERT_TRUE(server_->restart(error)) << error;
  // The writer reconnects on its own and writes what it kept.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (writer.stats().written + writer.stats().dropped < 41 &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  writer.record(routedRecord("after"));
  writer.flush();
  RequestLogStats after = writer.stats();
  EXPECT_EQ(after.written + after.dropped, 42u) << "every record written or counted";
  EXPECT_GE(after.written, 3u);
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM requests"), std::to_string(after.written));
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM requests WHERE id = 'after'"), "1");
  EXPECT_NE(writer.lastWriteError(), "");
  std::string lines;
  for (auto const& line : log.lines()) lines += line + "\n";
  EXPECT_NE(lines.find("PostgreSQL request log connection"), std::string::npos) << lines;
  EXPECT_NE(lines.find("PostgreSQL request log queue"), std::string::npos) << lines;
}

TEST_F(PostgresRequestLogTest, AFlushWhileTheServerIsGoneGivesUpAndCountsInsteadOfWaiting) {
  RequestLogWriterOptions options = quick();
  options.reconnect_max = std::chrono::seconds(5);
  RequestLogWriter writer("PostgreSQL request log", backend(), options);
  std::string error;
  ASSERT_TRUE(server_->stop(error)) << error;
  for (int i = 0; i < 3; ++i) writer.record(routedRecord("lost"));
  auto started = std::chrono::steady_clock::now();
  writer.flush();  // a shutdown with the server gone
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(10));
  RequestLogStats stats = writer.stats();
  EXPECT_EQ(stats.written, 0u);
  EXPECT_EQ(stats.dropped, 3u);
  EXPECT_GE(stats.failed_batches, 1u);
  ASSERT_TRUE(server_->restart(error)) << error;
}

TEST_F(PostgresRequestLogTest, AServerThatStopsAnsweringIsDroppedAfterTheAnswerTimeout) {
  PostgresRequestLog log(url(), std::chrono::milliseconds(300));
  ASSERT_TRUE(log.reconnect().ok());
  auto silent = rowsOf(routedRecord("silent"));
  auto later = rowsOf(routedRecord("later"));
  std::string error;
  ASSERT_TRUE(server_->pause(error)) << error;
  auto started = std::chrono::steady_clock::now();
  auto written = log.insertBatch(silent, "test");
  auto took = std::chrono::steady_clock::now() - started;
  server_->resume();
  ASSERT_FALSE(written.ok());
  EXPECT_NE(written.error().message.find("no answer within 300 ms"), std::string::npos)
      << written.error().message;
  EXPECT_FALSE(log.connected()) << "the writer reconnects, as after a lost connection";
  EXPECT_LT(took, std::chrono::seconds(3));
  // Once the server answers again, a new connection writes.
  ASSERT_TRUE(log.reconnect().ok());
  ASSERT_TRUE(log.insertBatch(later, "test").ok());
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM requests WHERE id = 'later'"), "1");
}

TEST_F(PostgresRequestLogTest, ErrorsNeverShowThePassword) {
  PostgresRequestLog log("postgres://llmux:hunter2@127.0.0.1:" +
                         std::to_string(test_support::freeLoopbackPort()) + "/nowhere");
  auto connected = log.reconnect();
  ASSERT_FALSE(connected.ok());
  EXPECT_FALSE(log.connected());
  EXPECT_EQ(connected.error().message.find("hunter2"), std::string::npos)
      << connected.error().message;
}

}  // namespace
}  // namespace llmux::store

namespace llmux::store {
namespace {

TEST_F(PostgresRequestLogTest, RealTimeRowsRunAndEndAsOneRowAndLapsedReplicasAreClosed) {
  RequestLogWriterOptions options = quick();
  options.replica = "replica-a";
  options.heartbeat_interval = std::chrono::milliseconds(100);
  options.heartbeat_lapse = std::chrono::milliseconds(1000);
  RequestLogWriter writer("PostgreSQL request log", backend(), options);

  RequestRecord final_record = routedRecord("r-live");
  RequestRecord head = final_record;
  head.attempts.clear();
  head.status = 0;
  head.usage.reset();
  std::uint64_t const handle = writer.opened(head);
  AttemptRecord first = final_record.attempts[0];
  AttemptRecord first_running = first;
  first_running.outcome = AttemptOutcome();
  writer.attemptChanged(handle, 1, first_running);
  writer.flush();
  EXPECT_EQ(scalar("SELECT state || '|' || replica FROM requests WHERE id = 'r-live'"),
            "in_progress|replica-a");
  EXPECT_EQ(scalar("SELECT string_agg(attempt || ':' || outcome, ',' ORDER BY attempt) FROM attempts"),
            "1:in_progress");
  std::string const seq = scalar("SELECT seq FROM requests WHERE id = 'r-live'");

  writer.attemptChanged(handle, 1, first);
  writer.flush();
  EXPECT_EQ(scalar("SELECT string_agg(attempt || ':' || outcome, ',' ORDER BY attempt) FROM attempts"),
            "1:failover:status_429");
  final_record.log_handle = handle;
  writer.record(final_record);
  writer.flush();
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM requests"), "1") << "the running row was completed";
  EXPECT_EQ(scalar("SELECT seq || '|' || state || '|' || status FROM requests"), seq + "|done|200");
  EXPECT_EQ(scalar("SELECT string_agg(attempt || ':' || outcome, ',' ORDER BY attempt) FROM attempts"),
            "1:failover:status_429,2:ok");

  // A replica that crashed with a request running: its heartbeat lapses and this writer's next
  // heartbeat closes the row.
  query("INSERT INTO replicas VALUES ('crashed', 1, " +
        std::to_string(toUnixMillis(WallClock::now()) - 5'000) +
        "); INSERT INTO requests (id, started_at, route, client_protocol, gateway_key, model, "
        "stream, channel, key_label, status, error, total_ms, overhead_ms, bytes_in, bytes_out, "
        "state, replica) VALUES ('r-orphan', 1, '/v1/messages', 'anthropic', 'k', 'm', 1, '', '', "
        "0, '', 0, 0, 0, 0, 'in_progress', 'crashed')");
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (scalar("SELECT state FROM requests WHERE id = 'r-orphan'") != "interrupted" &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(scalar("SELECT state || '|' || error FROM requests WHERE id = 'r-orphan'"),
            "interrupted|interrupted: its replica stopped before it ended");
  EXPECT_EQ(scalar("SELECT string_agg(id, ',' ORDER BY id) FROM replicas"), "replica-a");
  EXPECT_EQ(writer.stats().interrupted, 1u);
}

TEST_F(PostgresRequestLogTest, AStoppingWriterClosesItsRunningRowsAndItsHeartbeat) {
  {
    RequestLogWriterOptions options = quick();
    options.replica = "replica-b";
    RequestLogWriter writer("PostgreSQL request log", backend(), options);
    RequestRecord head = routedRecord("r-cut");
    head.attempts.clear();
    writer.opened(head);
    writer.flush();
    EXPECT_EQ(scalar("SELECT state FROM requests"), "in_progress");
    EXPECT_EQ(scalar("SELECT id FROM replicas"), "replica-b");
  }
  EXPECT_EQ(scalar("SELECT state FROM requests"), "interrupted");
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM replicas"), "0");
}

}  // namespace
}  // namespace llmux::store

#include "store/shared_state_sync.h"
#include "store/postgres_freeze_store.h"

namespace llmux::store {
namespace {

TEST_F(PostgresRequestLogTest, FreezesAreSharedByEveryReplicaThroughTheStore) {
  RealTimeSource clock;
  // Two replicas: each its own store connection, writer, table and sync.
  struct Replica {
    Replica(std::string const& url, TimeSource const& clock,
            std::chrono::milliseconds interval = std::chrono::milliseconds(50))
        : rows(url), writer(rows, clock), table(clock, &writer),
          sync({freezePull(rows, table)}, interval) {
      writer.onSaved([this](std::string const& id) { table.noteStored(id); });
    }
    PostgresFreezeStore rows;
    FreezeWriter writer;
    routing::FreezeTable table;
    SharedStateSync sync;
  };
  // A looks at the store rarely: B lifts the freeze before A has ever seen it stored, and A
  // still learns of the lift (its own save told it the freeze was stored).
  Replica a(url(), clock, std::chrono::milliseconds(1500));
  Replica b(url(), clock);
  config::FreezeRule rule;
  rule.name = "banned";
  rule.status = 403;
  rule.object = config::FreezeObject::Key;
  rule.period = config::FreezePeriod::Today;
  routing::Freeze made =
      a.table.apply(rule, routing::FreezeTarget{"relay", "key-1", "relay#0", "m"}, std::nullopt,
                    "status 403: banned");
  auto waitFor = [](auto condition) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!condition() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return condition();
  };
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(waitFor([&] { return b.table.frozen("relay", "key-1", "m").has_value(); }));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  EXPECT_TRUE(a.table.frozen("relay", "key-1", "m").has_value()) << "kept while its save is stored";
  auto seen = b.table.frozen("relay", "key-1", "m");
  EXPECT_EQ(seen->id, made.id);
  EXPECT_EQ(seen->reason, "status 403: banned");
  EXPECT_EQ(seen->until, made.until);
  EXPECT_EQ(scalar("SELECT key_label || '|' || rule FROM freezes"), "relay#0|banned");

  // Lifted on B: lifted on A, and gone from the store.
  ASSERT_TRUE(b.table.lift(made.id));
  ASSERT_TRUE(waitFor([&] { return !a.table.frozen("relay", "key-1", "m").has_value(); }))
      << "a freeze lifted elsewhere is lifted here";
  EXPECT_TRUE(waitFor([&] { return scalar("SELECT COUNT(*) FROM freezes") == "0"; }));
  EXPECT_EQ(a.sync.failedReads(), 0u);
}

TEST_F(PostgresRequestLogTest, RacingSwitchesAndLatencyVerdictsAreSharedThroughTheStore) {
  RealTimeSource clock;
  config::RacingSettings settings;
  struct Replica {
    Replica(std::string const& url, TimeSource const& clock, config::RacingSettings const& settings)
        : rows(url), state(settings), writer(rows, state, clock),
          sync({racingPull(rows, state, writer, clock)}, std::chrono::milliseconds(50)) {
      writer.noteStoredLatency();
    }
    PostgresRacingStore rows;
    racing::RacingState state;
    RacingWriter writer;
    SharedStateSync sync;
  };
  Replica a(url(), clock, settings);
  Replica b(url(), clock, settings);
  auto waitFor = [](auto condition) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (!condition() && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return condition();
  };
  racing::Combination const slow{"relay/3f2a", "claude-sonnet-4", "coding"};

  auto started = std::chrono::steady_clock::now();
  a.state.changeSwitches(std::optional<bool>(true),
                         std::optional<config::CostPreference>(config::CostPreference::CostFirst));
  for (int i = 0; i < 3; ++i) a.state.latency.noteSlow(slow, clock.wallNow());
  ASSERT_TRUE(waitFor([&] {
    return b.state.enabledOverride() == true && b.state.latency.degraded(slow, clock.wallNow());
  }));
  EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(1));
  EXPECT_EQ(b.state.preferenceOverride(), config::CostPreference::CostFirst);
  EXPECT_EQ(scalar("SELECT enabled || '|' || cost_preference FROM racing_switches"), "1|cost_first");
  EXPECT_EQ(scalar("SELECT slow_streak || '|' || degraded FROM latency_penalties"), "3|1");

  // Back to the configuration's switch on B, and the combination recovered there: A follows.
  b.state.changeSwitches(std::optional<bool>(std::nullopt), std::nullopt);
  b.state.latency.noteFast(slow, clock.wallNow());
  ASSERT_TRUE(waitFor([&] {
    return a.state.enabledOverride() == std::nullopt && !a.state.latency.degraded(slow, clock.wallNow());
  }));
  EXPECT_EQ(a.state.preferenceOverride(), config::CostPreference::CostFirst) << "left as it was";
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM latency_penalties"), "0");
  EXPECT_EQ(a.sync.failedReads() + b.sync.failedReads(), 0u);
}

TEST_F(PostgresRequestLogTest, AdminObjectsKeepTheirVersionsAndEveryChangeIsAudited) {
  PostgresManagedObjectStore rows(url());
  checkManagedObjectRows(rows);
  // Another replica's connection cannot win a version already taken.
  PostgresManagedObjectStore other(url());
  config::ManagedObject late{config::ObjectKind::Channel, "fresh", 2, R"({"name":"fresh"})"};
  auto refused = other.put(late, 1, auditOf("update", late, std::nullopt, WallTime{}));
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->written);
  EXPECT_EQ(refused->stored_version, 2);
  EXPECT_EQ(scalar("SELECT COUNT(*) FROM audit_log"), "3");
}

}  // namespace
}  // namespace llmux::store

#include "store/postgres_lease.h"

namespace llmux::store {
namespace {

TEST_F(PostgresRequestLogTest, OneReplicaHoldsTheLeaseUntilItsSessionEnds) {
  auto a = std::make_unique<PostgresLease>(url(), "alerts");
  PostgresLease b(url(), "alerts");
  PostgresLease other_job(url(), "another-job");
  EXPECT_EQ(a->hold(), std::optional<bool>(true));
  EXPECT_EQ(b.hold(), std::optional<bool>(false));
  EXPECT_EQ(a->hold(), std::optional<bool>(true)) << "kept while its session lives";
  EXPECT_EQ(other_job.hold(), std::optional<bool>(true)) << "each job its own lock";
  a.reset();  // the holder goes away: its session, and the lock, end (as the server notices)
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (b.hold() != std::optional<bool>(true) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_EQ(b.hold(), std::optional<bool>(true));

  PostgresLease unreachable("postgres://llmux@127.0.0.1:1/llmux?connect_timeout=1", "alerts");
  EXPECT_EQ(unreachable.hold(), std::nullopt);
  EXPECT_NE(unreachable.lastError(), "");
}

// --- the request log read back (the same cases as SQLite's: request_log_reader_cases.h) ---------

class PostgresRequestLogReaderTest : public PostgresRequestLogTest {
 protected:
  void SetUp() override {
    PostgresRequestLogTest::SetUp();
    if (HasFatalFailure()) return;
    auto log = backend();
    reader_cases::writeSample([&](std::vector<RequestRecord> const& done, RequestRecord const* running) {
      // One batch each: their seqs grow in the order written.
      std::vector<LogRow> rows;
      for (auto const& r : done) rows.push_back(LogRow{0, false, r});
      if (running != nullptr) rows.push_back(LogRow{0, true, *running});
      for (LogRow& row : rows) {
        auto written = log->insertBatch(std::span<LogRow>(&row, 1), "test");
        ASSERT_TRUE(written.ok()) << written.error().message;
      }
    });
    reader_ = std::make_unique<PostgresRequestLogReader>(url());
  }

  std::unique_ptr<PostgresRequestLogReader> reader_;
};

TEST_F(PostgresRequestLogReaderTest, SearchesByEveryFilterNewestFirst) {
  reader_cases::searchesByEveryFilter(*reader_);
}
TEST_F(PostgresRequestLogReaderTest, PagesWithTheBeforeCursor) { reader_cases::pagesWithBefore(*reader_); }
TEST_F(PostgresRequestLogReaderTest, GetsOneRequestWithItsAttempts) {
  reader_cases::getsOneRequestWithItsAttempts(*reader_);
}
TEST_F(PostgresRequestLogReaderTest, AggregatesUsageByGroupAndBucket) {
  reader_cases::aggregatesUsage(*reader_);
}

TEST_F(PostgresRequestLogReaderTest, AValueWithQuotesIsAParameterNotSql) {
  RequestSearch search;
  search.model = "x' OR '1' = '1";
  auto page = reader_->search(search);
  ASSERT_TRUE(page.ok()) << page.error().message;
  EXPECT_TRUE(page->requests.empty());
  // And the connection is still usable after it.
  EXPECT_EQ(reader_cases::ids(*reader_, RequestSearch{}).size(), 7u);
}

}  // namespace
}  // namespace llmux::store
