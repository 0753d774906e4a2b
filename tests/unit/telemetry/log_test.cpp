#include "telemetry/log.h"

#include <gtest/gtest.h>

#include <chrono>
#include <mutex>
#include <string>
#include <vector>

namespace llmux::telemetry {
namespace {

std::mutex g_captured_mutex;
std::vector<std::string> g_captured;

void captureLine(std::string_view line) {
  std::lock_guard lock(g_captured_mutex);
  g_captured.emplace_back(line);
}

// Restores the process-wide logger configuration after each test.
class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    g_captured.clear();
    setLogWriter(&captureLine);
  }
  void TearDown() override {
    setLogWriter(nullptr);
    setLogLevel(LogLevel::Info);
  }
};

WallTime at(std::int64_t unix_ms) {
  return WallTime(std::chrono::milliseconds(unix_ms));
}

TEST(LogFormat, LineHasTimestampLevelAndMessage) {
  EXPECT_EQ(formatLogLine(at(1'700'000'000'123), LogLevel::Info, "listening on 127.0.0.1:8080"),
            "2023-11-14T22:13:20.123Z INFO  listening on 127.0.0.1:8080\n");
  EXPECT_EQ(formatLogLine(at(0), LogLevel::Error, "x"), "1970-01-01T00:00:00.000Z ERROR x\n");
  EXPECT_EQ(formatLogLine(at(951'782'400'007), LogLevel::Warn, "leap"),
            "2000-02-29T00:00:00.007Z WARN  leap\n");
}

TEST(LogFormat, ControlCharactersCannotForgeLines) {
  std::string line = formatLogLine(at(0), LogLevel::Debug, "a\nINFO fake\r\x01\tb");
  EXPECT_EQ(line, "1970-01-01T00:00:00.000Z DEBUG a\\nINFO fake\\r\\x01\tb\n");
  EXPECT_EQ(line.find('\n'), line.size() - 1);
}

TEST(LogLevels, ParseAndName) {
  for (LogLevel level : {LogLevel::Debug, LogLevel::Info, LogLevel::Warn, LogLevel::Error})
    EXPECT_EQ(parseLogLevel(logLevelName(level)), level);
  EXPECT_EQ(parseLogLevel("warning"), LogLevel::Warn);
  EXPECT_FALSE(parseLogLevel("verbose").has_value());
  EXPECT_FALSE(parseLogLevel("INFO").has_value());
}

TEST_F(LogTest, HelpersFormatAndFilterByLevel) {
  setLogLevel(LogLevel::Warn);
  logDebug("hidden {}", 1);
  logInfo("hidden {}", 2);
  logWarn("upstream {} answered {}", "openai#0", 503);
  logError("disk {}", "full");
  logAt(LogLevel::Info, "hidden too");
  ASSERT_EQ(g_captured.size(), 2u);
  EXPECT_NE(g_captured[0].find(" WARN  upstream openai#0 answered 503\n"), std::string::npos);
  EXPECT_NE(g_captured[1].find(" ERROR disk full\n"), std::string::npos);
  EXPECT_EQ(g_captured[0].size(), 24 + 1 + 6 + 30 + 1);

  setLogLevel(LogLevel::Debug);
  EXPECT_TRUE(logEnabled(LogLevel::Debug));
  logDebug("now {}", "visible");
  logMessage(LogLevel::Info, "{} braces are not a format here");
  ASSERT_EQ(g_captured.size(), 4u);
  EXPECT_NE(g_captured[2].find(" DEBUG now visible\n"), std::string::npos);
  EXPECT_NE(g_captured[3].find(" INFO  {} braces are not a format here\n"), std::string::npos);
}

}  // namespace
}  // namespace llmux::telemetry
