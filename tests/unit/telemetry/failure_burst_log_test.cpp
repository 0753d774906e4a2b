#include "telemetry/failure_burst_log.h"

#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "telemetry/log.h"

namespace llmux::telemetry {
namespace {

using std::chrono::seconds;

std::mutex g_lines_mutex;
std::vector<std::string> g_lines;

void captureLine(std::string_view line) {
  std::lock_guard lock(g_lines_mutex);
  g_lines.emplace_back(line);
}

class FailureBurstLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_lines.clear();
    setLogWriter(&captureLine);
  }
  void TearDown() override { setLogWriter(nullptr); }

  static std::vector<std::string> lines() {
    std::lock_guard lock(g_lines_mutex);
    return g_lines;
  }
};

bool contains(std::string const& line, std::string_view part) {
  return line.find(part) != std::string::npos;
}

TEST_F(FailureBurstLogTest, AStormIsOneLineThenOneSummaryPerIntervalThenOneRecoveryLine) {
  ManualTimeSource clock;
  FailureBurstLog log("request log write", seconds(60));

  log.failed(clock.now(), "database or disk is full");
  ASSERT_EQ(lines().size(), 1u);
  EXPECT_TRUE(contains(lines()[0], "ERROR request log write failed: database or disk is full"))
      << lines()[0];

  // A storm within the interval: counted, not logged.
  for (int i = 0; i < 1000; ++i) {
    clock.advance(std::chrono::milliseconds(10));
    log.failed(clock.now(), "database or disk is full");
  }
  EXPECT_EQ(lines().size(), 1u);
  EXPECT_EQ(log.burstFailures(), 1001u);

  // The first failure after the interval summarises everything since the last line.
  clock.advance(seconds(51));
  log.failed(clock.now(), "disk I/O error");
  ASSERT_EQ(lines().size(), 2u);
  EXPECT_TRUE(contains(lines()[1],
                       "request log write failed 1001 more time(s) in the last 61 s; "
                       "last error: disk I/O error"))
      << lines()[1];

  clock.advance(seconds(1));
  log.failed(clock.now(), "disk I/O error");
  EXPECT_EQ(lines().size(), 2u);

  log.succeeded();
  ASSERT_EQ(lines().size(), 3u);
  EXPECT_TRUE(contains(lines()[2], "WARN  request log write works again after 1003 failure(s)"))
      << lines()[2];
  EXPECT_EQ(log.burstFailures(), 0u);

  // Successes log nothing; the next burst starts with a line of its own.
  log.succeeded();
  EXPECT_EQ(lines().size(), 3u);
  clock.advance(seconds(1));
  log.failed(clock.now(), "locked");
  ASSERT_EQ(lines().size(), 4u);
  EXPECT_TRUE(contains(lines()[3], "request log write failed: locked")) << lines()[3];
}

}  // namespace
}  // namespace llmux::telemetry
