// The request log read back from SQLite (store/sqlite_request_log_reader.h), over rows its own
// writer wrote, and the admin endpoints' parameters (store/request_log_params.h).

#include "store/sqlite_request_log_reader.h"

#include <gtest/gtest.h>

#include "request_log_reader_cases.h"
#include "store/request_log_params.h"
#include "store/sqlite_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

using namespace reader_cases;

class SqliteRequestLogReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SqliteStore::open(dir_.path());
    ASSERT_TRUE(opened.ok()) << opened.error().message;
    store_ = std::move(*opened);
    auto reader = SqliteRequestLogReader::open(store_->databasePath());
    ASSERT_TRUE(reader.ok()) << reader.error().message;
    reader_ = std::move(*reader);
    writeSample([this](std::vector<RequestRecord> const& done, RequestRecord const* running) {
      for (auto const& r : done) store_->record(r);
      if (running != nullptr) {
        EXPECT_NE(store_->opened(*running), 0u);
      }
      store_->flush();
    });
  }

  TempDir dir_;
  std::unique_ptr<SqliteStore> store_;
  std::unique_ptr<SqliteRequestLogReader> reader_;
};

TEST_F(SqliteRequestLogReaderTest, SearchesByEveryFilterNewestFirst) { searchesByEveryFilter(*reader_); }
TEST_F(SqliteRequestLogReaderTest, PagesWithTheBeforeCursor) { pagesWithBefore(*reader_); }
TEST_F(SqliteRequestLogReaderTest, GetsOneRequestWithItsAttempts) { getsOneRequestWithItsAttempts(*reader_); }
TEST_F(SqliteRequestLogReaderTest, AggregatesUsageByGroupAndBucket) { aggregatesUsage(*reader_); }

TEST_F(SqliteRequestLogReaderTest, SeesRowsWrittenAfterItOpened) {
  auto search = reader_->search(RequestSearch{});
  ASSERT_TRUE(search.ok());
  EXPECT_EQ(search->requests.size(), 7u);
  // Rows written after the reader opened are seen by its next read (WAL, one snapshot per call).
  RequestRecord later = row("later", kT + 3 * kDay, "team-c", "gpt-4o", "primary", 200);
  store_->record(later);
  store_->flush();
  EXPECT_EQ(ids(*reader_, RequestSearch{}).front(), "later");
}

// --- parameters ---------------------------------------------------------------------------------

std::string refusal(QueryParams const& params) {
  auto search = parseRequestSearch(params);
  return search.ok() ? "<accepted>" : search.error().message;
}

TEST(RequestLogParams, ASearchTakesEveryParameter) {
  auto search = parseRequestSearch({{"from", "2023-11-14T22:13:20Z"},
                                    {"to", "1700003600000"},
                                    {"gateway_key", "team-a"},
                                    {"model", "gpt-4o"},
                                    {"channel", "primary"},
                                    {"status", "4xx"},
                                    {"state", "done"},
                                    {"request_id", "r-1"},
                                    {"limit", "500"},
                                    {"before", "42"}});
  ASSERT_TRUE(search.ok()) << search.error().message;
  EXPECT_EQ(search->from_ms, 1'700'000'000'000);
  EXPECT_EQ(search->to_ms, 1'700'003'600'000);
  EXPECT_EQ(search->gateway_key, "team-a");
  EXPECT_EQ(search->model, "gpt-4o");
  EXPECT_EQ(search->channel, "primary");
  EXPECT_EQ(search->status_min, 400);
  EXPECT_EQ(search->status_max, 499);
  EXPECT_EQ(search->state, "done");
  EXPECT_EQ(search->request_id, "r-1");
  EXPECT_EQ(search->limit, 500u);
  EXPECT_EQ(search->before, 42);

  auto defaults = parseRequestSearch({});
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->limit, 50u);
  EXPECT_FALSE(defaults->from_ms);
  EXPECT_FALSE(defaults->status_min);

  auto exact = parseRequestSearch({{"status", "429"}, {"from", "2023-11-14T23:13:20+01:00"}});
  ASSERT_TRUE(exact.ok());
  EXPECT_EQ(exact->status_min, 429);
  EXPECT_EQ(exact->status_max, 429);
  EXPECT_EQ(exact->from_ms, 1'700'000'000'000) << "the offset is honoured";
}

TEST(RequestLogParams, ABadParameterIsRefusedByName) {
  EXPECT_EQ(refusal({{"limit", "0"}}), "query parameter 'limit': expected a number from 1 to 500");
  EXPECT_NE(refusal({{"limit", "501"}}).find("'limit'"), std::string::npos);
  EXPECT_NE(refusal({{"limit", "ten"}}).find("'limit'"), std::string::npos);
  EXPECT_NE(refusal({{"status", "6xx"}}).find("'status'"), std::string::npos);
  EXPECT_NE(refusal({{"status", "42"}}).find("'status'"), std::string::npos);
  EXPECT_NE(refusal({{"state", "running"}}).find("'state'"), std::string::npos);
  EXPECT_NE(refusal({{"from", "yesterday"}}).find("'from'"), std::string::npos);
  EXPECT_NE(refusal({{"to", "2023-13-01T00:00:00Z"}}).find("'to'"), std::string::npos);
  EXPECT_NE(refusal({{"before", "0"}}).find("'before'"), std::string::npos);
  EXPECT_NE(refusal({{"model", ""}}).find("'model': empty"), std::string::npos);
  EXPECT_NE(refusal({{"model", "a"}, {"model", "b"}}).find("more than once"), std::string::npos);
  EXPECT_EQ(refusal({{"user", "x"}}), "query parameter 'user': unknown");
  EXPECT_NE(refusal({{"from", "2000"}, {"to", "1000"}}).find("'from'"), std::string::npos);
}

TEST(RequestLogParams, UsageTakesItsRangeGroupAndBucket) {
  WallTime const now = WallTime(std::chrono::milliseconds(kT));
  auto defaults = parseUsageQuery({}, now);
  ASSERT_TRUE(defaults.ok());
  EXPECT_EQ(defaults->to_ms, kT);
  EXPECT_EQ(defaults->from_ms, kT - kDay);
  EXPECT_EQ(defaults->group, UsageGroup::None);
  EXPECT_EQ(defaults->bucket, UsageBucket::None);

  auto q = parseUsageQuery({{"from", "0"}, {"to", "3600000"}, {"group_by", "channel"}, {"bucket", "hour"}}, now);
  ASSERT_TRUE(q.ok()) << q.error().message;
  EXPECT_EQ(q->from_ms, 0);
  EXPECT_EQ(q->to_ms, kHour);
  EXPECT_EQ(q->group, UsageGroup::Channel);
  EXPECT_EQ(q->bucket, UsageBucket::Hour);
  EXPECT_EQ(parseUsageQuery({{"group_by", "gateway_key"}}, now)->group, UsageGroup::GatewayKey);
  EXPECT_EQ(parseUsageQuery({{"group_by", "model"}, {"bucket", "day"}}, now)->bucket, UsageBucket::Day);

  auto refused = [&](QueryParams const& params) {
    auto r = parseUsageQuery(params, now);
    return r.ok() ? "<accepted>" : r.error().message;
  };
  EXPECT_NE(refused({{"group_by", "user"}}).find("'group_by'"), std::string::npos);
  EXPECT_NE(refused({{"bucket", "week"}}).find("'bucket'"), std::string::npos);
  EXPECT_EQ(parseUsageQuery({{"bucket", "minute"}}, now)->bucket, UsageBucket::Minute);
  EXPECT_NE(refused({{"bucket", "minute"}, {"from", "0"}, {"to", std::to_string(2 * kDay)}})
                .find("at most one day"),
            std::string::npos);
  EXPECT_NE(refused({{"limit", "5"}}).find("'limit': unknown"), std::string::npos);
  // 400 days is the widest range; one millisecond more is refused.
  std::string const from = std::to_string(kT - 400 * kDay);
  EXPECT_EQ(refused({{"from", from}}), "<accepted>");
  EXPECT_EQ(refused({{"from", std::to_string(kT - 400 * kDay - 1)}}),
            "query parameter 'to': the range is over 400 days");
}

}  // namespace
}  // namespace llmux::store
