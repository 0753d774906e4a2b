#pragma once

// Many one-shot wake-ups on one timer, for waits that usually end before their time (racing's
// threshold: most primaries answer first). Adding one is a map insert and removing it an erase;
// the kernel timer is re-armed only for an earlier time. A timer per wait would cost an
// operation, a timer-queue insert and a posted cancellation each.
#include <cstdint>
#include <functional>
#include <map>

#include "core/clock.h"
#include "net/asio_types.h"

namespace llmux::net {

/// Thread safety: one io_context's thread.
class WakeList {
 public:
  using Entry = std::multimap<MonoTime, std::function<void()>>::iterator;

  explicit WakeList(asio::io_context& io) : timer_(io.get_executor()) {}
  WakeList(WakeList const&) = delete;
  WakeList& operator=(WakeList const&) = delete;

  /// `wake` runs once at `at` (on the io_context's thread), unless removed before. An entry is
  /// gone once it ran: do not remove it then.
  Entry add(MonoTime at, std::function<void()> wake);
  void remove(Entry entry) { entries_.erase(entry); }

 private:
  void arm(MonoTime at);
  void fire();

  std::multimap<MonoTime, std::function<void()>> entries_;
  Timer timer_;
  MonoTime armed_for_ = MonoTime::max();
  std::uint64_t generation_ = 0;  ///< an earlier arming's handler finds it moved on
};

}  // namespace llmux::net
