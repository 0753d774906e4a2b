#include "store/video_job_store.h"

#include <string>

#include "store/state_dir.h"

namespace llmux::store {
namespace {

// The newest `limit` (?1) jobs, handed out oldest first as the table loads them.
constexpr char const* kSelect =
    "SELECT id, gateway_key, channel, key_id, client_model, upstream_model, created_at FROM "
    "(SELECT * FROM video_jobs ORDER BY created_at DESC, id DESC LIMIT ?) "
    "ORDER BY created_at, id";
constexpr char const* kUpsert =
    "INSERT OR REPLACE INTO video_jobs (id, gateway_key, channel, key_id, client_model, "
    "upstream_model, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)";
constexpr char const* kDeleteExpired = "DELETE FROM video_jobs WHERE created_at < ?";

}  // namespace

Result<std::unique_ptr<SqliteVideoJobStore>> SqliteVideoJobStore::open(
    std::filesystem::path const& state_dir) {
  // Full durability: a lost row strands a paid video, and jobs are rare enough for an fsync each.
  auto db = openStateDatabase(state_dir, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;");
  if (!db.ok()) return db.takeError();
  return std::unique_ptr<SqliteVideoJobStore>(new SqliteVideoJobStore(std::move(*db)));
}

Result<std::vector<routing::VideoJob>> SqliteVideoJobStore::load(WallTime cutoff,
                                                                 std::size_t limit) {
  std::lock_guard lock(mutex_);
  if (auto deleted = deleteOlderThanLocked(cutoff); !deleted.ok()) return deleted.error();
  auto stmt = db_.prepare(kSelect);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, static_cast<std::int64_t>(limit));
  std::vector<routing::VideoJob> out;
  for (;;) {
    auto row = stmt->step();
    if (!row.ok()) return row.takeError();
    if (!*row) break;
    routing::VideoJob job;
    job.id = std::string(stmt->columnText(0));
    job.gateway_key = std::string(stmt->columnText(1));
    job.channel = std::string(stmt->columnText(2));
    job.key_id = std::string(stmt->columnText(3));
    job.client_model = std::string(stmt->columnText(4));
    job.upstream_model = std::string(stmt->columnText(5));
    job.created = fromUnixMillis(stmt->columnInt(6));
    out.push_back(std::move(job));
  }
  return out;
}

Result<void> SqliteVideoJobStore::save(routing::VideoJob const& job) {
  std::lock_guard lock(mutex_);
  auto stmt = db_.prepare(kUpsert);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, job.id);
  stmt->bind(2, job.gateway_key);
  stmt->bind(3, job.channel);
  stmt->bind(4, job.key_id);
  stmt->bind(5, job.client_model);
  stmt->bind(6, job.upstream_model);
  stmt->bind(7, toUnixMillis(job.created));
  if (auto done = stmt->step(); !done.ok()) return done.takeError();
  return {};
}

Result<void> SqliteVideoJobStore::deleteOlderThan(WallTime cutoff) {
  std::lock_guard lock(mutex_);
  return deleteOlderThanLocked(cutoff);
}

Result<void> SqliteVideoJobStore::deleteOlderThanLocked(WallTime cutoff) {
  auto stmt = db_.prepare(kDeleteExpired);
  if (!stmt.ok()) return stmt.takeError();
  stmt->bind(1, toUnixMillis(cutoff));
  if (auto done = stmt->step(); !done.ok()) return done.takeError();
  return {};
}

}  // namespace llmux::store
