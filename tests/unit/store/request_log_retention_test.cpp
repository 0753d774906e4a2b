#include "store/request_log_retention.h"

#include <gtest/gtest.h>

#include <string>

#include "store/sqlite_schema.h"
#include "store/sqlite_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

using std::chrono::hours;

// ManualTimeSource's wall clock starts at 1,700,000,000 s.
WallTime const kNow = WallTime(std::chrono::seconds(1'700'000'000));

class RequestLogRetentionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::filesystem::create_directories(dir_.path());
    auto db = SqliteDb::open((dir_.path() / SqliteStore::kFileName).string());
    ASSERT_TRUE(db.ok()) << db.error().message;
    db_ = std::move(*db);
    ASSERT_TRUE(migrate(db_).ok());
  }

  /// A request started at `started` with `attempts` attempts; returns its seq.
  std::int64_t insert(std::string const& id, WallTime started, int attempts) {
    auto request = db_.prepare(
        "INSERT INTO requests (id, started_at, route, client_protocol, gateway_key, model, "
        "stream, channel, key_label, status, error, total_ms, overhead_ms, bytes_in, bytes_out) "
        "VALUES (?, ?, '/v1/messages', 'anthropic', 'team', 'm', 0, 'c', 'c#0', 200, '', 1, 0, 1, "
        "1)");
    EXPECT_TRUE(request.ok());
    request->bind(1, id);
    request->bind(2, toUnixMillis(started));
    EXPECT_TRUE(request->step().ok());
    std::int64_t seq = db_.lastInsertRowid();
    for (int i = 1; i <= attempts; ++i) {
      auto attempt = db_.prepare(
          "INSERT INTO attempts (request_seq, request_id, attempt, channel, key_label, "
          "upstream_model, status, outcome, duration_ms) VALUES (?, ?, ?, 'c', 'c#0', 'm', 200, "
          "'ok', 1)");
      EXPECT_TRUE(attempt.ok());
      attempt->bind(1, seq);
      attempt->bind(2, id);
      attempt->bind(3, std::int64_t{i});
      EXPECT_TRUE(attempt->step().ok());
    }
    return seq;
  }

  std::vector<std::string> ids(char const* sql) {
    auto stmt = db_.prepare(sql);
    EXPECT_TRUE(stmt.ok());
    std::vector<std::string> out;
    while (stmt->step().value()) out.emplace_back(stmt->columnText(0));
    return out;
  }

  TempDir dir_;
  SqliteDb db_;
};

TEST_F(RequestLogRetentionTest, DeletesExpiredRequestsAndTheirAttemptsInChunksOldestFirst) {
  insert("old-3", kNow - hours(24 * 40), 2);
  insert("old-1", kNow - hours(24 * 60), 1);
  insert("recent", kNow - hours(1), 2);
  insert("old-2", kNow - hours(24 * 50), 3);
  insert("edge", kNow - hours(24 * 30), 1);  // exactly at the cutoff: kept
  insert("old-4", kNow - hours(24 * 31), 0);

  auto retention = RequestLogRetention::prepare(db_);
  ASSERT_TRUE(retention.ok()) << retention.error().message;
  WallTime cutoff = kNow - hours(24 * 30);

  auto deleted = retention->deleteChunk(cutoff, 2);
  ASSERT_TRUE(deleted.ok()) << deleted.error().message;
  EXPECT_EQ(*deleted, 2u) << "a full chunk: more may wait";
  EXPECT_EQ(ids("SELECT id FROM requests ORDER BY seq"),
            (std::vector<std::string>{"old-3", "recent", "edge", "old-4"}));
  EXPECT_EQ(ids("SELECT DISTINCT request_id FROM attempts ORDER BY request_seq"),
            (std::vector<std::string>{"old-3", "recent", "edge"}));

  deleted = retention->deleteChunk(cutoff, 2);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 2u);
  deleted = retention->deleteChunk(cutoff, 2);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 0u);
  EXPECT_EQ(ids("SELECT id FROM requests ORDER BY seq"),
            (std::vector<std::string>{"recent", "edge"}));
  EXPECT_EQ(ids("SELECT request_id || '/' || attempt FROM attempts ORDER BY request_seq, attempt"),
            (std::vector<std::string>{"recent/1", "recent/2", "edge/1"}));
}

TEST_F(RequestLogRetentionTest, EachChunkReadsOnlyThroughIndexes) {
  // A full scan of a months-long log would hold the write lock for seconds; the plan must
  // search the started_at index and the primary keys only.
  for (char const* sql :
       {RequestLogRetention::kDeleteAttempts, RequestLogRetention::kDeleteRequests}) {
    SCOPED_TRACE(sql);
    auto plan = db_.prepare(std::string("EXPLAIN QUERY PLAN ") + sql);
    ASSERT_TRUE(plan.ok()) << plan.error().message;
    std::string details;
    while (plan->step().value()) {
      std::string detail(plan->columnText(3));
      details += detail + "\n";
      EXPECT_NE(detail.rfind("SCAN", 0), 0u) << "a full scan: " << detail;
    }
    EXPECT_NE(details.find("requests_started_at"), std::string::npos) << details;
  }
}

}  // namespace
}  // namespace llmux::store
