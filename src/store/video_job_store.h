#pragma once

#include <filesystem>
#include <memory>
#include <mutex>
#include <vector>

#include "core/result.h"
#include "routing/video_jobs.h"
#include "store/sqlite_db.h"
#include "store/video_job_writer.h"

namespace llmux::store {

/// The `video_jobs` table of the state database, through a connection of its own beside the
/// request log's, the freezes' and racing's. Every call is synchronous: once the gateway runs
/// only a VideoJobWriter's thread calls it. Thread-safe (one mutex around the connection).
class SqliteVideoJobStore final : public VideoJobRows {
 public:
  /// Creates `state_dir` if needed, opens the database and applies the migrations. Start-up only.
  static Result<std::unique_ptr<SqliteVideoJobStore>> open(std::filesystem::path const& state_dir);

  SqliteVideoJobStore(SqliteVideoJobStore const&) = delete;
  SqliteVideoJobStore& operator=(SqliteVideoJobStore const&) = delete;

  Result<std::vector<routing::VideoJob>> load(WallTime cutoff, std::size_t limit) override;
  Result<void> save(routing::VideoJob const& job) override;
  Result<void> deleteOlderThan(WallTime cutoff) override;

 private:
  explicit SqliteVideoJobStore(SqliteDb db) : db_(std::move(db)) {}

  Result<void> deleteOlderThanLocked(WallTime cutoff);

  std::mutex mutex_;
  SqliteDb db_;
};

}  // namespace llmux::store
