#pragma once

// The one piece of state the mock keeps between requests: OpenAI's video API is asynchronous (a
// job is created, polled until it completes, then downloaded), so the mock remembers its jobs.
// Given the same sequence of calls, the answers are the same.

#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

namespace llmux::mock {

/// A video job as created; where it stands follows from how often it has been polled.
struct VideoJob {
  std::string id, model, prompt, size, seconds;
  std::int64_t created_at = 0;
  std::int64_t polls_to_complete = 3;  ///< the GET that reports it completed
  std::int64_t polls = 0;              ///< GETs so far
  std::uint64_t seed = 0;              ///< of its content bytes

  enum class Status { Queued, InProgress, Completed };
  /// Queued until polled, in progress until the polls_to_complete-th GET, completed from then.
  Status status() const;
  /// 0 queued, polls * 100 / polls_to_complete in progress, 100 completed.
  std::int64_t progress() const;
};

/// The jobs, newest kCapacity kept (an older one is forgotten: 404, as an expired job).
/// Thread-safe.
class VideoJobs {
 public:
  static constexpr std::size_t kCapacity = 1024;

  /// A number never handed out before in this process: mixed into ids, so that two identical
  /// requests still create two jobs.
  std::uint64_t nextSerial();
  void add(VideoJob job);
  /// Counts one poll of `id` and returns the job after it; nullopt when unknown.
  std::optional<VideoJob> poll(std::string_view id);
  /// The job as it stands, without counting a poll.
  std::optional<VideoJob> find(std::string_view id) const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, VideoJob> jobs_;
  std::deque<std::string> order_;  ///< ids, oldest first
  std::uint64_t serial_ = 0;
};

}  // namespace llmux::mock
