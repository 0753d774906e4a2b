#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <vector>

namespace llmux::proxy {

/// The requests that just finished, for the admin API's live tail (GET /admin/requests/live).
/// A bounded ring of their JSON (proxy::requestJson), filled only while someone watches: a
/// request costs one atomic load when nobody does. Thread-safe.
class RequestTail {
 public:
  explicit RequestTail(std::size_t capacity = 512) : capacity_(capacity) {}

  struct Entry {
    std::uint64_t seq = 0;  ///< this ring's order, from 1
    std::string id;         ///< the request id
    std::string json;
  };

  /// Whether a watcher is connected (then finished requests should be published).
  bool watched() const { return watchers_.load(std::memory_order_relaxed) > 0; }
  /// Appends one finished request; the oldest entry goes past the capacity.
  void publish(std::string id, std::string json);
  /// The entries after `seq`, oldest first (a watcher that fell more than the capacity behind
  /// misses the oldest ones).
  std::vector<Entry> after(std::uint64_t seq) const;
  /// The newest entry's seq (0 before the first).
  std::uint64_t lastSeq() const;

  /// Counts one watcher while it lives.
  class Watch {
   public:
    explicit Watch(RequestTail& tail) : tail_(tail) { tail_.watchers_.fetch_add(1); }
    ~Watch() { tail_.watchers_.fetch_sub(1); }
    Watch(Watch const&) = delete;
    Watch& operator=(Watch const&) = delete;

   private:
    RequestTail& tail_;
  };

 private:
  std::size_t const capacity_;
  std::atomic<int> watchers_{0};
  mutable std::mutex mutex_;
  std::deque<Entry> entries_;
  std::uint64_t last_seq_ = 0;
};

}  // namespace llmux::proxy
