#pragma once

// Drives a coroutine to completion on a test's io_context. The io_context is not simply run():
// an open connection (Redis, a pooled upstream) keeps a read pending, so it never runs out of
// work.
#include <optional>
#include <stdexcept>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include "net/task.h"

namespace llmux::test_support {

template <class T>
net::Task<void> storeInto(net::Task<T> task, std::optional<T>& out) {
  out.emplace(co_await std::move(task));
}

inline net::Task<void> markDone(net::Task<void> task, bool& done) {
  co_await std::move(task);
  done = true;
}

/// Runs `io` until `done()` holds (throws when the context runs out of work before).
template <class Done>
void runUntil(boost::asio::io_context& io, Done done) {
  while (!done()) {
    if (io.stopped()) io.restart();
    if (io.run_one() == 0 && !done()) throw std::runtime_error("the coroutine never completed");
  }
}

/// Spawns `task` on `io` and fills `out` when it ends (several may run at once). The task runs
/// after this returns: whatever it takes by reference must outlive it (no temporaries).
template <class T>
void spawnInto(boost::asio::io_context& io, net::Task<T> task, std::optional<T>& out) {
  boost::asio::co_spawn(io, storeInto(std::move(task), out), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
}

/// Runs `task` to its end and returns its value.
template <class T>
T run(boost::asio::io_context& io, net::Task<T> task) {
  std::optional<T> out;
  spawnInto(io, std::move(task), out);
  runUntil(io, [&] { return out.has_value(); });
  return std::move(*out);
}

inline void run(boost::asio::io_context& io, net::Task<void> task) {
  bool done = false;
  boost::asio::co_spawn(io, markDone(std::move(task), done), [](std::exception_ptr e) {
    if (e) std::rethrow_exception(e);
  });
  runUntil(io, [&] { return done; });
}

}  // namespace llmux::test_support
