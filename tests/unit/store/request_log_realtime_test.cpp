// Real-time rows of the request log (store/request_log_writer.h): a request's row appears when it
// is opened, its attempts as they start and end, the same row is completed at its end, and the
// running rows of a replica whose heartbeat lapsed are closed as interrupted. Against the real
// SQLite store; the PostgreSQL backend runs the same through postgres_request_log_test.cpp.

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "sample_records.h"
#include "store/request_log_writer.h"
#include "store/sqlite_db.h"
#include "store/sqlite_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

namespace fs = std::filesystem;

SqliteStoreOptions quick(std::string replica) {
  SqliteStoreOptions options;
  options.linger = std::chrono::milliseconds(0);
  options.replica = std::move(replica);
  return options;
}

/// The rows of `sql` on a connection of the test's own, columns joined by '|' (NULL as "-").
std::vector<std::string> rowsOf(fs::path const& db_path, std::string const& sql) {
  auto db = SqliteDb::open(db_path.string());
  EXPECT_TRUE(db.ok());
  auto stmt = db->prepare(sql);
  EXPECT_TRUE(stmt.ok()) << sql << ": " << (stmt.ok() ? "" : stmt.error().message);
  std::vector<std::string> rows;
  if (!stmt.ok()) return rows;
  for (;;) {
    auto row = stmt->step();
    EXPECT_TRUE(row.ok());
    if (!row.ok() || !*row) break;
    std::string line;
    for (int i = 0; i < stmt->columnCount(); ++i) {
      if (i > 0) line += "|";
      line += stmt->columnIsNull(i) ? "-" : std::string(stmt->columnText(i));
    }
    rows.push_back(line);
  }
  return rows;
}

RequestRecord head(std::string id) {
  RequestRecord r = failedOverRecord(std::move(id));
  r.attempts.clear();
  r.status = 0;
  r.channel.clear();
  r.key_label.clear();
  r.usage.reset();
  r.total_ms = 0;
  r.bytes_out = 0;
  return r;
}

AttemptRecord running(AttemptRecord attempt) {
  attempt.outcome = AttemptOutcome();
  attempt.status = 0;
  return attempt;
}

TEST(RequestLogRealtime, ARowRunsThroughItsAttemptsAndEndsAsTheSameRow) {
  TempDir dir;
  auto opened = SqliteStore::open(dir.path(), quick("replica-a"));
  ASSERT_TRUE(opened.ok()) << opened.error().message;
  auto& store = **opened;
  fs::path const db = store.databasePath();
  RequestRecord final_record = failedOverRecord("r-live");

  std::uint64_t const handle = store.opened(head("r-live"));
  ASSERT_NE(handle, 0u);
  store.flush();
  EXPECT_EQ(rowsOf(db, "SELECT id, state, replica, status FROM requests"),
            std::vector<std::string>{"r-live|in_progress|replica-a|0"});

  store.attemptChanged(handle, 1, running(final_record.attempts[0]));
  store.flush();
  EXPECT_EQ(rowsOf(db, "SELECT attempt, channel, outcome FROM attempts ORDER BY attempt"),
            std::vector<std::string>{"1|primary|in_progress"});

  store.attemptChanged(handle, 1, final_record.attempts[0]);
  store.attemptChanged(handle, 2, running(final_record.attempts[1]));
  store.flush();
  EXPECT_EQ(rowsOf(db, "SELECT attempt, channel, outcome FROM attempts ORDER BY attempt"),
            (std::vector<std::string>{"1|primary|failover:status_429", "2|backup|in_progress"}));
  EXPECT_EQ(rowsOf(db, "SELECT state FROM requests"), std::vector<std::string>{"in_progress"});

  auto seq_before = rowsOf(db, "SELECT seq FROM requests");
  final_record.log_handle = handle;
  store.record(final_record);
  store.flush();
  EXPECT_EQ(rowsOf(db, "SELECT seq FROM requests"), seq_before) << "the same row, completed";
  EXPECT_EQ(rowsOf(db, "SELECT id, state, status, channel, input_tokens FROM requests"),
            std::vector<std::string>{"r-live|done|200|backup|900"});
  EXPECT_EQ(rowsOf(db, "SELECT attempt, outcome FROM attempts ORDER BY attempt"),
            (std::vector<std::string>{"1|failover:status_429", "2|ok"}));
  EXPECT_EQ(store.stats().written, 1u) << "one request written, not one per event";

  // A request never opened is written whole, as before.
  store.record(failedOverRecord("r-plain"));
  store.flush();
  EXPECT_EQ(rowsOf(db, "SELECT id, state FROM requests ORDER BY seq"),
            (std::vector<std::string>{"r-live|done", "r-plain|done"}));
}

TEST(RequestLogRealtime, AStoppingReplicaClosesWhatStillRuns) {
  TempDir dir;
  fs::path db;
  {
    auto opened = SqliteStore::open(dir.path(), quick("replica-b"));
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    db = (*opened)->databasePath();
    std::uint64_t handle = (*opened)->opened(head("r-cut"));
    (*opened)->attemptChanged(handle, 1, running(failedOverRecord("x").attempts[0]));
    (*opened)->flush();
    EXPECT_EQ(rowsOf(db, "SELECT id FROM replicas"), std::vector<std::string>{"replica-b"});
  }
  EXPECT_EQ(rowsOf(db, "SELECT state, error FROM requests"),
            std::vector<std::string>{"interrupted|interrupted: its replica stopped before it ended"});
  EXPECT_EQ(rowsOf(db, "SELECT outcome FROM attempts"), std::vector<std::string>{"interrupted"});
  EXPECT_TRUE(rowsOf(db, "SELECT id FROM replicas").empty()) << "its heartbeat went with it";
}

TEST(RequestLogRealtime, ALapsedReplicasRunningRowsAreClosedByTheNextHeartbeat) {
  TempDir dir;
  fs::path db;
  {
    // A replica that crashed: its heartbeat is long past and its request still says running.
    auto opened = SqliteStore::open(dir.path(), quick("replica-c"));
    ASSERT_TRUE(opened.ok());
    db = (*opened)->databasePath();
  }
  {
    auto raw = SqliteDb::open(db.string());
    ASSERT_TRUE(raw.ok());
    ASSERT_TRUE(raw->exec("INSERT INTO replicas VALUES ('crashed', 1000, 2000);"
                          "INSERT INTO replicas VALUES ('alive', 1000, 9000000000000);"
                          "INSERT INTO requests (id, started_at, route, client_protocol, "
                          "gateway_key, model, stream, channel, key_label, status, error, "
                          "total_ms, overhead_ms, bytes_in, bytes_out, state, replica) VALUES "
                          "('r-orphan', 1500, '/v1/messages', 'anthropic', 'k', 'm', 1, '', '', 0, "
                          "'', 0, 0, 0, 0, 'in_progress', 'crashed'),"
                          "('r-other', 1500, '/v1/messages', 'anthropic', 'k', 'm', 1, '', '', 0, "
                          "'', 0, 0, 0, 0, 'in_progress', 'alive')")
                    .ok());
  }
  auto opened = SqliteStore::open(dir.path(), quick("replica-d"));
  ASSERT_TRUE(opened.ok());
  (*opened)->record(failedOverRecord("r-new"));  // the first batch comes after the first heartbeat
  (*opened)->flush();
  EXPECT_EQ(rowsOf(db, "SELECT id, state FROM requests WHERE id LIKE 'r-o%' ORDER BY id"),
            (std::vector<std::string>{"r-orphan|interrupted", "r-other|in_progress"}));
  EXPECT_EQ((*opened)->stats().interrupted, 1u);
  EXPECT_EQ(rowsOf(db, "SELECT id FROM replicas ORDER BY id"),
            (std::vector<std::string>{"alive", "replica-d"}));
}

/// A backend that keeps what it was given, to see how the writer folds events into rows.
class KeptBatches final : public RequestLogBackend {
 public:
  struct Row {
    std::int64_t seq;
    bool running;
    std::string id;
    std::size_t attempts;
  };
  Result<void> insertBatch(std::span<LogRow> batch, std::string_view) override {
    std::lock_guard lock(mutex_);
    std::vector<Row> rows;
    for (LogRow& row : batch) {
      rows.push_back({row.seq, row.running, row.record.request_id, row.record.attempts.size()});
      if (row.seq == 0) row.seq = ++last_seq_;
    }
    batches_.push_back(std::move(rows));
    return {};
  }
  Result<std::size_t> deleteExpired(WallTime, std::size_t) override { return std::size_t{0}; }
  Result<std::size_t> heartbeat(std::string_view, WallTime, std::chrono::milliseconds) override {
    return std::size_t{0};
  }
  Result<void> retire(std::string_view) override { return {}; }

  std::vector<std::vector<Row>> batches() {
    std::lock_guard lock(mutex_);
    return batches_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::vector<Row>> batches_;
  std::int64_t last_seq_ = 0;
};

TEST(RequestLogRealtime, ARequestThatEndsWithinOneBatchIsOneInsert) {
  auto backend = std::make_unique<KeptBatches>();
  KeptBatches& kept = *backend;
  RequestLogWriterOptions options;
  options.linger = std::chrono::milliseconds(10'000);  // one batch: flush cuts it short
  RequestLogWriter writer("test log", std::move(backend), options);
  std::uint64_t handle = writer.opened(head("r-short"));
  AttemptRecord attempt = failedOverRecord("x").attempts[1];
  writer.attemptChanged(handle, 1, running(attempt));
  writer.attemptChanged(handle, 1, attempt);
  RequestRecord done = failedOverRecord("r-short");
  done.attempts.erase(done.attempts.begin());
  done.log_handle = handle;
  writer.record(done);
  writer.flush();
  auto batches = kept.batches();
  ASSERT_EQ(batches.size(), 1u);
  ASSERT_EQ(batches[0].size(), 1u);
  EXPECT_EQ(batches[0][0].seq, 0) << "a new row, never a replacement";
  EXPECT_FALSE(batches[0][0].running);
  EXPECT_EQ(batches[0][0].attempts, 1u);
  EXPECT_EQ(writer.stats().written, 1u);
}

TEST(RequestLogRealtime, ShortRequestsWrittenTogetherAreNumberedInTheOrderTheyWereAdmitted) {
  // Workers account a request just after answering it: the client's next request may be
  // accounted first. Rows written in one batch follow admission, with a running row's update
  // (its own number already given) left where it is.
  auto backend = std::make_unique<KeptBatches>();
  KeptBatches& kept = *backend;
  RequestLogWriterOptions options;
  options.linger = std::chrono::milliseconds(10'000);  // one batch: flush cuts it short
  RequestLogWriter writer("test log", std::move(backend), options);
  WallTime const t0 = WallClock::now();
  std::uint64_t long_handle = writer.opened(head("r-long"));
  writer.flush();  // its row is written and numbered
  auto at = [&](std::string id, int ms) {
    RequestRecord r = failedOverRecord(std::move(id));
    r.started_at = t0 + std::chrono::milliseconds(ms);
    return r;
  };
  writer.record(at("r-third", 3));
  writer.record(at("r-first", 1));
  writer.attemptChanged(long_handle, 1, running(failedOverRecord("x").attempts[0]));
  writer.record(at("r-second", 2));
  writer.flush();
  auto batches = kept.batches();
  ASSERT_EQ(batches.size(), 2u);
  std::vector<std::string> ids;
  for (auto const& row : batches[1]) ids.push_back(row.id);
  EXPECT_EQ(ids, (std::vector<std::string>{"r-first", "r-second", "r-third", "r-long"}));
}

TEST(RequestLogRealtime, EventsOfAnUnknownHandleChangeNothing) {
  auto backend = std::make_unique<KeptBatches>();
  KeptBatches& kept = *backend;
  RequestLogWriterOptions options;
  options.linger = std::chrono::milliseconds(0);
  RequestLogWriter writer("test log", std::move(backend), options);
  // Its opening was dropped (a full queue): attempts have no row to go to; the end is written
  // whole.
  writer.attemptChanged(777, 1, failedOverRecord("x").attempts[0]);
  RequestRecord done = failedOverRecord("r-lost-open");
  done.log_handle = 777;
  writer.record(done);
  writer.flush();
  std::size_t rows = 0;
  for (auto const& batch : kept.batches()) {
    for (auto const& row : batch) {
      ++rows;
      EXPECT_EQ(row.id, "r-lost-open");
      EXPECT_FALSE(row.running);
      EXPECT_EQ(row.attempts, 2u);
    }
  }
  EXPECT_EQ(rows, 1u);
}

}  // namespace
}  // namespace llmux::store
