#include "store/postgres_freeze_store.h"

#include <libpq-fe.h>

#include <cstdlib>
#include <string_view>

#include "store/sqlite_db.h"  // toUnixMillis, fromUnixMillis: the same instants as SQLite's

namespace llmux::store {
namespace {

constexpr char const* kSelect =
    "SELECT id, object, period, channel, key_id, key_label, model, created_ms, until_ms, rule, "
    "reason FROM freezes ORDER BY created_ms, id";

constexpr char const* kUpsert =
    "INSERT INTO freezes (id, object, period, channel, key_id, key_label, model, created_ms, "
    "until_ms, rule, reason) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::bigint, NULLIF($9, '')::bigint, $10, $11) "
    "ON CONFLICT (id) DO UPDATE SET until_ms = EXCLUDED.until_ms, period = EXCLUDED.period, "
    "rule = EXCLUDED.rule, reason = EXCLUDED.reason";

constexpr char const* kDelete = "DELETE FROM freezes WHERE id = $1";

}  // namespace

PostgresFreezeStore::PostgresFreezeStore(std::string url, std::chrono::milliseconds answer_timeout)
    : db_(std::move(url), answer_timeout) {}

Result<std::vector<routing::Freeze>> PostgresFreezeStore::load() {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  auto rows = db_.run(kSelect, {}, "reading the freezes");
  if (!rows.ok()) return rows.takeError();
  PGresult const* result = rows->get();
  std::vector<routing::Freeze> out;
  for (int i = 0; i < PQntuples(result); ++i) {
    auto text = [&](int column) { return std::string(PQgetvalue(result, i, column)); };
    auto object = config::freezeObjectNamed(PQgetvalue(result, i, 1));
    auto period = config::freezePeriodNamed(PQgetvalue(result, i, 2));
    if (!object || !period) continue;  // written by a newer llmux: not ours to interpret
    routing::Freeze f;
    f.id = text(0);
    f.object = *object;
    f.period = *period;
    f.channel = text(3);
    f.key_id = text(4);
    f.key_label = text(5);
    f.model = text(6);
    f.created = fromUnixMillis(std::strtoll(PQgetvalue(result, i, 7), nullptr, 10));
    if (PQgetisnull(result, i, 8) == 0) {
      f.until = fromUnixMillis(std::strtoll(PQgetvalue(result, i, 8), nullptr, 10));
    }
    f.rule = text(9);
    f.reason = text(10);
    out.push_back(std::move(f));
  }
  return out;
}

Result<void> PostgresFreezeStore::save(routing::Freeze const& freeze) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready;
  // A freeze without an end is sent as "" (the parameters are text), which NULLIF makes NULL.
  auto done = db_.run(
      kUpsert,
      {freeze.id, std::string(config::freezeObjectName(freeze.object)),
       std::string(config::freezePeriodName(freeze.period)), freeze.channel, freeze.key_id,
       freeze.key_label, freeze.model, std::to_string(toUnixMillis(freeze.created)),
       freeze.until ? std::to_string(toUnixMillis(*freeze.until)) : std::string(),
       freeze.rule, freeze.reason},
      "saving a freeze");
  if (!done.ok()) return done.error();
  return {};
}

Result<void> PostgresFreezeStore::remove(std::string const& id) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready;
  auto done = db_.run(kDelete, {id}, "removing a freeze");
  if (!done.ok()) return done.error();
  return {};
}

}  // namespace llmux::store
