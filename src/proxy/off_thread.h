#pragma once

#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <thread>

#include "net/asio_types.h"

namespace llmux::proxy {

/// Runs blocking work (a database read or write, a parse) on a thread of its own; the I/O thread
/// only awaits its answer. `failed` is the answer when no thread can be started. For the admin
/// API's rare calls: a thread per call.
template <class T>
net::Task<T> offThread(std::function<T()> work, std::function<T(std::string)> failed) {
  struct Pending {
    explicit Pending(net::Executor executor) : wake(executor, MonoTime::max()) {}
    net::Timer wake;
    std::optional<T> answer;
  };
  auto pending = std::make_shared<Pending>(co_await boost::asio::this_coro::executor);
  try {
    std::thread([pending, work = std::move(work)]() mutable {
      auto answer = work();
      // The thread hands its reference on with the answer: the timer must be destroyed on its
      // own I/O thread, never here, where the last reference could otherwise fall.
      auto executor = pending->wake.get_executor();
      boost::asio::post(executor, [pending = std::move(pending), answer = std::move(answer)]() mutable {
        pending->answer.emplace(std::move(answer));
        pending->wake.cancel();
      });
    }).detach();
  } catch (std::system_error const& e) {
    co_return failed(std::string("cannot start a thread: ") + e.what());
  }
  co_await pending->wake.async_wait(net::kUseTuple);
  co_return std::move(*pending->answer);
}

}  // namespace llmux::proxy
