#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"
#include "routing/video_jobs.h"
#include "store/postgres_connection.h"
#include "store/video_job_writer.h"

namespace llmux::store {

/// The video jobs in PostgreSQL (`database:`), the table every replica shares: a job created
/// through one replica is read by the others (`createdSince`, on the shared-state sync), so its
/// polls and downloads may reach any of them. The same rows as SQLite's `video_jobs`.
/// Synchronous: only a VideoJobWriter's thread and the sync call it; a call without a usable
/// connection connects first. Thread-safe (one mutex around the connection).
class PostgresVideoJobStore final : public VideoJobRows {
 public:
  explicit PostgresVideoJobStore(std::string url,
                                 std::chrono::milliseconds answer_timeout =
                                     PostgresConnection::kAnswerTimeout);

  Result<std::vector<routing::VideoJob>> load(WallTime cutoff, std::size_t limit) override;
  Result<void> save(routing::VideoJob const& job) override;
  Result<void> deleteOlderThan(WallTime cutoff) override;
  /// The jobs created at or after `since`, oldest first (at most `limit`).
  Result<std::vector<routing::VideoJob>> createdSince(WallTime since, std::size_t limit);

 private:
  Result<std::vector<routing::VideoJob>> select(char const* sql, std::vector<std::string> params);

  std::mutex mutex_;
  PostgresConnection db_;
};

}  // namespace llmux::store
