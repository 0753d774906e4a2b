#include "store/managed_object_store.h"

#include <cstdint>

#include "store/state_dir.h"

namespace llmux::store {
namespace {

constexpr char const* kSelect =
    "SELECT kind, name, version, body FROM managed_objects ORDER BY created_ms, kind, name";
constexpr char const* kSelectVersion =
    "SELECT version FROM managed_objects WHERE kind = ? AND name = ?";
constexpr char const* kUpsert =
    "INSERT INTO managed_objects (kind, name, version, body, created_ms, updated_ms, updated_by) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?5, ?6) ON CONFLICT (kind, name) DO UPDATE SET "
    "version = excluded.version, body = excluded.body, updated_ms = excluded.updated_ms, "
    "updated_by = excluded.updated_by";
constexpr char const* kInsertAudit =
    "INSERT INTO audit_log (at_ms, actor, action, kind, name, version, before, after) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?)";
constexpr char const* kSelectAudit =
    "SELECT id, at_ms, actor, action, kind, name, version, before, after FROM audit_log "
    "WHERE id < ? ORDER BY id DESC LIMIT ?";

void bindOptional(SqliteStatement& stmt, int index, std::optional<std::string> const& text) {
  if (text) {
    stmt.bind(index, *text);
  } else {
    stmt.bindNull(index);
  }
}

std::optional<std::string> optionalText(SqliteStatement const& stmt, int column) {
  if (stmt.columnIsNull(column)) return std::nullopt;
  return std::string(stmt.columnText(column));
}

}  // namespace

Result<std::unique_ptr<SqliteManagedObjectStore>> SqliteManagedObjectStore::open(
    std::filesystem::path const& state_dir) {
  // Full durability: an operator's change must survive a crash.
  auto db = openStateDatabase(state_dir, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  if (!db.ok()) return db.takeError();
  return std::unique_ptr<SqliteManagedObjectStore>(new SqliteManagedObjectStore(std::move(*db)));
}

Result<std::vector<config::ManagedObject>> SqliteManagedObjectStore::load() {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kSelect);
  if (!stmt.ok()) return stmt.takeError();
  std::vector<config::ManagedObject> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.takeError();
    if (!*row) break;
    auto kind = config::objectKindNamed(stmt->columnText(0));
    if (!kind) continue;  // written by a newer llmux: not ours to interpret
    out.push_back({*kind, std::string(stmt->columnText(1)), stmt->columnInt(2),
                   optionalText(*stmt, 3)});
  }
  return out;
}

Result<PutOutcome> SqliteManagedObjectStore::put(config::ManagedObject const& object,
                                                std::int64_t expected_version,
                                                AuditEntry const& audit) {
  std::lock_guard lock(mutex_);
  // IMMEDIATE: the version is read under the write lock, so two replicas sharing the file cannot
  // both pass the check.
  if (auto begun = db_.exec("BEGIN IMMEDIATE"); !begun.ok()) return begun.error();
  auto outcome = putLocked(object, expected_version, audit);
  if (!outcome.ok() || !outcome->written) {
    (void)db_.exec("ROLLBACK");
    return outcome;
  }
  if (auto committed = db_.exec("COMMIT"); !committed.ok()) {
    (void)db_.exec("ROLLBACK");
    return committed.error();
  }
  return outcome;
}

Result<PutOutcome> SqliteManagedObjectStore::putLocked(config::ManagedObject const& object,
                                                      std::int64_t expected_version,
                                                      AuditEntry const& audit) {
  std::string const kind(config::objectKindName(object.kind));
  auto current = db_.prepare(kSelectVersion);
  if (!current.ok()) return current.takeError();
  current->bind(1, kind);
  current->bind(2, object.name);
  auto row = current->step();
  if (!row.ok()) return row.takeError();
  std::int64_t const stored = *row ? current->columnInt(0) : 0;
  if (stored != expected_version) return PutOutcome{false, stored};

  auto upsert = db_.prepare(kUpsert);
  if (!upsert.ok()) return upsert.takeError();
  upsert->bind(1, kind);
  upsert->bind(2, object.name);
  upsert->bind(3, object.version);
  bindOptional(*upsert, 4, object.body);
  upsert->bind(5, toUnixMillis(audit.at));
  upsert->bind(6, audit.actor);
  if (auto done = upsert->step(); !done.ok()) return done.takeError();

  auto insert = db_.prepare(kInsertAudit);
  if (!insert.ok()) return insert.takeError();
  insert->bind(1, toUnixMillis(audit.at));
  insert->bind(2, audit.actor);
  insert->bind(3, audit.action);
  insert->bind(4, kind);
  insert->bind(5, object.name);
  insert->bind(6, object.version);
  bindOptional(*insert, 7, audit.before);
  bindOptional(*insert, 8, audit.after);
  if (auto done = insert->step(); !done.ok()) return done.takeError();
  return PutOutcome{true, object.version};
}

Result<std::vector<AuditEntry>> SqliteManagedObjectStore::audit(std::int64_t before_id,
                                                                std::size_t limit) {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kSelectAudit);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, before_id > 0 ? before_id : INT64_MAX);
  stmt->bind(2, static_cast<std::int64_t>(limit));
  std::vector<AuditEntry> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.takeError();
    if (!*row) break;
    auto kind = config::objectKindNamed(stmt->columnText(4));
    if (!kind) continue;
    AuditEntry entry;
    entry.id = stmt->columnInt(0);
    entry.at = fromUnixMillis(stmt->columnInt(1));
    entry.actor = std::string(stmt->columnText(2));
    entry.action = std::string(stmt->columnText(3));
    entry.kind = *kind;
    entry.name = std::string(stmt->columnText(5));
    entry.version = stmt->columnInt(6);
    entry.before = optionalText(*stmt, 7);
    entry.after = optionalText(*stmt, 8);
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace llmux::store
