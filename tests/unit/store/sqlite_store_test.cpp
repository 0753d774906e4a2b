#include "store/sqlite_store.h"

#include <gtest/gtest.h>

#include <fstream>
#include <future>
#include <set>
#include <thread>

#include "captured_log.h"
#include "sample_records.h"
#include "store/sqlite_db.h"
#include "store/sqlite_schema.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

namespace fs = std::filesystem;

std::unique_ptr<SqliteStore> openStore(fs::path const& dir, SqliteStoreOptions options = {}) {
  auto store = SqliteStore::open(dir, options);
  if (!store.ok()) ADD_FAILURE() << store.error().message;
  return store.ok() ? std::move(*store) : nullptr;
}


TEST(SqliteStore, RecordsAndAttemptsRoundTrip) {
  TempDir dir;
  auto store = openStore(dir.path() / "nested" / "state");
  ASSERT_TRUE(store);
  EXPECT_TRUE(fs::exists(dir.path() / "nested" / "state" / "llmux.db"));

  RequestRecord rejected;
  rejected.request_id = "r-401";
  rejected.started_at = WallTime(std::chrono::milliseconds(1'700'000'001'000));
  rejected.route = "/v1/messages";
  rejected.status = 401;
  rejected.error = "unknown gateway key";
  store->record(failedOverRecord("r-ok"));
  store->record(rejected);
  store->flush();
  EXPECT_EQ(store->stats().written, 2u);
  EXPECT_EQ(store->stats().dropped, 0u);

  auto recent = store->recentRequests(10);
  ASSERT_TRUE(recent.ok()) << recent.error().message;
  ASSERT_EQ(recent->size(), 2u);

  RequestRecord const& newest = (*recent)[0];
  EXPECT_EQ(newest.request_id, "r-401");
  EXPECT_EQ(newest.status, 401);
  EXPECT_EQ(newest.error, "unknown gateway key");
  EXPECT_TRUE(newest.attempts.empty());
  EXPECT_FALSE(newest.usage.has_value()) << "no usage stays NULL, not zeros";
  EXPECT_EQ(newest.first_byte_ms, -1);
  EXPECT_FALSE(newest.stream);

  RequestRecord expected = failedOverRecord("r-ok");
  RequestRecord const& r = (*recent)[1];
  EXPECT_EQ(r.request_id, expected.request_id);
  EXPECT_EQ(r.started_at, expected.started_at);
  EXPECT_EQ(r.route, expected.route);
  EXPECT_EQ(r.client_protocol, expected.client_protocol);
  EXPECT_EQ(r.gateway_key, expected.gateway_key);
  EXPECT_EQ(r.client, expected.client);
  EXPECT_EQ(r.model, expected.model);
  EXPECT_TRUE(r.stream);
  EXPECT_EQ(r.channel, expected.channel);
  EXPECT_EQ(r.key_label, expected.key_label);
  EXPECT_EQ(r.status, 200);
  EXPECT_EQ(r.error, "");
  EXPECT_DOUBLE_EQ(r.first_byte_ms, expected.first_byte_ms);
  EXPECT_DOUBLE_EQ(r.total_ms, expected.total_ms);
  EXPECT_DOUBLE_EQ(r.overhead_ms, expected.overhead_ms);
  EXPECT_EQ(r.bytes_in, expected.bytes_in);
  EXPECT_EQ(r.bytes_out, expected.bytes_out);
  EXPECT_EQ(r.usage, expected.usage);
  ASSERT_EQ(r.attempts.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    AttemptRecord const& got = r.attempts[i];
    AttemptRecord const& want = expected.attempts[i];
    EXPECT_EQ(got.channel, want.channel);
    EXPECT_EQ(got.key_label, want.key_label);
    EXPECT_EQ(got.upstream_model, want.upstream_model);
    EXPECT_EQ(got.status, want.status);
    EXPECT_EQ(got.outcome, want.outcome);
    EXPECT_DOUBLE_EQ(got.first_byte_ms, want.first_byte_ms);
    EXPECT_DOUBLE_EQ(got.first_token_ms, want.first_token_ms) << "-1 (NULL) for the 429";
    EXPECT_DOUBLE_EQ(got.duration_ms, want.duration_ms);
    EXPECT_EQ(got.upstream_protocol, want.upstream_protocol);
    EXPECT_EQ(got.translated, want.translated);
  }
}

TEST(SqliteStore, TotalTokensAreStoredAsInputPlusOutput) {
  TempDir dir;
  auto store = openStore(dir.path());
  ASSERT_TRUE(store);
  store->record(failedOverRecord("r-usage"));
  store->flush();
  auto db = SqliteDb::open((dir.path() / "llmux.db").string());
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto stmt = db->prepare("SELECT total_tokens, usage_estimated FROM requests");
  ASSERT_TRUE(stmt.ok()) << stmt.error().message;
  auto row = stmt->step();
  ASSERT_TRUE(row.ok() && *row);
  EXPECT_EQ(stmt->columnInt(0), 1020);
  EXPECT_EQ(stmt->columnInt(1), 0);
}

TEST(SqliteStore, ARacedAttemptKeepsItsRoleAndTokens) {
  TempDir dir;
  auto store = openStore(dir.path());
  ASSERT_TRUE(store);
  RequestRecord r = failedOverRecord("r-race");
  r.attempts[0].outcome = AttemptOutcome::racingLost();
  r.attempts[0].role = AttemptRole::Primary;
  r.attempts[1].outcome = AttemptOutcome::racingWon();
  r.attempts[1].role = AttemptRole::Shadow;
  r.attempts[1].usage = r.usage;
  store->record(r);
  store->flush();
  auto recent = store->recentRequests(1);
  ASSERT_TRUE(recent.ok()) << recent.error().message;
  ASSERT_EQ((*recent)[0].attempts.size(), 2u);
  EXPECT_EQ((*recent)[0].attempts[0].role, AttemptRole::Primary);
  EXPECT_EQ((*recent)[0].attempts[0].outcome, AttemptOutcome::racingLost());
  EXPECT_EQ((*recent)[0].attempts[1].role, AttemptRole::Shadow);
  EXPECT_EQ((*recent)[0].attempts[1].outcome, AttemptOutcome::racingWon());
  auto db = SqliteDb::open((dir.path() / "llmux.db").string());
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto stmt = db->prepare("SELECT role, total_tokens FROM attempts ORDER BY attempt");
  ASSERT_TRUE(stmt.ok()) << stmt.error().message;
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->columnText(0), "primary");
  EXPECT_TRUE(stmt->columnIsNull(1)) << "the loser reported nothing";
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->columnText(0), "shadow");
  EXPECT_EQ(stmt->columnInt(1), 1020);
}

TEST(SqliteStore, AMediaRequestKeepsItsUnitsAndEveryRequestItsCost) {
  TempDir dir;
  auto store = openStore(dir.path());
  ASSERT_TRUE(store);
  RequestRecord video = failedOverRecord("r-video");
  video.route = "/v1/videos";
  video.usage.reset();
  video.media = MediaUsage{"videos", "seconds", 8};
  video.cost_usd = 0.8;
  store->record(video);
  RequestRecord chat = failedOverRecord("r-chat");  // no price applied: both stay NULL
  store->record(chat);
  store->flush();
  auto recent = store->recentRequests(2);
  ASSERT_TRUE(recent.ok()) << recent.error().message;
  ASSERT_EQ(recent->size(), 2u);
  EXPECT_FALSE((*recent)[0].media);
  EXPECT_FALSE((*recent)[0].cost_usd);
  EXPECT_EQ((*recent)[1].media, (MediaUsage{"videos", "seconds", 8}));
  EXPECT_EQ((*recent)[1].cost_usd, 0.8);
  auto db = SqliteDb::open((dir.path() / "llmux.db").string());
  ASSERT_TRUE(db.ok()) << db.error().message;
  auto stmt = db->prepare("SELECT media_modality, media_unit, media_quantity, cost_usd FROM requests "
                          "WHERE id = 'r-video'");
  ASSERT_TRUE(stmt.ok()) << stmt.error().message;
  ASSERT_TRUE(*stmt->step());
  EXPECT_EQ(stmt->columnText(0), "videos");
  EXPECT_EQ(stmt->columnText(1), "seconds");
  EXPECT_EQ(stmt->columnDouble(2), 8);
  EXPECT_EQ(stmt->columnDouble(3), 0.8);
}

TEST(SqliteStore, RecentRequestsHonoursTheLimitAndKeepsDuplicateIds) {
  TempDir dir;
  auto store = openStore(dir.path());
  ASSERT_TRUE(store);
  for (int i = 0; i < 5; ++i) {
    // Client-supplied request ids may repeat: every request still gets its own row.
    RequestRecord r = failedOverRecord(i < 2 ? "dup" : "id-" + std::to_string(i));
    r.bytes_in = static_cast<std::uint64_t>(i);
    store->record(std::move(r));
  }
  store->flush();
  auto recent = store->recentRequests(3);
  ASSERT_TRUE(recent.ok());
  ASSERT_EQ(recent->size(), 3u);
  EXPECT_EQ((*recent)[0].bytes_in, 4u);
  EXPECT_EQ((*recent)[2].bytes_in, 2u);
  for (auto const& r : *recent) EXPECT_EQ(r.attempts.size(), 2u);

  auto all = store->recentRequests(100);
  ASSERT_TRUE(all.ok());
  ASSERT_EQ(all->size(), 5u);
  EXPECT_EQ((*all)[3].request_id, "dup");
  EXPECT_EQ((*all)[4].request_id, "dup");
  EXPECT_EQ((*all)[4].attempts.size(), 2u);
  EXPECT_TRUE(store->recentRequests(0)->empty());
}

TEST(SqliteStore, SettingsPersistAcrossReopen) {
  TempDir dir;
  {
    auto store = openStore(dir.path());
    ASSERT_TRUE(store);
    EXPECT_FALSE(store->getSetting("default_gateway_key").has_value());
    store->putSetting("default_gateway_key", "first");
    store->putSetting("default_gateway_key", "second");
    store->putSetting("empty", "");
    EXPECT_EQ(store->getSetting("default_gateway_key"), "second");
  }
  auto reopened = openStore(dir.path());
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->getSetting("default_gateway_key"), "second");
  EXPECT_EQ(reopened->getSetting("empty"), "");
  EXPECT_FALSE(reopened->getSetting("other").has_value());
}

TEST(SqliteStore, RecordsQueuedBeforeCloseAreWrittenByTheDestructor) {
  TempDir dir;
  {
    auto store = openStore(dir.path());
    ASSERT_TRUE(store);
    for (int i = 0; i < 50; ++i) store->record(failedOverRecord("r" + std::to_string(i)));
  }
  auto reopened = openStore(dir.path());
  ASSERT_TRUE(reopened);
  auto recent = reopened->recentRequests(1000);
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(recent->size(), 50u);
}

TEST(SqliteStore, AThousandRecordsFromFourThreadsAllArrive) {
  TempDir dir;
  SqliteStoreOptions options;
  options.batch_size = 64;  // several transactions, interleaved with the producers
  auto store = openStore(dir.path(), options);
  ASSERT_TRUE(store);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 250;
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&store, t] {
      for (int i = 0; i < kPerThread; ++i)
        store->record(failedOverRecord(std::to_string(t) + "-" + std::to_string(i)));
    });
  }
  for (auto& th : threads) th.join();
  store->flush();

  RequestLogStats stats = store->stats();
  EXPECT_EQ(stats.written, std::uint64_t{kThreads} * kPerThread);
  EXPECT_EQ(stats.dropped, 0u);
  EXPECT_EQ(stats.queued, 0u);
  EXPECT_EQ(stats.failed_batches, 0u);
  EXPECT_EQ(store->lastWriteError(), "");
  auto recent = store->recentRequests(5000);
  ASSERT_TRUE(recent.ok());
  ASSERT_EQ(recent->size(), std::size_t{kThreads} * kPerThread);
  std::set<std::string> ids;
  std::size_t attempts = 0;
  for (auto const& r : *recent) {
    ids.insert(r.request_id);
    attempts += r.attempts.size();
  }
  EXPECT_EQ(ids.size(), std::size_t{kThreads} * kPerThread);
  EXPECT_EQ(attempts, 2u * kThreads * kPerThread);
}

// --- never blocking, nothing lost silently ------------------------------------------------------

/// Another connection holding SQLite's write lock, as a stuck checkpoint or an operator's
/// sqlite3 shell in a transaction would, until released.
class WriteLock {
 public:
  explicit WriteLock(fs::path const& dir) {
    auto db = SqliteDb::open((dir / SqliteStore::kFileName).string());
    EXPECT_TRUE(db.ok());
    if (db.ok()) db_ = std::move(*db);
    EXPECT_TRUE(db_.exec("BEGIN IMMEDIATE").ok());
  }
  ~WriteLock() { release(); }
  void release() {
    if (held_) (void)db_.exec("COMMIT");
    held_ = false;
  }

 private:
  SqliteDb db_;
  bool held_ = true;
};

TEST(SqliteStore, ALockedDatabaseNeverBlocksRecordAndEveryRecordIsWrittenOrCounted) {
  TempDir dir;
  SqliteStoreOptions options;
  options.queue_capacity = 8;
  options.batch_size = 4;
  options.linger = std::chrono::milliseconds(0);
  auto store = openStore(dir.path(), options);
  ASSERT_TRUE(store);
  WriteLock lock(dir.path());

  constexpr int kRecords = 200;
  auto producer = std::async(std::launch::async, [&] {
    for (int i = 0; i < kRecords; ++i) store->record(failedOverRecord("r" + std::to_string(i)));
  });
  ASSERT_EQ(producer.wait_for(std::chrono::seconds(10)), std::future_status::ready)
      << "record() waited for the locked database";
  RequestLogStats stats = store->stats();
  // The writer holds at most one batch (waiting for the lock), the queue at most its capacity.
  EXPECT_GE(stats.dropped, std::uint64_t{kRecords} - options.queue_capacity - options.batch_size);
  EXPECT_LE(stats.queued, options.queue_capacity);

  lock.release();
  store->flush();
  stats = store->stats();
  EXPECT_EQ(stats.written + stats.dropped, std::uint64_t{kRecords}) << "none lost uncounted";
  EXPECT_EQ(stats.queued, 0u);
  EXPECT_EQ(stats.failed_batches, 0u) << "the lock was released within the retries";
  auto recent = store->recentRequests(1000);
  ASSERT_TRUE(recent.ok());
  EXPECT_EQ(recent->size(), stats.written);
}

TEST(SqliteStore, FailedBatchesAreCountedAndLoggedOncePerBurst) {
  TempDir dir;
  CapturedLog captured;
  ManualTimeSource clock;
  SqliteStoreOptions options;
  options.clock = &clock;
  options.batch_size = 1;
  options.linger = std::chrono::milliseconds(0);
  options.write_retries = 0;
  auto store = openStore(dir.path(), options);
  ASSERT_TRUE(store);

  // The table the writer inserts into goes away: every batch fails until it is back.
  auto admin = SqliteDb::open((dir.path() / SqliteStore::kFileName).string());
  ASSERT_TRUE(admin.ok());
  ASSERT_TRUE(admin->exec("ALTER TABLE requests RENAME TO requests_away").ok());
  for (int i = 0; i < 10; ++i) {
    store->record(failedOverRecord("lost-" + std::to_string(i)));
    store->flush();  // one batch each
  }
  RequestLogStats stats = store->stats();
  EXPECT_EQ(stats.failed_batches, 10u);
  EXPECT_EQ(stats.dropped, 10u);
  EXPECT_EQ(stats.written, 0u);
  EXPECT_NE(store->lastWriteError().find("requests"), std::string::npos) << store->lastWriteError();
  // The writes' lines (the heartbeat, which finds no table either, logs bursts of its own).
  auto writeLines = [&] {
    auto lines = captured.lines();
    std::erase_if(lines, [](auto const& line) { return line.find("heartbeat") != std::string::npos; });
    return lines;
  };
  auto lines = writeLines();
  ASSERT_EQ(lines.size(), 1u) << "one line for the burst, not one per batch";
  EXPECT_NE(lines[0].find("ERROR request log write failed: a batch of 1 row(s) was dropped"),
            std::string::npos)
      << lines[0];

  // Later failures are summarised once the interval has passed.
  clock.advance(options.failure_log_interval);
  store->record(failedOverRecord("lost-summarised"));
  store->flush();
  lines = writeLines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_NE(lines[1].find("request log write failed 10 more time(s)"), std::string::npos)
      << lines[1];

  ASSERT_TRUE(admin->exec("ALTER TABLE requests_away RENAME TO requests").ok());
  store->record(failedOverRecord("kept"));
  store->flush();
  EXPECT_EQ(store->stats().written, 1u);
  lines = writeLines();
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_NE(lines[2].find("request log write works again after 11 failure(s)"), std::string::npos)
      << lines[2];
}

// --- retention ----------------------------------------------------------------------------------

/// A record that started `age` before `clock`'s wall time.
RequestRecord startedAgo(std::string id, ManualTimeSource const& clock, std::chrono::hours age) {
  RequestRecord r = failedOverRecord(std::move(id));
  r.started_at = clock.wallNow() - age;
  return r;
}

std::int64_t countRows(fs::path const& dir, char const* sql) {
  auto db = SqliteDb::open((dir / SqliteStore::kFileName).string());
  EXPECT_TRUE(db.ok());
  auto stmt = db->prepare(sql);
  EXPECT_TRUE(stmt.ok());
  EXPECT_TRUE(stmt->step().value());
  return stmt->columnInt(0);
}

/// A store on `clock` keeping requests `days` days, looking for expired ones every 5 minutes.
SqliteStoreOptions retentionOptions(ManualTimeSource const& clock, int days) {
  SqliteStoreOptions options;
  options.clock = &clock;
  options.retention = std::chrono::days(days);
  options.retention_interval = std::chrono::minutes(5);
  return options;
}

TEST(SqliteStore, TheWriterDeletesExpiredRequestsOnItsSchedule) {
  TempDir dir;
  ManualTimeSource clock;
  SqliteStoreOptions options = retentionOptions(clock, 30);
  auto store = openStore(dir.path(), options);
  ASSERT_TRUE(store);
  using std::chrono::hours;
  for (int i = 0; i < 3; ++i) store->record(startedAgo("old", clock, hours(24 * 31 + i)));
  store->record(startedAgo("recent", clock, hours(24 * 29)));
  store->flush();
  EXPECT_EQ(countRows(dir.path(), "SELECT COUNT(*) FROM requests"), 4) << "not due yet";

  clock.advance(std::chrono::minutes(5));
  store->record(startedAgo("new", clock, hours(0)));  // wakes the writer
  store->flush();
  auto recent = store->recentRequests(100);
  ASSERT_TRUE(recent.ok());
  ASSERT_EQ(recent->size(), 2u);
  EXPECT_EQ((*recent)[0].request_id, "new");
  EXPECT_EQ((*recent)[1].request_id, "recent");
  EXPECT_EQ((*recent)[1].attempts.size(), 2u);
  EXPECT_EQ(countRows(dir.path(), "SELECT COUNT(*) FROM attempts"), 4) << "the old attempts too";
  EXPECT_EQ(store->stats().expired, 3u);
}

TEST(SqliteStore, RetentionZeroKeepsEverythingUntilChanged) {
  TempDir dir;
  ManualTimeSource clock;
  SqliteStoreOptions options = retentionOptions(clock, 0);
  auto store = openStore(dir.path(), options);
  ASSERT_TRUE(store);
  store->record(startedAgo("ancient", clock, std::chrono::hours(24 * 3650)));
  store->flush();
  clock.advance(options.retention_interval);
  store->record(startedAgo("new", clock, std::chrono::hours(0)));
  store->flush();
  EXPECT_EQ(countRows(dir.path(), "SELECT COUNT(*) FROM requests"), 2);

  store->setRetention(std::chrono::days(365));  // a configuration reload
  clock.advance(options.retention_interval);
  store->record(startedAgo("newer", clock, std::chrono::hours(0)));
  store->flush();
  EXPECT_EQ(countRows(dir.path(), "SELECT COUNT(*) FROM requests"), 2);
  EXPECT_EQ(store->stats().expired, 1u);
}

TEST(SqliteSchema, MigratesOnceAndRefusesANewerDatabase) {
  TempDir dir;
  { ASSERT_TRUE(openStore(dir.path())); }
  std::string path = (dir.path() / "llmux.db").string();
  {
    auto db = SqliteDb::open(path);
    ASSERT_TRUE(db.ok());
    auto version = schemaVersion(*db);
    ASSERT_TRUE(version.ok());
    EXPECT_EQ(*version, currentSchemaVersion());
    ASSERT_TRUE(migrate(*db).ok());  // already current: a no-op
    auto rows = db->prepare("SELECT COUNT(*) FROM schema_version");
    ASSERT_TRUE(rows.ok());
    ASSERT_TRUE(rows->step().value());
    EXPECT_EQ(rows->columnInt(0), 1);
  }
  {
    auto db = SqliteDb::open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("UPDATE schema_version SET version = version + 1").ok());
  }
  auto refused = SqliteStore::open(dir.path());
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("newer"), std::string::npos);
}

TEST(SqliteSchema, AVersionThreeDatabaseGainsTheFirstTokenColumnAndKeepsItsRows) {
  TempDir dir;
  { ASSERT_TRUE(openStore(dir.path())); }
  std::string path = (dir.path() / "llmux.db").string();
  {
    // Back to the schema before migration 4 (and 5 to 10), with a row written by that version.
    auto db = SqliteDb::open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("DROP TABLE managed_objects; DROP TABLE audit_log").ok());
    ASSERT_TRUE(db->exec("DROP TABLE racing_switches; DROP TABLE latency_penalties").ok());
    ASSERT_TRUE(db->exec("DROP TABLE video_jobs").ok());
    ASSERT_TRUE(db->exec("DROP TABLE replicas; DROP INDEX requests_running").ok());
    ASSERT_TRUE(db->exec("ALTER TABLE requests DROP COLUMN state").ok());
    ASSERT_TRUE(db->exec("ALTER TABLE requests DROP COLUMN replica").ok());
    ASSERT_TRUE(db->exec("ALTER TABLE attempts DROP COLUMN first_token_ms").ok());
    ASSERT_TRUE(db->exec("ALTER TABLE attempts DROP COLUMN role").ok());
    ASSERT_TRUE(db->exec("ALTER TABLE attempts DROP COLUMN total_tokens").ok());
    for (char const* column : {"media_modality", "media_unit", "media_quantity", "cost_usd"}) {
      ASSERT_TRUE(db->exec((std::string("ALTER TABLE requests DROP COLUMN ") + column).c_str()).ok());
    }
    ASSERT_TRUE(db->exec("UPDATE schema_version SET version = 3").ok());
    ASSERT_TRUE(
        db->exec("INSERT INTO requests (id, started_at, route, client_protocol, gateway_key, "
                 "model, stream, channel, key_label, status, error, total_ms, overhead_ms, "
                 "bytes_in, bytes_out) VALUES ('old', 1700000000000, '/v1/messages', "
                 "'anthropic', 'k', 'm', 1, 'c', 'c#0', 200, '', 10, 1, 1, 1)")
            .ok());
    ASSERT_TRUE(db->exec("INSERT INTO attempts (request_seq, request_id, attempt, channel, "
                         "key_label, upstream_model, status, outcome, first_byte_ms, duration_ms) "
                         "VALUES (1, 'old', 1, 'c', 'c#0', 'm', 200, 'ok', 5, 9)")
                    .ok());
  }
  auto store = openStore(dir.path());
  ASSERT_TRUE(store);
  auto recent = store->recentRequests(10);
  ASSERT_TRUE(recent.ok()) << recent.error().message;
  ASSERT_EQ(recent->size(), 1u);
  ASSERT_EQ((*recent)[0].attempts.size(), 1u);
  EXPECT_DOUBLE_EQ((*recent)[0].attempts[0].first_byte_ms, 5);
  EXPECT_DOUBLE_EQ((*recent)[0].attempts[0].first_token_ms, -1) << "NULL for an older row";
  store->record(failedOverRecord("new"));
  store->flush();
  recent = store->recentRequests(1);
  ASSERT_TRUE(recent.ok()) << recent.error().message;
  ASSERT_EQ((*recent)[0].attempts.size(), 2u);
  EXPECT_DOUBLE_EQ((*recent)[0].attempts[1].first_token_ms, 980.5);
}

TEST(SqliteStore, UnusableStateDirectoryIsAnError) {
  TempDir dir;
  fs::create_directories(dir.path());
  std::ofstream(dir.path() / "file") << "x";
  auto store = SqliteStore::open(dir.path() / "file" / "state");
  ASSERT_FALSE(store.ok());
  EXPECT_NE(store.error().message.find("state directory"), std::string::npos);
}

}  // namespace
}  // namespace llmux::store
