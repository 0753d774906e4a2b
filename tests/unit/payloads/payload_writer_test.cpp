// The payload writer: a queue bounded by bytes that never makes a request wait, batches sent on
// its own thread, a failed batch dropped and counted (never retried), a bounded flush on stop;
// and against a real ClickHouse 18.16: the table it creates and the rows it writes, text and
// binary bodies read back byte for byte.

#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>

#include "core/digest.h"
#include "payloads/payload_writer.h"
#include "support/clickhouse_server.h"
#include "support/redis_server.h"
#include "unit/store/captured_log.h"

namespace llmux::payloads {
namespace {

using namespace std::chrono_literals;

/// A transport that records statements, can fail, and can hold every call until released.
class FakeTransport final : public StatementTransport {
 public:
  struct State {
    std::mutex mutex;
    std::condition_variable changed;
    std::vector<std::string> queries;
    std::vector<std::string> bodies;
    bool fail = false;
    bool hold = false;
  };
  explicit FakeTransport(std::shared_ptr<State> state) : state_(std::move(state)) {}

  Result<std::string> run(std::string_view query, std::string_view body, Millis) override {
    std::unique_lock lock(state_->mutex);
    state_->changed.wait(lock, [&] { return !state_->hold; });
    state_->queries.emplace_back(query);
    state_->bodies.emplace_back(body);
    state_->changed.notify_all();
    if (state_->fail) return makeError(ErrorKind::Unavailable, "ClickHouse: connection refused");
    return std::string();
  }

 private:
  std::shared_ptr<State> state_;
};

PayloadRow rowOf(std::string id, std::size_t body_size) {
  PayloadRow row;
  row.ts = 1700000000;
  row.request_id = std::move(id);
  row.body = std::string(body_size, 'x');
  row.body_bytes = body_size;
  return row;
}

template <typename Condition>
bool eventually(Condition condition, std::chrono::milliseconds timeout = 5s) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return condition();
}

PayloadWriterOptions fastOptions() {
  PayloadWriterOptions options;
  options.flush_interval = Millis(20);
  options.shutdown_bound = Millis(500);
  return options;
}

TEST(PayloadWriter, WritesBatchesAfterCreatingTheTable) {
  auto state = std::make_shared<FakeTransport::State>();
  PayloadWriter writer(std::make_unique<FakeTransport>(state), fastOptions(), {});
  writer.submit({rowOf("a", 10), rowOf("a", 20)});
  writer.submit({rowOf("b", 5)});
  ASSERT_TRUE(eventually([&] { return writer.stats().written == 3; }));
  std::lock_guard lock(state->mutex);
  ASSERT_GE(state->queries.size(), 2u);
  EXPECT_EQ(state->queries[0],
            "CREATE TABLE IF NOT EXISTS default.llmux_payloads (ts DateTime, request_id String, "
            "attempt UInt32, kind String, headers String, body String, body_bytes UInt64, "
            "truncated UInt8, encoding String) ENGINE = MergeTree ORDER BY (ts, request_id)");
  EXPECT_EQ(state->queries[1], "INSERT INTO default.llmux_payloads FORMAT JSONEachRow");
  EXPECT_EQ(writer.stats().dropped, 0u);
}

TEST(PayloadWriter, AFullQueueDropsWholeRequestsAndCountsThem) {
  auto state = std::make_shared<FakeTransport::State>();
  state->hold = true;  // ClickHouse never answers: nothing leaves the queue
  auto options = fastOptions();
  options.queue_bytes = 1000;
  options.shutdown_bound = Millis(50);
  {
    PayloadWriter writer(std::make_unique<FakeTransport>(state), options, {});
    // The first request may be taken by the writer already; the queue still fills.
    for (int i = 0; i < 10; ++i) writer.submit({rowOf("r" + std::to_string(i), 300)});
    auto stats = writer.stats();
    EXPECT_LE(stats.queued_bytes, 1000u);
    EXPECT_GE(stats.dropped, 6u);  // at most 3 requests of 364 bytes fit, one more in flight
    EXPECT_EQ(stats.written, 0u);
    // submit never waited for the held transport: we got here.
    {
      std::lock_guard lock(state->mutex);
      state->hold = false;
      state->fail = true;
    }
    state->changed.notify_all();
    writer.stop();
    auto after = writer.stats();
    EXPECT_EQ(after.written, 0u);
    EXPECT_EQ(after.dropped, 10u);  // every row accounted for
    EXPECT_EQ(after.queued_bytes, 0u);
  }
}

TEST(PayloadWriter, AFailedBatchIsDroppedAndCountedNeverRetried) {
  auto state = std::make_shared<FakeTransport::State>();
  state->fail = true;
  PayloadWriter writer(std::make_unique<FakeTransport>(state), fastOptions(), {});
  writer.submit({rowOf("a", 10), rowOf("a", 10)});
  ASSERT_TRUE(eventually([&] { return writer.stats().batches_dropped == 1; }));
  EXPECT_EQ(writer.stats().dropped, 2u);
  std::this_thread::sleep_for(100ms);
  {
    std::lock_guard lock(state->mutex);
    EXPECT_EQ(state->queries.size(), 1u);  // the failed CREATE; the rows were not sent again
    state->fail = false;
  }
  // ClickHouse is back: the next request's rows go, after the table is made again.
  writer.submit({rowOf("b", 10)});
  ASSERT_TRUE(eventually([&] { return writer.stats().written == 1; }));
  EXPECT_EQ(writer.stats().batches_dropped, 1u);
}

/// The statements sent so far that delete expired rows.
std::vector<std::string> expiries(FakeTransport::State& state) {
  std::lock_guard lock(state.mutex);
  std::vector<std::string> out;
  for (auto const& query : state.queries) {
    if (query.starts_with("ALTER TABLE")) out.push_back(query);
  }
  return out;
}

std::int64_t unixNow() {
  return std::chrono::duration_cast<std::chrono::seconds>(WallClock::now().time_since_epoch())
      .count();
}

TEST(PayloadWriter, ARetentionDeletesTheExpiredRowsAtStartThenEveryInterval) {
  auto state = std::make_shared<FakeTransport::State>();
  auto options = fastOptions();
  options.retention_days = 2;
  options.expiry_interval = Millis(300);
  std::int64_t const earliest = unixNow() - 2 * 86'400;
  PayloadWriter writer(std::make_unique<FakeTransport>(state), options, {});
  ASSERT_TRUE(eventually([&] { return expiries(*state).size() == 1; }));
  std::int64_t const latest = unixNow() - 2 * 86'400;
  {
    std::lock_guard lock(state->mutex);
    ASSERT_GE(state->queries.size(), 2u);
    EXPECT_TRUE(state->queries[0].starts_with("CREATE TABLE IF NOT EXISTS")) << state->queries[0];
    std::string const& expiry = state->queries[1];
    std::string const prefix =
        "ALTER TABLE default.llmux_payloads DELETE WHERE ts < toDateTime(";
    ASSERT_TRUE(expiry.starts_with(prefix)) << expiry;
    ASSERT_TRUE(expiry.ends_with(")")) << expiry;
    std::int64_t const before = std::stoll(expiry.substr(prefix.size()));
    EXPECT_GE(before, earliest);
    EXPECT_LE(before, latest);
  }
  // Captures go on between the deletions, and the deletions come again.
  writer.submit({rowOf("a", 10)});
  ASSERT_TRUE(eventually([&] { return writer.stats().written == 1; }));
  ASSERT_TRUE(eventually([&] { return expiries(*state).size() >= 2; }));
  EXPECT_EQ(writer.stats().expiry_failures, 0u);
}

TEST(PayloadWriter, NoRetentionDeletesNothingUntilAReloadSetsOne) {
  auto state = std::make_shared<FakeTransport::State>();
  PayloadWriter writer(std::make_unique<FakeTransport>(state), fastOptions(), {});
  writer.submit({rowOf("a", 10)});
  ASSERT_TRUE(eventually([&] { return writer.stats().written == 1; }));
  std::this_thread::sleep_for(100ms);  // several flush intervals
  EXPECT_TRUE(expiries(*state).empty());
  writer.setRetentionDays(30);
  ASSERT_TRUE(eventually([&] { return expiries(*state).size() == 1; }));
  writer.setRetentionDays(0);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(expiries(*state).size(), 1u);
}

TEST(PayloadWriter, AFailedDeletionIsCountedLoggedOnceAndNeverBlocksCaptures) {
  store::CapturedLog captured;
  auto state = std::make_shared<FakeTransport::State>();
  state->fail = true;
  auto options = fastOptions();
  options.retention_days = 1;
  options.expiry_interval = Millis(50);
  PayloadWriter writer(std::make_unique<FakeTransport>(state), options, {});
  ASSERT_TRUE(eventually([&] { return writer.stats().expiry_failures >= 3; }));
  {
    std::lock_guard lock(state->mutex);
    state->fail = false;
  }
  // ClickHouse is back: captures are written, and the next deletion ends the burst.
  writer.submit({rowOf("a", 10)});
  ASSERT_TRUE(eventually([&] { return writer.stats().written == 1; }));
  ASSERT_TRUE(eventually([&] { return !expiries(*state).empty(); }));
  writer.stop();
  std::size_t failure_lines = 0;
  for (auto const& line : captured.lines()) {
    if (line.find("deletion of expired payloads in ClickHouse failed: ") != std::string::npos) {
      ++failure_lines;
    }
  }
  EXPECT_EQ(failure_lines, 1u) << "one line for the burst, not one per try";
}

TEST(PayloadWriter, SamplingFollowsTheShare) {
  auto state = std::make_shared<FakeTransport::State>();
  auto share = [&](double sample) {
    auto options = fastOptions();
    options.sample = sample;
    PayloadWriter writer(std::make_unique<FakeTransport>(state), options, {});
    int picked = 0;
    for (int i = 0; i < 20000; ++i) picked += writer.sampled() ? 1 : 0;
    return picked;
  };
  EXPECT_EQ(share(0.0), 0);
  EXPECT_EQ(share(1.0), 20000);
  int quarter = share(0.25);
  EXPECT_GT(quarter, 4500);
  EXPECT_LT(quarter, 5500);
}

TEST(ClickHouseHttp, AnswersAreReadWholeOrChunked) {
  auto plain = parseHttpAnswer("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nOk.");
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->status, 200);
  EXPECT_EQ(plain->body, "Ok.");
  auto chunked = parseHttpAnswer(
      "HTTP/1.1 500 Internal Server Error\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nCode:\r\nb\r\n 60, Table \r\n0\r\n\r\n");
  ASSERT_TRUE(chunked);
  EXPECT_EQ(chunked->status, 500);
  EXPECT_EQ(chunked->body, "Code: 60, Table ");
  EXPECT_FALSE(parseHttpAnswer("HTTP/1.1 200 OK\r\nContent-Le"));
  EXPECT_FALSE(parseHttpAnswer("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"));
}

TEST(ClickHouseHttp, AnUnreachableServerFailsAtOnceWithoutThePassword) {
  ClickHouseHttp http(ClickHouseEndpoint{"127.0.0.1", test_support::freeLoopbackPort(), "default",
                                         "ch-password-never-shown"});
  auto started = std::chrono::steady_clock::now();
  auto answer = http.run("SELECT 1", {}, Millis(2000));
  ASSERT_FALSE(answer);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 1s);
  EXPECT_NE(answer.error().message.find("cannot connect"), std::string::npos) << answer.error().message;
  EXPECT_EQ(answer.error().message.find("ch-password"), std::string::npos);
}

TEST(PayloadWriterClickHouse, RowsLandInARealServerByteForByte) {
  std::string error;
  auto server = test_support::ClickHouseServer::start(error);
  ASSERT_TRUE(server) << "cannot start ClickHouse: " << error;  // never skipped
  auto options = fastOptions();
  options.table = "unit_payloads";
  PayloadWriter writer(std::make_unique<ClickHouseHttp>(ClickHouseEndpoint{"127.0.0.1", server->httpPort(), "default", ""}),
                       options, {});
  PayloadRow text = rowOf("ch-1", 0);
  text.body = "{\"msg\":\"h\xC3\xA9llo \xF0\x9F\x98\x80\\n \\\"q\\\"\"}\n\x01";
  text.body_bytes = 5000;
  text.truncated = true;
  PayloadRow binary = rowOf("ch-1", 0);
  binary.attempt = 1;
  binary.kind = BodyKind::Response;
  binary.body = std::string("\x89PNG\r\n\x1a\n\x00\xff", 10);
  binary.body_bytes = 10;
  writer.submit({text, binary});
  ASSERT_TRUE(eventually([&] { return writer.stats().written == 2; }, 15s))
      << "dropped " << writer.stats().dropped;
  auto rows = server->query(
      "SELECT attempt, kind, body_bytes, truncated, encoding, hex(body) FROM default.unit_payloads "
      "WHERE request_id = 'ch-1' ORDER BY attempt FORMAT TSV",
      error);
  ASSERT_TRUE(rows) << error;
  auto hex = [](std::string_view bytes) {
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : bytes) {
      out.push_back(kHex[c >> 4]);
      out.push_back(kHex[c & 0xF]);
    }
    return out;
  };
  EXPECT_EQ(*rows, (std::vector<std::string>{"0\trequest\t5000\t1\t\t" + hex(text.body),
                                             "1\tresponse\t10\t0\tbase64\t" + hex(base64(binary.body))}));

  // A server that refuses the statement (no such database): the batch is dropped and counted.
  auto refused_options = fastOptions();
  refused_options.database = "no_such_database";
  PayloadWriter refused(
      std::make_unique<ClickHouseHttp>(ClickHouseEndpoint{"127.0.0.1", server->httpPort(), "default", ""}),
      refused_options, {});
  refused.submit({rowOf("ch-2", 10)});
  ASSERT_TRUE(eventually([&] { return refused.stats().batches_dropped == 1; }, 15s));
  EXPECT_EQ(refused.stats().dropped, 1u);
  EXPECT_EQ(refused.stats().written, 0u);
}

}  // namespace
}  // namespace llmux::payloads
