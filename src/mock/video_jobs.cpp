#include "mock/video_jobs.h"

namespace llmux::mock {

VideoJob::Status VideoJob::status() const {
  if (polls == 0) return Status::Queued;
  return polls < polls_to_complete ? Status::InProgress : Status::Completed;
}

std::int64_t VideoJob::progress() const {
  switch (status()) {
    case Status::Queued:
      return 0;
    case Status::InProgress:
      return polls * 100 / polls_to_complete;
    case Status::Completed:
      break;
  }
  return 100;
}

std::uint64_t VideoJobs::nextSerial() {
  std::lock_guard lock(mutex_);
  return ++serial_;
}

void VideoJobs::add(VideoJob job) {
  std::lock_guard lock(mutex_);
  std::string id = job.id;
  if (!jobs_.insert_or_assign(id, std::move(job)).second) return;  // a known id keeps its place
  order_.push_back(std::move(id));
  if (order_.size() > kCapacity) {
    jobs_.erase(order_.front());
    order_.pop_front();
  }
}

std::optional<VideoJob> VideoJobs::poll(std::string_view id) {
  std::lock_guard lock(mutex_);
  auto it = jobs_.find(std::string(id));
  if (it == jobs_.end()) return std::nullopt;
  ++it->second.polls;
  return it->second;
}

std::optional<VideoJob> VideoJobs::find(std::string_view id) const {
  std::lock_guard lock(mutex_);
  auto it = jobs_.find(std::string(id));
  if (it == jobs_.end()) return std::nullopt;
  return it->second;
}

}  // namespace llmux::mock
