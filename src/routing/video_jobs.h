#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/clock.h"

namespace llmux::routing {

/// Where an asynchronous video job lives. OpenAI's video API creates a job on one upstream
/// (POST /v1/videos) and only that upstream knows it, so every poll and download of the job must
/// go to the channel and key that created it, on behalf of the gateway key that created it.
struct VideoJob {
  std::string id;              ///< the upstream's job id, which the client polls with
  std::string gateway_key;     ///< name of the gateway key that created it: no other may reach it
  std::string channel;         ///< channel name
  std::string key_id;          ///< ChannelKey::id of the key that created it (never the secret)
  std::string client_model;    ///< the model the client asked for
  std::string upstream_model;  ///< the model sent upstream
  WallTime created{};          ///< set by VideoJobTable::remember

  bool operator==(VideoJob const&) const = default;
};

/// Keeps remembered jobs across restarts (store::VideoJobWriter, over SQLite). Told under the
/// table's lock, on request threads: it must only queue the write, never wait for a disk.
class VideoJobSink {
 public:
  virtual ~VideoJobSink() = default;
  /// `job` was remembered (a new job, or one whose id came again).
  virtual void videoJobRemembered(VideoJob const& job) = 0;
  /// Writes given up on so far (monotonic).
  virtual std::uint64_t failedWrites() const = 0;
};

/// The video jobs of the last `retention` (`retention.video_jobs_days`), shared by all workers.
/// Thread-safe; `find` is one short lock around a hash lookup (a plain mutex: a reader-preferring
/// shared lock would let polls starve remember), and never touches the disk. Bounded: past
/// `capacity` the oldest job is forgotten (its polls then answer 404, as an expired job's would).
/// The memory is the truth; the sink only keeps a copy for the next start.
class VideoJobTable {
 public:
  /// How long a job can be reached unless configured: far longer than a job takes to finish and
  /// be downloaded (an upstream that forgot the job sooner answers its own 404).
  static constexpr std::chrono::days kDefaultRetention{7};
  /// Most jobs held (a few hundred bytes each): far above what a week of paid video jobs
  /// makes, so only a flood evicts.
  static constexpr std::size_t kCapacity = 100'000;

  explicit VideoJobTable(TimeSource const& clock, std::size_t capacity = kCapacity,
                         std::chrono::days retention = kDefaultRetention);
  VideoJobTable(VideoJobTable const&) = delete;
  VideoJobTable& operator=(VideoJobTable const&) = delete;

  /// How long a job can be reached. A reload may change it: a shorter one hides the older jobs
  /// at once, a longer one keeps those not yet swept. Lock-free: the sink reads it while told a
  /// job, under the table's lock.
  std::chrono::days retention() const { return std::chrono::days(retention_.load()); }
  void setRetention(std::chrono::days retention) { retention_.store(retention.count()); }

  /// Start-up: where remembered jobs are kept from now on (nullptr: nowhere).
  void setSink(VideoJobSink* sink);
  /// Start-up: the kept jobs (in any order) join the table; expired ones are skipped, and past
  /// the capacity only the newest stay. The sink is not told.
  void load(std::vector<VideoJob> jobs);

  /// Records a job the upstream just created. The caller fills every field but `created`, which
  /// becomes now; a job with an empty id is ignored (nothing could find it). A known id is
  /// replaced. Queues the write to the sink; never waits for it.
  void remember(VideoJob job);
  /// The job with this id, or nullopt when unknown, evicted or older than the retention. The caller
  /// must still check `gateway_key` against the request's: another tenant's job is not theirs.
  std::optional<VideoJob> find(std::string_view id) const;

  std::size_t size() const;
  std::size_t capacity() const { return capacity_; }
  /// The sink's writes given up on (the table stays right; the jobs are lost at the next
  /// restart). Monotonic, for metrics.
  std::uint64_t persistenceFailures() const;

 private:
  using Jobs = std::list<VideoJob>;  ///< oldest first

  bool expired(VideoJob const& job, WallTime now) const { return job.created + retention() <= now; }
  /// Appends `job` as the newest, replacing a job with its id, and evicts past the capacity.
  VideoJob const& insertLocked(VideoJob job);
  void eraseLocked(Jobs::iterator it);
  void dropExpiredLocked(WallTime now);

  TimeSource const& clock_;
  std::size_t const capacity_;
  std::atomic<std::chrono::days::rep> retention_;
  mutable std::mutex mutex_;
  Jobs jobs_;
  /// Keys view the ids inside `jobs_`, whose nodes never move.
  std::unordered_map<std::string_view, Jobs::iterator> by_id_;
  VideoJobSink* sink_ = nullptr;
};

}  // namespace llmux::routing
