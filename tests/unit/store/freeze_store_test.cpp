#include "store/freeze_store.h"

#include <gtest/gtest.h>

#include "store/sqlite_db.h"
#include "store/sqlite_schema.h"
#include "store/sqlite_store.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

std::unique_ptr<SqliteFreezeStore> openFreezes(fs::path const& dir) {
  auto store = SqliteFreezeStore::open(dir);
  if (!store.ok()) ADD_FAILURE() << store.error().message;
  return store.ok() ? std::move(*store) : nullptr;
}

WallTime at(std::int64_t unix_ms) {
  return WallTime(std::chrono::duration_cast<WallClock::duration>(milliseconds(unix_ms)));
}

routing::Freeze keyFreeze() {
  routing::Freeze f;
  f.id = "frz_0123456789abcdef";
  f.object = config::FreezeObject::KeyModel;
  f.period = config::FreezePeriod::UpstreamReset;
  f.channel = "openai";
  f.key_id = "kid-1";
  f.key_label = "openai#0";
  f.model = "gpt-4o";
  f.created = at(1'700'000'000'123);
  f.until = at(1'700'006'400'000);
  f.rule = "quota";
  f.reason = "status 429: insufficient_quota";
  return f;
}

routing::Freeze channelForever() {
  routing::Freeze f;
  f.id = "frz_fedcba9876543210";
  f.object = config::FreezeObject::Channel;
  f.period = config::FreezePeriod::Forever;
  f.channel = "anthropic";
  f.created = at(1'700'000'001'000);
  f.until = std::nullopt;
  f.rule = "rule#1";
  f.reason = "status 403";
  return f;
}

void expectSame(routing::Freeze const& got, routing::Freeze const& want) {
  EXPECT_EQ(got.id, want.id);
  EXPECT_EQ(got.object, want.object);
  EXPECT_EQ(got.period, want.period);
  EXPECT_EQ(got.channel, want.channel);
  EXPECT_EQ(got.key_id, want.key_id);
  EXPECT_EQ(got.key_label, want.key_label);
  EXPECT_EQ(got.model, want.model);
  EXPECT_EQ(got.created, want.created);
  EXPECT_EQ(got.until, want.until);
  EXPECT_EQ(got.rule, want.rule);
  EXPECT_EQ(got.reason, want.reason);
}

std::vector<routing::Freeze> loadAll(SqliteFreezeStore& store) {
  auto loaded = store.load();
  if (!loaded.ok()) ADD_FAILURE() << loaded.error().message;
  return loaded.ok() ? std::move(*loaded) : std::vector<routing::Freeze>{};
}

TEST(SqliteFreezeStore, SaveLoadRemoveRoundTrip) {
  TempDir dir;
  auto store = openFreezes(dir.path());
  ASSERT_TRUE(store);
  EXPECT_TRUE(loadAll(*store).empty());

  ASSERT_TRUE(store->save(channelForever()).ok());
  ASSERT_TRUE(store->save(keyFreeze()).ok());
  auto loaded = loadAll(*store);
  ASSERT_EQ(loaded.size(), 2u);
  expectSame(loaded[0], keyFreeze());  // oldest first
  expectSame(loaded[1], channelForever());

  // Saving an id again replaces it (an extended freeze).
  routing::Freeze extended = keyFreeze();
  extended.until = at(1'701'388'800'000);
  extended.period = config::FreezePeriod::Month;
  ASSERT_TRUE(store->save(extended).ok());
  loaded = loadAll(*store);
  ASSERT_EQ(loaded.size(), 2u);
  expectSame(loaded[0], extended);

  ASSERT_TRUE(store->remove(keyFreeze().id).ok());
  EXPECT_TRUE(store->remove("frz_unknown").ok());  // nothing to remove is not an error
  loaded = loadAll(*store);
  ASSERT_EQ(loaded.size(), 1u);
  expectSame(loaded[0], channelForever());
}

TEST(SqliteFreezeStore, FreezesSurviveReopeningBesideTheRequestLog) {
  TempDir dir;
  {
    // The request log holds its own connections to the same file meanwhile.
    auto log = SqliteStore::open(dir.path());
    ASSERT_TRUE(log.ok()) << log.error().message;
    auto store = openFreezes(dir.path());
    ASSERT_TRUE(store);
    ASSERT_TRUE(store->save(keyFreeze()).ok());
    (*log)->putSetting("k", "v");
  }
  auto store = openFreezes(dir.path());
  ASSERT_TRUE(store);
  auto loaded = loadAll(*store);
  ASSERT_EQ(loaded.size(), 1u);
  expectSame(loaded[0], keyFreeze());
}

TEST(SqliteFreezeStore, AFreezeTableRestoresFromIt) {
  TempDir dir;
  ManualTimeSource clock;
  std::string id;
  {
    auto store = openFreezes(dir.path());
    ASSERT_TRUE(store);
    FreezeWriter writer(*store, clock);
    routing::FreezeTable table(clock, &writer);
    config::FreezeRule rule;
    rule.name = "forbidden";
    rule.status = 403;
    id = table.apply(rule, {"openai", "kid-1", "openai#0", "gpt-4o"}, std::nullopt, "status 403").id;
    writer.flush();
    EXPECT_EQ(table.persistenceFailures(), 0u);
    EXPECT_EQ(loadAll(*store).size(), 1u);
  }
  auto store = openFreezes(dir.path());
  ASSERT_TRUE(store);
  {
    FreezeWriter writer(*store, clock);
    routing::FreezeTable table(clock, &writer);
    table.load();
    ASSERT_TRUE(table.frozen("openai", "kid-1", "gpt-4o"));
    EXPECT_TRUE(table.lift(id));
  }  // the writer's destructor writes what is queued
  EXPECT_TRUE(loadAll(*store).empty()) << "a lifted freeze must not come back";
}

// The schema exactly as llmux at version 2 created it (migrations 1 and 2, which never change).
constexpr char const* kVersion2Schema = R"sql(
CREATE TABLE schema_version (version INTEGER NOT NULL);
INSERT INTO schema_version (version) VALUES (2);
CREATE TABLE requests (
  seq INTEGER PRIMARY KEY, id TEXT NOT NULL, started_at INTEGER NOT NULL, route TEXT NOT NULL,
  client_protocol TEXT NOT NULL, gateway_key TEXT NOT NULL, model TEXT NOT NULL,
  stream INTEGER NOT NULL, channel TEXT NOT NULL, key_label TEXT NOT NULL, status INTEGER NOT NULL,
  error TEXT NOT NULL, first_byte_ms REAL, total_ms REAL NOT NULL, overhead_ms REAL NOT NULL,
  bytes_in INTEGER NOT NULL, bytes_out INTEGER NOT NULL, client TEXT NOT NULL DEFAULT ''
);
CREATE INDEX requests_started_at ON requests(started_at);
CREATE TABLE attempts (
  request_seq INTEGER NOT NULL REFERENCES requests(seq) ON DELETE CASCADE,
  request_id TEXT NOT NULL, attempt INTEGER NOT NULL, channel TEXT NOT NULL,
  key_label TEXT NOT NULL, upstream_model TEXT NOT NULL, status INTEGER NOT NULL,
  outcome TEXT NOT NULL, first_byte_ms REAL, duration_ms REAL NOT NULL,
  PRIMARY KEY (request_seq, attempt)
) WITHOUT ROWID;
CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL, updated_at INTEGER NOT NULL)
  WITHOUT ROWID;
ALTER TABLE requests ADD COLUMN input_tokens INTEGER;
ALTER TABLE requests ADD COLUMN output_tokens INTEGER;
ALTER TABLE requests ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE requests ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE requests ADD COLUMN reasoning_tokens INTEGER;
ALTER TABLE requests ADD COLUMN total_tokens INTEGER;
ALTER TABLE requests ADD COLUMN usage_estimated INTEGER;
ALTER TABLE attempts ADD COLUMN upstream_protocol TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN translated INTEGER NOT NULL DEFAULT 0;
INSERT INTO requests (id, started_at, route, client_protocol, gateway_key, model, stream, channel,
  key_label, status, error, total_ms, overhead_ms, bytes_in, bytes_out, client)
  VALUES ('req-old', 1700000000000, '/v1/messages', 'anthropic', 'team', 'claude', 0, 'anthropic',
          'anthropic#0', 200, '', 12.5, 0.1, 10, 20, 'curl');
INSERT INTO attempts (request_seq, request_id, attempt, channel, key_label, upstream_model, status,
  outcome, duration_ms, upstream_protocol, translated)
  VALUES (1, 'req-old', 0, 'anthropic', 'anthropic#0', 'claude-x', 200, 'ok', 12.0, 'anthropic', 0);
INSERT INTO settings (key, value, updated_at) VALUES ('default_key', 'sk-kept', 1700000000000);
)sql";

TEST(SqliteSchema, Migration3KeepsAVersion2DatabaseAndAddsFreezes) {
  TempDir dir;
  fs::create_directories(dir.path());
  std::string path = (dir.path() / SqliteStore::kFileName).string();
  {
    auto db = SqliteDb::open(path);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec(kVersion2Schema).ok());
    EXPECT_EQ(schemaVersion(*db).value(), 2);
  }
  auto store = openFreezes(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->save(keyFreeze()).ok());
  ASSERT_EQ(loadAll(*store).size(), 1u);

  auto log = SqliteStore::open(dir.path());
  ASSERT_TRUE(log.ok()) << log.error().message;
  EXPECT_EQ((*log)->getSetting("default_key"), "sk-kept");
  auto recent = (*log)->recentRequests(10);
  ASSERT_TRUE(recent.ok());
  ASSERT_EQ(recent->size(), 1u);
  EXPECT_EQ((*recent)[0].request_id, "req-old");
  ASSERT_EQ((*recent)[0].attempts.size(), 1u);
  EXPECT_EQ((*recent)[0].attempts[0].upstream_model, "claude-x");

  auto db = SqliteDb::open(path);
  ASSERT_TRUE(db.ok());
  EXPECT_EQ(schemaVersion(*db).value(), currentSchemaVersion());
  EXPECT_EQ(currentSchemaVersion(), 10);
  // The attempts' new columns (3: strategy and score, 4: first token) exist and are NULL for
  // old rows.
  auto old = db->prepare(
      "SELECT strategy, route_score, first_token_ms FROM attempts WHERE request_id = 'req-old'");
  ASSERT_TRUE(old.ok());
  ASSERT_TRUE(old->step().value());
  EXPECT_TRUE(old->columnIsNull(0));
  EXPECT_TRUE(old->columnIsNull(1));
  EXPECT_TRUE(old->columnIsNull(2));
}

TEST(SqliteFreezeStore, UnknownObjectNamesAreSkipped) {
  TempDir dir;
  auto store = openFreezes(dir.path());
  ASSERT_TRUE(store);
  ASSERT_TRUE(store->save(keyFreeze()).ok());
  {
    auto db = SqliteDb::open((dir.path() / SqliteStore::kFileName).string());
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(db->exec("INSERT INTO freezes VALUES ('frz_future', 'region', 'today', 'c', '', "
                         "'', '', 1, NULL, 'r', 'x')")
                    .ok());
  }
  auto loaded = loadAll(*store);
  ASSERT_EQ(loaded.size(), 1u);
  EXPECT_EQ(loaded[0].id, keyFreeze().id);
}

}  // namespace
}  // namespace llmux::store
