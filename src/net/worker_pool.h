#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "net/asio_types.h"

namespace llmux::net {

/// One event loop per thread. Each worker owns its io_context and everything bound to it
/// (connections, upstream pools), so the request path takes no cross-thread locks.
class WorkerPool {
 public:
  explicit WorkerPool(unsigned threads);
  ~WorkerPool();
  WorkerPool(WorkerPool const&) = delete;
  WorkerPool& operator=(WorkerPool const&) = delete;

  unsigned size() const { return static_cast<unsigned>(contexts_.size()); }
  asio::io_context& context(unsigned index) { return *contexts_[index]; }

  /// Runs `fn` on loop `index`'s thread, after what is already queued there (from any thread).
  void post(unsigned index, std::function<void()> fn);

  /// Starts the threads. Each io_context keeps running until stop() (a work guard holds it).
  void start();
  /// Lets every loop run out of work (call after draining: nothing should be left) and joins the
  /// threads. Loops still busy after `grace` are stopped; their remaining coroutines are then
  /// never resumed and the function returns false: the process should exit without running
  /// destructors that those coroutines' frames would outlive.
  bool stop(std::chrono::milliseconds grace = std::chrono::seconds(2));

 private:
  std::vector<std::unique_ptr<asio::io_context>> contexts_;
  std::vector<std::unique_ptr<void, void (*)(void*)>> guards_;
  std::vector<std::thread> threads_;
  std::shared_ptr<std::atomic<unsigned>> running_ = std::make_shared<std::atomic<unsigned>>(0);
};

/// Number of worker threads for a configured value (0 = one per core).
unsigned effectiveThreadCount(unsigned configured);

}  // namespace llmux::net
