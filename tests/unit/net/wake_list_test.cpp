#include "net/wake_list.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace llmux::net {
namespace {

using namespace std::chrono_literals;

TEST(WakeList, WakesInTimeOrderAndNeverARemovedEntry) {
  asio::io_context io;
  WakeList list(io);
  std::vector<std::string> woke;
  MonoTime const now = MonoClock::now();
  list.add(now + 60ms, [&] { woke.push_back("late"); });
  auto removed = list.add(now + 20ms, [&] { woke.push_back("removed"); });
  list.add(now + 10ms, [&] { woke.push_back("early"); });  // earlier: the timer is re-armed
  list.remove(removed);
  io.run_for(200ms);
  EXPECT_EQ(woke, (std::vector<std::string>{"early", "late"}));
  EXPECT_GE(MonoClock::now() - now, 60ms);
}

TEST(WakeList, AWakeMayAddAnother) {
  asio::io_context io;
  WakeList list(io);
  int woke = 0;
  list.add(MonoClock::now() + 5ms, [&] {
    ++woke;
    list.add(MonoClock::now() + 5ms, [&] { ++woke; });
  });
  io.run_for(100ms);
  EXPECT_EQ(woke, 2);
}

TEST(WakeList, DestroyedWithEntriesLeftItWakesNothing) {
  asio::io_context io;
  int woke = 0;
  {
    WakeList list(io);
    list.add(MonoClock::now() + 5ms, [&] { ++woke; });
  }
  io.run_for(50ms);  // the timer's cancelled handler runs without touching the list
  EXPECT_EQ(woke, 0);
}

}  // namespace
}  // namespace llmux::net
