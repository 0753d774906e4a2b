#pragma once

// A DNS lookup under a test's control, for net::CachingResolver: every call blocks until the test
// releases it, and calls are counted. Its state is shared with the lookup function, so a lookup
// thread that outlives the test (the resolver never joins them) touches nothing of the test's.
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "net/resolver.h"

namespace llmux::test_support {

class BlockingLookup {
 public:
  using Endpoints = std::vector<net::tcp::endpoint>;

  BlockingLookup() : state_(std::make_shared<State>()) {}
  /// Never leaves a lookup thread blocked.
  ~BlockingLookup() { release(makeError(ErrorKind::Connect, "test over")); }
  BlockingLookup(BlockingLookup const&) = delete;
  BlockingLookup& operator=(BlockingLookup const&) = delete;

  /// The lookup to give the resolver.
  net::HostLookup function() const {
    return [state = state_](std::string const&, std::uint16_t) {
      std::unique_lock lock(state->mutex);
      ++state->calls;
      state->changed.notify_all();
      state->changed.wait(lock, [&] { return state->answer.has_value(); });
      return *state->answer;
    };
  }

  /// Every blocked call, and every later one, returns `answer` (the first release wins).
  void release(Result<Endpoints> answer) {
    std::lock_guard lock(state_->mutex);
    if (!state_->answer) state_->answer = std::move(answer);
    state_->changed.notify_all();
  }

  int calls() const {
    std::lock_guard lock(state_->mutex);
    return state_->calls;
  }

  /// Waits until `n` calls have started (false after `timeout`).
  bool waitForCalls(int n, Millis timeout = Millis(2'000)) const {
    std::unique_lock lock(state_->mutex);
    return state_->changed.wait_for(lock, timeout, [&] { return state_->calls >= n; });
  }

 private:
  struct State {
    mutable std::mutex mutex;
    std::condition_variable changed;
    int calls = 0;
    std::optional<Result<Endpoints>> answer;
  };
  std::shared_ptr<State> state_;
};

}  // namespace llmux::test_support
