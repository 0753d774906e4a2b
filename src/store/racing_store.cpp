#include "store/racing_store.h"

#include "store/state_dir.h"

namespace llmux::store {
namespace {

constexpr char const* kSelectSwitches =
    "SELECT enabled, cost_preference FROM racing_switches WHERE id = 1";
constexpr char const* kUpsertSwitches =
    "INSERT OR REPLACE INTO racing_switches (id, enabled, cost_preference, updated_ms) "
    "VALUES (1, ?, ?, ?)";

constexpr char const* kDeleteExpired = "DELETE FROM latency_penalties WHERE updated_ms < ?";
constexpr char const* kSelectLatency =
    "SELECT key_id, upstream_model, task_class, slow_streak, degraded, updated_ms "
    "FROM latency_penalties ORDER BY updated_ms, id";
constexpr char const* kUpsertLatency =
    "INSERT OR REPLACE INTO latency_penalties (id, key_id, upstream_model, task_class, "
    "slow_streak, degraded, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?)";
constexpr char const* kDeleteLatency = "DELETE FROM latency_penalties WHERE id = ?";

Result<void> runOnce(SqliteStatement& stmt) {
  if (auto done = stmt.step(); !done.ok()) return done.takeError();
  return {};
}

}  // namespace

Result<std::unique_ptr<SqliteRacingStore>> SqliteRacingStore::open(
    std::filesystem::path const& state_dir) {
  // NORMAL: in WAL mode a commit survives a crash of the process; a power cut may lose the last
  // moments of learning, which is relearnt (and an operator's switch, set again).
  auto db = openStateDatabase(state_dir, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;");
  if (!db.ok()) return db.takeError();
  return std::unique_ptr<SqliteRacingStore>(new SqliteRacingStore(std::move(*db)));
}

Result<RacingSwitches> SqliteRacingStore::loadSwitches() {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kSelectSwitches);
  if (!stmt.ok()) return stmt.takeError();
  auto row = stmt->step();
  if (!row.ok()) return row.takeError();
  RacingSwitches switches;
  if (!*row) return switches;
  if (!stmt->columnIsNull(0)) switches.enabled = stmt->columnInt(0) != 0;
  if (!stmt->columnIsNull(1)) {
    // By config name, like the configuration: an enum reordering cannot corrupt the row.
    switches.cost_preference = config::parseCostPreference(stmt->columnText(1));
  }
  return switches;
}

Result<void> SqliteRacingStore::saveSwitches(RacingSwitches const& switches, WallTime now) {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kUpsertSwitches);
  if (!stmt.ok()) return stmt.takeError();
  if (switches.enabled) {
    stmt->bind(1, std::int64_t{*switches.enabled ? 1 : 0});
  } else {
    stmt->bindNull(1);
  }
  if (switches.cost_preference) {
    stmt->bind(2, config::costPreferenceName(*switches.cost_preference));
  } else {
    stmt->bindNull(2);
  }
  stmt->bind(3, toUnixMillis(now));
  return runOnce(*stmt);
}

Result<std::vector<racing::LatencyMemory::Entry>> SqliteRacingStore::loadLatency(WallTime now) {
  std::lock_guard lock(mutex_);
  auto expired = db_.prepare(kDeleteExpired);
  if (!expired.ok()) return expired.takeError();
  expired->bind(1, toUnixMillis(now - racing::LatencyMemory::kKeep));
  if (auto done = runOnce(*expired); !done.ok()) return done.error();

  auto stmt = db_.prepare(kSelectLatency);
  if (!stmt.ok()) return stmt.takeError();
  std::vector<racing::LatencyMemory::Entry> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.takeError();
    if (!*row) break;
    racing::LatencyMemory::Entry entry;
    entry.combination.key_id = std::string(stmt->columnText(0));
    entry.combination.upstream_model = std::string(stmt->columnText(1));
    entry.combination.task_class = std::string(stmt->columnText(2));
    entry.id = racing::LatencyMemory::idOf(entry.combination);
    entry.slow_streak = static_cast<int>(stmt->columnInt(3));
    entry.degraded = stmt->columnInt(4) != 0;
    entry.updated_at = fromUnixMillis(stmt->columnInt(5));
    out.push_back(std::move(entry));
  }
  return out;
}

Result<void> SqliteRacingStore::saveLatency(racing::LatencyMemory::Entry const& entry) {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kUpsertLatency);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, entry.id);
  stmt->bind(2, entry.combination.key_id);
  stmt->bind(3, entry.combination.upstream_model);
  stmt->bind(4, entry.combination.task_class);
  stmt->bind(5, std::int64_t{entry.slow_streak});
  stmt->bind(6, std::int64_t{entry.degraded ? 1 : 0});
  stmt->bind(7, toUnixMillis(entry.updated_at));
  return runOnce(*stmt);
}

Result<void> SqliteRacingStore::removeLatency(std::string const& id) {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kDeleteLatency);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, id);
  return runOnce(*stmt);
}

}  // namespace llmux::store
