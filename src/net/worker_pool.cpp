#include "net/worker_pool.h"

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>

namespace llmux::net {
namespace {
using Guard = asio::executor_work_guard<asio::io_context::executor_type>;
}

WorkerPool::WorkerPool(unsigned threads) {
  for (unsigned i = 0; i < threads; ++i) {
    // Each context is run by exactly one thread, and its sockets and timers are only touched
    // from that thread: the reactor's per-descriptor locking is not needed. (The scheduler keeps
    // its lock: other threads post to it, e.g. drain requests and resolver completions.)
    contexts_.push_back(std::make_unique<asio::io_context>(BOOST_ASIO_CONCURRENCY_HINT_UNSAFE_IO));
  }
}

WorkerPool::~WorkerPool() { stop(std::chrono::milliseconds(0)); }

void WorkerPool::post(unsigned index, std::function<void()> fn) {
  asio::post(*contexts_[index], std::move(fn));
}

void WorkerPool::start() {
  for (auto& ctx : contexts_) {
    guards_.emplace_back(new Guard(ctx->get_executor()), [](void* g) { delete static_cast<Guard*>(g); });
    running_->fetch_add(1);
    threads_.emplace_back([c = ctx.get(), running = running_] {
      c->run();
      running->fetch_sub(1);
    });
  }
}

bool WorkerPool::stop(std::chrono::milliseconds grace) {
  if (threads_.empty()) return true;
  guards_.clear();
  auto deadline = std::chrono::steady_clock::now() + grace;
  while (running_->load() > 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  bool clean = running_->load() == 0;
  if (!clean) {
    for (auto& ctx : contexts_) ctx->stop();
  }
  for (auto& t : threads_) {
    if (t.joinable()) t.join();
  }
  threads_.clear();
  return clean;
}

unsigned effectiveThreadCount(unsigned configured) {
  if (configured > 0) return configured;
  unsigned cores = std::thread::hardware_concurrency();
  return cores > 0 ? cores : 1;
}

}  // namespace llmux::net
