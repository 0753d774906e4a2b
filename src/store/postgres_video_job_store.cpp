#include "store/postgres_video_job_store.h"

#include <libpq-fe.h>

#include <cstdlib>

#include "store/sqlite_db.h"  // toUnixMillis, fromUnixMillis: the same instants as SQLite's

namespace llmux::store {
namespace {

constexpr char const* kNewest =
    "SELECT id, gateway_key, channel, key_id, client_model, upstream_model, created_at FROM "
    "(SELECT * FROM video_jobs ORDER BY created_at DESC, id DESC LIMIT $1::bigint) newest "
    "ORDER BY created_at, id";

constexpr char const* kSince =
    "SELECT id, gateway_key, channel, key_id, client_model, upstream_model, created_at FROM "
    "video_jobs WHERE created_at >= $1::bigint ORDER BY created_at, id LIMIT $2::bigint";

constexpr char const* kUpsert =
    "INSERT INTO video_jobs (id, gateway_key, channel, key_id, client_model, upstream_model, "
    "created_at) VALUES ($1, $2, $3, $4, $5, $6, $7::bigint) ON CONFLICT (id) DO UPDATE SET "
    "gateway_key = EXCLUDED.gateway_key, channel = EXCLUDED.channel, key_id = EXCLUDED.key_id, "
    "client_model = EXCLUDED.client_model, upstream_model = EXCLUDED.upstream_model, "
    "created_at = EXCLUDED.created_at";

constexpr char const* kDeleteOlder = "DELETE FROM video_jobs WHERE created_at < $1::bigint";

}  // namespace

PostgresVideoJobStore::PostgresVideoJobStore(std::string url,
                                             std::chrono::milliseconds answer_timeout)
    : db_(std::move(url), answer_timeout) {}

Result<std::vector<routing::VideoJob>> PostgresVideoJobStore::select(
    char const* sql, std::vector<std::string> params) {
  auto rows = db_.run(sql, params, "reading the video jobs");
  if (!rows.ok()) return rows.takeError();
  PGresult const* result = rows->get();
  std::vector<routing::VideoJob> jobs;
  for (int i = 0; i < PQntuples(result); ++i) {
    routing::VideoJob job;
    job.id = PQgetvalue(result, i, 0);
    job.gateway_key = PQgetvalue(result, i, 1);
    job.channel = PQgetvalue(result, i, 2);
    job.key_id = PQgetvalue(result, i, 3);
    job.client_model = PQgetvalue(result, i, 4);
    job.upstream_model = PQgetvalue(result, i, 5);
    job.created = fromUnixMillis(std::strtoll(PQgetvalue(result, i, 6), nullptr, 10));
    jobs.push_back(std::move(job));
  }
  return jobs;
}

Result<std::vector<routing::VideoJob>> PostgresVideoJobStore::load(WallTime cutoff,
                                                                   std::size_t limit) {
  if (auto deleted = deleteOlderThan(cutoff); !deleted.ok()) return deleted.error();
  std::lock_guard lock(mutex_);
  return select(kNewest, {std::to_string(limit)});
}

Result<std::vector<routing::VideoJob>> PostgresVideoJobStore::createdSince(WallTime since,
                                                                           std::size_t limit) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready.error();
  return select(kSince, {std::to_string(toUnixMillis(since)), std::to_string(limit)});
}

Result<void> PostgresVideoJobStore::save(routing::VideoJob const& job) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready;
  auto done = db_.run(kUpsert,
                      {job.id, job.gateway_key, job.channel, job.key_id, job.client_model,
                       job.upstream_model, std::to_string(toUnixMillis(job.created))},
                      "saving a video job");
  if (!done.ok()) return done.error();
  return {};
}

Result<void> PostgresVideoJobStore::deleteOlderThan(WallTime cutoff) {
  std::lock_guard lock(mutex_);
  if (auto ready = db_.ensureConnected(); !ready.ok()) return ready;
  auto done = db_.run(kDeleteOlder, {std::to_string(toUnixMillis(cutoff))}, "expiring video jobs");
  if (!done.ok()) return done.error();
  return {};
}

}  // namespace llmux::store
