#include "store/postgres_racing_store.h"

#include <libpq-fe.h>

#include <cstdlib>

#include "store/sqlite_db.h"  // toUnixMillis, fromUnixMillis: the same instants as SQLite's

namespace llmux::store {
namespace {

constexpr char const* kSelectSwitches =
    "SELECT enabled, cost_preference FROM racing_switches WHERE id = 1";
// Unset switches are sent as "" (the parameters are text), which NULLIF makes NULL.
constexpr char const* kUpsertSwitches =
    "INSERT INTO racing_switches (id, enabled, cost_preference, updated_ms) "
    "VALUES (1, NULLIF($1, '')::integer, NULLIF($2, ''), $3::bigint) "
    "ON CONFLICT (id) DO UPDATE SET enabled = EXCLUDED.enabled, "
    "cost_preference = EXCLUDED.cost_preference, updated_ms = EXCLUDED.updated_ms";

constexpr char const* kDeleteExpired = "DELETE FROM latency_penalties WHERE updated_ms < $1::bigint";
constexpr char const* kSelectLatency =
    "SELECT key_id, upstream_model, task_class, slow_streak, degraded, updated_ms "
    "FROM latency_penalties ORDER BY updated_ms, id";
constexpr char const* kUpsertLatency =
    "INSERT INTO latency_penalties (id, key_id, upstream_model, task_class, slow_streak, "
    "degraded, updated_ms) VALUES ($1, $2, $3, $4, $5::integer, $6::integer, $7::bigint) "
    "ON CONFLICT (id) DO UPDATE SET slow_streak = EXCLUDED.slow_streak, "
    "degraded = EXCLUDED.degraded, updated_ms = EXCLUDED.updated_ms";
constexpr char const* kDeleteLatency = "DELETE FROM latency_penalties WHERE id = $1";

long long integerAt(PGresult const* result, int row, int column) {
  return std::strtoll(PQgetvalue(result, row, column), nullptr, 10);
}

}  // namespace

PostgresRacingStore::PostgresRacingStore(std::string url, std::chrono::milliseconds answer_timeout)
    : db_(std::move(url), answer_timeout) {}

Result<RacingSwitches> PostgresRacingStore::loadSwitches() {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  auto rows = db_.run(kSelectSwitches, {}, "reading the racing switches");
  if (!rows.ok()) return rows.takeError();
  PGresult const* result = rows->get();
  RacingSwitches switches;
  if (PQntuples(result) == 0) return switches;
  if (PQgetisnull(result, 0, 0) == 0) switches.enabled = integerAt(result, 0, 0) != 0;
  if (PQgetisnull(result, 0, 1) == 0) {
    // By config name, like SQLite's row: a preference of a newer llmux reads as unset.
    switches.cost_preference = config::parseCostPreference(PQgetvalue(result, 0, 1));
  }
  return switches;
}

Result<void> PostgresRacingStore::saveSwitches(RacingSwitches const& switches, WallTime now) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready;
  auto done = db_.run(
      kUpsertSwitches,
      {switches.enabled ? std::string(*switches.enabled ? "1" : "0") : std::string(),
       switches.cost_preference
           ? std::string(config::costPreferenceName(*switches.cost_preference))
           : std::string(),
       std::to_string(toUnixMillis(now))},
      "saving the racing switches");
  if (!done.ok()) return done.error();
  return {};
}

Result<std::vector<racing::LatencyMemory::Entry>> PostgresRacingStore::loadLatency(WallTime now) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  auto expired = db_.run(kDeleteExpired,
                         {std::to_string(toUnixMillis(now - racing::LatencyMemory::kKeep))},
                         "deleting expired latency penalties");
  if (!expired.ok()) return expired.takeError();
  auto rows = db_.run(kSelectLatency, {}, "reading the latency penalties");
  if (!rows.ok()) return rows.takeError();
  PGresult const* result = rows->get();
  std::vector<racing::LatencyMemory::Entry> out;
  for (int i = 0; i < PQntuples(result); ++i) {
    racing::LatencyMemory::Entry entry;
    entry.combination.key_id = PQgetvalue(result, i, 0);
    entry.combination.upstream_model = PQgetvalue(result, i, 1);
    entry.combination.task_class = PQgetvalue(result, i, 2);
    entry.id = racing::LatencyMemory::idOf(entry.combination);
    entry.slow_streak = static_cast<int>(integerAt(result, i, 3));
    entry.degraded = integerAt(result, i, 4) != 0;
    entry.updated_at = fromUnixMillis(integerAt(result, i, 5));
    out.push_back(std::move(entry));
  }
  return out;
}

Result<void> PostgresRacingStore::saveLatency(racing::LatencyMemory::Entry const& entry) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready;
  auto done = db_.run(kUpsertLatency,
                      {entry.id, entry.combination.key_id, entry.combination.upstream_model,
                       entry.combination.task_class, std::to_string(entry.slow_streak),
                       entry.degraded ? "1" : "0", std::to_string(toUnixMillis(entry.updated_at))},
                      "saving a latency penalty");
  if (!done.ok()) return done.error();
  return {};
}

Result<void> PostgresRacingStore::removeLatency(std::string const& id) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready;
  auto done = db_.run(kDeleteLatency, {id}, "removing a latency penalty");
  if (!done.ok()) return done.error();
  return {};
}

}  // namespace llmux::store
