#include "proxy/request_tail.h"

#include <algorithm>

namespace llmux::proxy {

void RequestTail::publish(std::string id, std::string json) {
  std::lock_guard lock(mutex_);
  entries_.push_back(Entry{++last_seq_, std::move(id), std::move(json)});
  while (entries_.size() > capacity_) entries_.pop_front();
}

std::vector<RequestTail::Entry> RequestTail::after(std::uint64_t seq) const {
  std::lock_guard lock(mutex_);
  auto first = std::upper_bound(entries_.begin(), entries_.end(), seq,
                                [](std::uint64_t s, Entry const& e) { return s < e.seq; });
  return {first, entries_.end()};
}

std::uint64_t RequestTail::lastSeq() const {
  std::lock_guard lock(mutex_);
  return last_seq_;
}

}  // namespace llmux::proxy
