#include "store/freeze_store.h"

#include <chrono>
#include <optional>
#include <string_view>

#include "store/state_dir.h"

namespace llmux::store {
namespace {

constexpr char const* kSelect =
    "SELECT id, object, period, channel, key_id, key_label, model, created_ms, until_ms, rule, "
    "reason FROM freezes ORDER BY created_ms, id";

constexpr char const* kUpsert =
    "INSERT OR REPLACE INTO freezes (id, object, period, channel, key_id, key_label, model, "
    "created_ms, until_ms, rule, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";

constexpr char const* kDelete = "DELETE FROM freezes WHERE id = ?";

// Objects and periods are stored by their config names, so the table reads the same as the
// configuration and the admin API, and a reordering of the enums cannot corrupt old rows.

}  // namespace

Result<std::unique_ptr<SqliteFreezeStore>> SqliteFreezeStore::open(
    std::filesystem::path const& state_dir) {
  // Full durability: a freeze is rare and must survive a crash.
  auto db = openStateDatabase(state_dir, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  if (!db.ok()) return db.takeError();
  return std::unique_ptr<SqliteFreezeStore>(new SqliteFreezeStore(std::move(*db)));
}

Result<std::vector<routing::Freeze>> SqliteFreezeStore::load() {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kSelect);
  if (!stmt.ok()) return stmt.takeError();
  std::vector<routing::Freeze> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.takeError();
    if (!*row) break;
    auto object = config::freezeObjectNamed(stmt->columnText(1));
    auto period = config::freezePeriodNamed(stmt->columnText(2));
    if (!object || !period) continue;  // written by a newer llmux: not ours to interpret
    routing::Freeze f;
    f.id = std::string(stmt->columnText(0));
    f.object = *object;
    f.period = *period;
    f.channel = std::string(stmt->columnText(3));
    f.key_id = std::string(stmt->columnText(4));
    f.key_label = std::string(stmt->columnText(5));
    f.model = std::string(stmt->columnText(6));
    f.created = fromUnixMillis(stmt->columnInt(7));
    if (!stmt->columnIsNull(8)) f.until = fromUnixMillis(stmt->columnInt(8));
    f.rule = std::string(stmt->columnText(9));
    f.reason = std::string(stmt->columnText(10));
    out.push_back(std::move(f));
  }
  return out;
}

Result<void> SqliteFreezeStore::save(routing::Freeze const& freeze) {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kUpsert);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, freeze.id);
  stmt->bind(2, config::freezeObjectName(freeze.object));
  stmt->bind(3, config::freezePeriodName(freeze.period));
  stmt->bind(4, freeze.channel);
  stmt->bind(5, freeze.key_id);
  stmt->bind(6, freeze.key_label);
  stmt->bind(7, freeze.model);
  stmt->bind(8, toUnixMillis(freeze.created));
  if (freeze.until) {
    stmt->bind(9, toUnixMillis(*freeze.until));
  } else {
    stmt->bindNull(9);
  }
  stmt->bind(10, freeze.rule);
  stmt->bind(11, freeze.reason);
  if (auto done = stmt->step(); !done.ok()) return done.takeError();
  return {};
}

Result<void> SqliteFreezeStore::remove(std::string const& id) {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kDelete);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, id);
  if (auto done = stmt->step(); !done.ok()) return done.takeError();
  return {};
}

}  // namespace llmux::store
