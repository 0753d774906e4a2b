#include "store/postgres_managed_object_store.h"

#include <libpq-fe.h>

#include <cstdlib>

#include "store/sqlite_db.h"  // toUnixMillis, fromUnixMillis: the same instants as SQLite's

namespace llmux::store {
namespace {

constexpr char const* kSelect =
    "SELECT kind, name, version, body, body IS NULL FROM managed_objects "
    "ORDER BY created_ms, kind, name";
// Parameters are text: an absent body is sent with $5 = '1' and stored as NULL.
constexpr char const* kInsert =
    "INSERT INTO managed_objects (kind, name, version, body, created_ms, updated_ms, updated_by) "
    "VALUES ($1, $2, $3::bigint, CASE WHEN $5 = '1' THEN NULL ELSE $4 END, $6::bigint, "
    "$6::bigint, $7) ON CONFLICT (kind, name) DO NOTHING";
constexpr char const* kUpdate =
    "UPDATE managed_objects SET version = $3::bigint, body = CASE WHEN $5 = '1' THEN NULL ELSE $4 "
    "END, updated_ms = $6::bigint, updated_by = $7 WHERE kind = $1 AND name = $2 AND version = "
    "$8::bigint";
constexpr char const* kSelectVersion =
    "SELECT version FROM managed_objects WHERE kind = $1 AND name = $2";
constexpr char const* kInsertAudit =
    "INSERT INTO audit_log (at_ms, actor, action, kind, name, version, before, after) VALUES "
    "($1::bigint, $2, $3, $4, $5, $6::bigint, CASE WHEN $8 = '1' THEN NULL ELSE $7 END, "
    "CASE WHEN $10 = '1' THEN NULL ELSE $9 END)";
constexpr char const* kSelectAudit =
    "SELECT id, at_ms, actor, action, kind, name, version, before, after FROM audit_log "
    "WHERE id < $1::bigint ORDER BY id DESC LIMIT $2::bigint";

long long integerAt(PGresult const* result, int row, int column) {
  return std::strtoll(PQgetvalue(result, row, column), nullptr, 10);
}

std::optional<std::string> optionalAt(PGresult const* result, int row, int column) {
  if (PQgetisnull(result, row, column) != 0) return std::nullopt;
  return std::string(PQgetvalue(result, row, column));
}

}  // namespace

PostgresManagedObjectStore::PostgresManagedObjectStore(std::string url,
                                                       std::chrono::milliseconds answer_timeout)
    : db_(std::move(url), answer_timeout) {}

Result<std::vector<config::ManagedObject>> PostgresManagedObjectStore::load() {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  auto rows = db_.run(kSelect, {}, "reading the admin API's objects");
  if (!rows.ok()) return rows.takeError();
  PGresult const* result = rows->get();
  std::vector<config::ManagedObject> out;
  for (int i = 0; i < PQntuples(result); ++i) {
    auto kind = config::objectKindNamed(PQgetvalue(result, i, 0));
    if (!kind) continue;  // written by a newer llmux: not ours to interpret
    out.push_back({*kind, PQgetvalue(result, i, 1), integerAt(result, i, 2),
                   optionalAt(result, i, 3)});
  }
  return out;
}

Result<PutOutcome> PostgresManagedObjectStore::put(config::ManagedObject const& object,
                                                  std::int64_t expected_version,
                                                  AuditEntry const& audit) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  std::string const kind(config::objectKindName(object.kind));
  std::string const at = std::to_string(toUnixMillis(audit.at));
  if (auto begun = db_.exec("BEGIN", "BEGIN"); !begun.ok()) return begun.error();
  std::vector<std::string> params{kind,
                                  object.name,
                                  std::to_string(object.version),
                                  object.body.value_or(""),
                                  object.body ? "0" : "1",
                                  at,
                                  audit.actor};
  if (expected_version > 0) params.push_back(std::to_string(expected_version));
  auto written = db_.run(expected_version == 0 ? kInsert : kUpdate, params,
                         "writing an admin API object");
  if (!written.ok()) return db_.abandon(written.takeError());
  if (std::strtoll(PQcmdTuples(written->get()), nullptr, 10) != 1) {
    // Someone else's version is stored: say which, and write nothing.
    auto stored = db_.run(kSelectVersion, {kind, object.name}, "reading an object's version");
    (void)db_.exec("ROLLBACK", "ROLLBACK");
    if (!stored.ok()) return stored.takeError();
    std::int64_t const version = PQntuples(stored->get()) > 0 ? integerAt(stored->get(), 0, 0) : 0;
    return PutOutcome{false, version};
  }
  auto logged = db_.run(kInsertAudit,
                        {at, audit.actor, audit.action, kind, object.name,
                         std::to_string(object.version), audit.before.value_or(""),
                         audit.before ? "0" : "1", audit.after.value_or(""),
                         audit.after ? "0" : "1"},
                        "writing the audit log");
  if (!logged.ok()) return db_.abandon(logged.takeError());
  if (auto committed = db_.exec("COMMIT", "COMMIT"); !committed.ok()) {
    return db_.abandon(committed.error());
  }
  return PutOutcome{true, object.version};
}

Result<std::vector<AuditEntry>> PostgresManagedObjectStore::audit(std::int64_t before_id,
                                                                  std::size_t limit) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  auto rows = db_.run(kSelectAudit,
                      {std::to_string(before_id > 0 ? before_id : INT64_MAX), std::to_string(limit)},
                      "reading the audit log");
  if (!rows.ok()) return rows.takeError();
  PGresult const* result = rows->get();
  std::vector<AuditEntry> out;
  for (int i = 0; i < PQntuples(result); ++i) {
    auto kind = config::objectKindNamed(PQgetvalue(result, i, 4));
    if (!kind) continue;
    AuditEntry entry;
    entry.id = integerAt(result, i, 0);
    entry.at = fromUnixMillis(integerAt(result, i, 1));
    entry.actor = PQgetvalue(result, i, 2);
    entry.action = PQgetvalue(result, i, 3);
    entry.kind = *kind;
    entry.name = PQgetvalue(result, i, 5);
    entry.version = integerAt(result, i, 6);
    entry.before = optionalAt(result, i, 7);
    entry.after = optionalAt(result, i, 8);
    out.push_back(std::move(entry));
  }
  return out;
}

}  // namespace llmux::store
