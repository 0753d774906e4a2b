#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <vector>

#include "core/result.h"

namespace llmux::store {

// Bounds for waits that end at once when the code is right; a wrong build fails instead of hanging.
inline constexpr auto kPatience = std::chrono::seconds(10);

/// Writes kept in memory that can be held, as a stuck disk or a locked database holds them, or
/// made to fail. Records every write in the order it was made. A writer test's fake rows name
/// each write ("save frz_1") and pass it to `write`.
class HeldWrites {
 public:
  void hold() {
    std::lock_guard lock(mutex_);
    held_ = true;
  }
  void release() {
    {
      std::lock_guard lock(mutex_);
      held_ = false;
    }
    changed_.notify_all();
  }
  void failWith(std::string error) {
    std::lock_guard lock(mutex_);
    error_ = std::move(error);
  }
  /// Waits until a write is being held; false after kPatience.
  bool waitHolding() {
    std::unique_lock lock(mutex_);
    return changed_.wait_for(lock, kPatience, [&] { return holding_; });
  }
  std::vector<std::string> written() {
    std::lock_guard lock(mutex_);
    return written_;
  }

 protected:
  Result<void> write(std::string op) {
    std::unique_lock lock(mutex_);
    holding_ = held_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return !held_; });
    holding_ = false;
    if (!error_.empty()) return makeError(ErrorKind::Internal, error_);
    written_.push_back(std::move(op));
    return {};
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  bool held_ = false;
  bool holding_ = false;
  std::string error_;
  std::vector<std::string> written_;
};

/// Releases the writes when the test ends, so that a failed assertion cannot leave the writer's
/// thread (and its destructor) waiting forever.
struct ReleaseAtEnd {
  HeldWrites& rows;
  ~ReleaseAtEnd() { rows.release(); }
};

}  // namespace llmux::store
