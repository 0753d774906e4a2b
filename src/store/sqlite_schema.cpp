#include "store/sqlite_schema.h"

#include <string>

namespace llmux::store {
namespace {

// Append-only: a migration that shipped is never edited; a change is a new entry.
// Times are Unix milliseconds (UTC); durations are milliseconds; a first byte that never came is
// NULL. `requests.seq` is the row's identity because request ids may come from clients
// (X-Request-Id) and need not be unique. There is deliberately no index on `requests.id`: random
// text keys make every insert a random B-tree write (measured: 18 -> 8 us of CPU per request).
constexpr char const* kMigrations[] = {
    // 1: request log and settings.
    R"sql(
CREATE TABLE requests (
  seq             INTEGER PRIMARY KEY,
  id              TEXT    NOT NULL,
  started_at      INTEGER NOT NULL,
  route           TEXT    NOT NULL,
  client_protocol TEXT    NOT NULL,
  gateway_key     TEXT    NOT NULL,
  model           TEXT    NOT NULL,
  stream          INTEGER NOT NULL,
  channel         TEXT    NOT NULL,
  key_label       TEXT    NOT NULL,
  status          INTEGER NOT NULL,
  error           TEXT    NOT NULL,
  first_byte_ms   REAL,
  total_ms        REAL    NOT NULL,
  overhead_ms     REAL    NOT NULL,
  bytes_in        INTEGER NOT NULL,
  bytes_out       INTEGER NOT NULL,
  client          TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX requests_started_at ON requests(started_at);
CREATE TABLE attempts (
  request_seq     INTEGER NOT NULL REFERENCES requests(seq) ON DELETE CASCADE,
  request_id      TEXT    NOT NULL,
  attempt         INTEGER NOT NULL,
  channel         TEXT    NOT NULL,
  key_label       TEXT    NOT NULL,
  upstream_model  TEXT    NOT NULL,
  status          INTEGER NOT NULL,
  outcome         TEXT    NOT NULL,
  first_byte_ms   REAL,
  duration_ms     REAL    NOT NULL,
  PRIMARY KEY (request_seq, attempt)
) WITHOUT ROWID;
CREATE TABLE settings (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL,
  updated_at INTEGER NOT NULL
) WITHOUT ROWID;
)sql",
    // 2: normalised token usage per request (NULL when the upstream reported none), and the
    // protocol each attempt spoke upstream.
    R"sql(
ALTER TABLE requests ADD COLUMN input_tokens INTEGER;
ALTER TABLE requests ADD COLUMN output_tokens INTEGER;
ALTER TABLE requests ADD COLUMN cache_read_tokens INTEGER;
ALTER TABLE requests ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE requests ADD COLUMN reasoning_tokens INTEGER;
ALTER TABLE requests ADD COLUMN total_tokens INTEGER;
ALTER TABLE requests ADD COLUMN usage_estimated INTEGER;
ALTER TABLE attempts ADD COLUMN upstream_protocol TEXT NOT NULL DEFAULT '';
ALTER TABLE attempts ADD COLUMN translated INTEGER NOT NULL DEFAULT 0;
)sql",
    // 3: frozen keys and channels (routing/freezes.h), kept across restarts: `object` and
    // `period` by their config names, `until_ms` NULL for a freeze that lasts until lifted. And
    // how each attempt was chosen (the strategy and its score), NULL for older rows.
    R"sql(
CREATE TABLE freezes (
  id         TEXT    PRIMARY KEY,
  object     TEXT    NOT NULL,
  period     TEXT    NOT NULL,
  channel    TEXT    NOT NULL,
  key_id     TEXT    NOT NULL,
  key_label  TEXT    NOT NULL,
  model      TEXT    NOT NULL,
  created_ms INTEGER NOT NULL,
  until_ms   INTEGER,
  rule       TEXT    NOT NULL,
  reason     TEXT    NOT NULL
) WITHOUT ROWID;
ALTER TABLE attempts ADD COLUMN strategy TEXT;
ALTER TABLE attempts ADD COLUMN route_score TEXT;
)sql",
    // 4: a streamed attempt's first content (the commit point) after the request was sent, as
    // the router learns it; NULL for a whole answer, a stream without content and older rows.
    R"sql(
ALTER TABLE attempts ADD COLUMN first_token_ms REAL;
)sql",
    // 5: racing (docs/racing.md). The switches an operator set with PUT /admin/racing, one row
    // (NULL: the configuration's; the preference by its config name), and latency learning per
    // (channel key id, upstream model, task class), kept 24 h. Key ids hold no secret.
    R"sql(
CREATE TABLE racing_switches (
  id              INTEGER PRIMARY KEY CHECK (id = 1),
  enabled         INTEGER,
  cost_preference TEXT,
  updated_ms      INTEGER NOT NULL
);
CREATE TABLE latency_penalties (
  id             TEXT    PRIMARY KEY,
  key_id         TEXT    NOT NULL,
  upstream_model TEXT    NOT NULL,
  task_class     TEXT    NOT NULL,
  slow_streak    INTEGER NOT NULL,
  degraded       INTEGER NOT NULL,
  updated_ms     INTEGER NOT NULL
) WITHOUT ROWID;
)sql",
    // 6: a raced attempt's part (docs/racing.md: 'primary' or 'shadow'; NULL when the request did
    // not race) and the tokens the branch reported (the winner's are the request's; a loser's
    // are racing overhead); NULL when none were reported and for older rows.
    R"sql(
ALTER TABLE attempts ADD COLUMN role TEXT;
ALTER TABLE attempts ADD COLUMN total_tokens INTEGER;
)sql",
    // 7: asynchronous video jobs (routing/video_jobs.h): the channel and key that created each
    // job, so its polls and downloads reach them after a restart, and the gateway key that may
    // reach it. Kept `retention.video_jobs_days` (a week by default); key ids hold no secret.
    R"sql(
CREATE TABLE video_jobs (
  id             TEXT    PRIMARY KEY,
  gateway_key    TEXT    NOT NULL,
  channel        TEXT    NOT NULL,
  key_id         TEXT    NOT NULL,
  client_model   TEXT    NOT NULL,
  upstream_model TEXT    NOT NULL,
  created_at     INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX video_jobs_created_at ON video_jobs(created_at);
)sql",
    // 8: what a media request used in its modality's unit (docs/media.md: images, seconds,
    // characters, tokens; NULL for other requests), and every request's cost from `prices:`
    // (NULL when no price applies).
    R"sql(
ALTER TABLE requests ADD COLUMN media_modality TEXT;
ALTER TABLE requests ADD COLUMN media_unit TEXT;
ALTER TABLE requests ADD COLUMN media_quantity REAL;
ALTER TABLE requests ADD COLUMN cost_usd REAL;
)sql",
    // 9: real-time rows (store/request_log_writer.h): a request's row is written when it is
    // admitted (`in_progress`) and replaced as it changes; `done` when it ended, `interrupted`
    // when its replica stopped before it did. `replicas` holds each writer's heartbeat.
    R"sql(
ALTER TABLE requests ADD COLUMN state TEXT NOT NULL DEFAULT 'done';
ALTER TABLE requests ADD COLUMN replica TEXT;
CREATE INDEX requests_running ON requests(replica) WHERE state = 'in_progress';
CREATE TABLE replicas (
  id           TEXT    PRIMARY KEY,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) WITHOUT ROWID;
)sql",
    // 10: the admin API's objects (config/managed_objects.h), laid over the file's
    // configuration (`body` NULL: the file's object of that name is deleted), and the audit log
    // of every change made through it (before and after with their secrets masked).
    R"sql(
CREATE TABLE managed_objects (
  kind       TEXT    NOT NULL,
  name       TEXT    NOT NULL,
  version    INTEGER NOT NULL,
  body       TEXT,
  created_ms INTEGER NOT NULL,
  updated_ms INTEGER NOT NULL,
  updated_by TEXT    NOT NULL,
  PRIMARY KEY (kind, name)
) WITHOUT ROWID;
CREATE TABLE audit_log (
  id      INTEGER PRIMARY KEY AUTOINCREMENT,
  at_ms   INTEGER NOT NULL,
  actor   TEXT    NOT NULL,
  action  TEXT    NOT NULL,
  kind    TEXT    NOT NULL,
  name    TEXT    NOT NULL,
  version INTEGER NOT NULL,
  before  TEXT,
  after   TEXT
);
)sql",
};

constexpr int kVersion = static_cast<int>(std::size(kMigrations));

Result<int> readVersion(SqliteDb& db) {
  auto stmt = db.prepare("SELECT COALESCE(MAX(version), 0) FROM schema_version");
  if (!stmt.ok()) return stmt.takeError();
  auto row = stmt->step();
  if (!row.ok()) return row.takeError();
  return *row ? static_cast<int>(stmt->columnInt(0)) : 0;
}

Result<void> rollback(SqliteDb& db, Error error) {
  (void)db.exec("ROLLBACK");
  return error;
}

}  // namespace

int currentSchemaVersion() {
  return kVersion;
}

Result<int> schemaVersion(SqliteDb& db) {
  if (auto made = db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
      !made.ok()) {
    return made.error();
  }
  return readVersion(db);
}

Result<void> migrate(SqliteDb& db) {
  if (auto made = db.exec("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)");
      !made.ok()) {
    return made;
  }
  for (;;) {
    // IMMEDIATE takes the write lock first, so two processes opening one state directory apply
    // each migration once: the second re-reads the version after the first commits.
    if (auto begun = db.exec("BEGIN IMMEDIATE"); !begun.ok()) return begun;
    auto version = readVersion(db);
    if (!version.ok()) return rollback(db, version.takeError());
    if (*version > kVersion) {
      return rollback(
          db, makeError(ErrorKind::Internal,
                        "the state database has schema version " + std::to_string(*version) +
                            ", newer than this llmux (" + std::to_string(kVersion) + ")"));
    }
    if (*version == kVersion) return db.exec("COMMIT");
    if (auto applied = db.exec(kMigrations[*version]); !applied.ok()) {
      return rollback(db, applied.error());
    }
    if (auto cleared = db.exec("DELETE FROM schema_version"); !cleared.ok()) {
      return rollback(db, cleared.error());
    }
    auto insert = db.prepare("INSERT INTO schema_version (version) VALUES (?)");
    if (!insert.ok()) return rollback(db, insert.takeError());
    insert->bind(1, static_cast<std::int64_t>(*version + 1));
    if (auto done = insert->step(); !done.ok()) return rollback(db, done.takeError());
    if (auto committed = db.exec("COMMIT"); !committed.ok()) return rollback(db, committed.error());
  }
}

}  // namespace llmux::store
