#include "routing/video_jobs.h"

#include <algorithm>
#include <mutex>
#include <utility>

namespace llmux::routing {

VideoJobTable::VideoJobTable(TimeSource const& clock, std::size_t capacity,
                             std::chrono::days retention)
    : clock_(clock), capacity_(std::max<std::size_t>(capacity, 1)), retention_(retention.count()) {}

void VideoJobTable::setSink(VideoJobSink* sink) {
  std::lock_guard lock(mutex_);
  sink_ = sink;
}

void VideoJobTable::load(std::vector<VideoJob> jobs) {
  // Oldest first, so that the capacity evicts the oldest and the order of eviction is age.
  std::stable_sort(jobs.begin(), jobs.end(),
                   [](VideoJob const& a, VideoJob const& b) { return a.created < b.created; });
  WallTime now = clock_.wallNow();
  std::lock_guard lock(mutex_);
  for (auto& job : jobs) {
    if (!job.id.empty() && !expired(job, now)) insertLocked(std::move(job));
  }
}

void VideoJobTable::remember(VideoJob job) {
  if (job.id.empty()) return;
  WallTime now = clock_.wallNow();
  job.created = now;
  std::lock_guard lock(mutex_);
  dropExpiredLocked(now);
  VideoJob const& kept = insertLocked(std::move(job));
  // Under the lock: the writes queue in the order of the changes (queueing never waits).
  if (sink_ != nullptr) sink_->videoJobRemembered(kept);
}

std::optional<VideoJob> VideoJobTable::find(std::string_view id) const {
  WallTime now = clock_.wallNow();
  std::lock_guard lock(mutex_);
  auto it = by_id_.find(id);
  // An expired job lingers until the next remember() sweeps it, but is never answered.
  if (it == by_id_.end() || expired(*it->second, now)) return std::nullopt;
  return *it->second;
}

std::size_t VideoJobTable::size() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

std::uint64_t VideoJobTable::persistenceFailures() const {
  std::lock_guard lock(mutex_);
  return sink_ != nullptr ? sink_->failedWrites() : 0;
}

VideoJob const& VideoJobTable::insertLocked(VideoJob job) {
  if (auto known = by_id_.find(job.id); known != by_id_.end()) eraseLocked(known->second);
  jobs_.push_back(std::move(job));
  auto newest = std::prev(jobs_.end());
  by_id_.emplace(newest->id, newest);
  while (jobs_.size() > capacity_) eraseLocked(jobs_.begin());
  return *newest;
}

void VideoJobTable::eraseLocked(Jobs::iterator it) {
  by_id_.erase(it->id);  // before the node goes: the key views its id
  jobs_.erase(it);
}

void VideoJobTable::dropExpiredLocked(WallTime now) {
  // Jobs are appended as they are created, so the expired ones are at the front (a wall clock
  // stepped back can leave one behind a newer job; find() still never answers it).
  while (!jobs_.empty() && expired(jobs_.front(), now)) eraseLocked(jobs_.begin());
}

}  // namespace llmux::routing
