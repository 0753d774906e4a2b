#include "telemetry/log.h"

#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <iterator>

#include "telemetry/time_format.h"

namespace llmux::telemetry {
namespace {

// The logger's configuration: the documented exception to "no mutable globals" (see log.h).
std::atomic<LogLevel> g_level{LogLevel::Info};
std::atomic<LogWriter> g_writer{nullptr};

// One write(2) per line: lines from different threads never interleave (stderr is unbuffered and
// a single write of a short line to a pipe or terminal is atomic).
void writeToStderr(std::string_view line) {
  while (!line.empty()) {
    ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return;  // nowhere left to report it
    }
    line.remove_prefix(static_cast<std::size_t>(n));
  }
}

void emit(LogLevel level, std::string_view message) {
  std::string line = formatLogLine(WallClock::now(), level, message);
  LogWriter writer = g_writer.load(std::memory_order_acquire);
  (writer != nullptr ? writer : writeToStderr)(line);
}

}  // namespace

std::string_view logLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
  }
  return "info";
}

std::optional<LogLevel> parseLogLevel(std::string_view name) {
  if (name == "debug") return LogLevel::Debug;
  if (name == "info") return LogLevel::Info;
  if (name == "warn" || name == "warning") return LogLevel::Warn;
  if (name == "error") return LogLevel::Error;
  return std::nullopt;
}

void setLogLevel(LogLevel level) {
  g_level.store(level, std::memory_order_relaxed);
}

LogLevel logLevel() {
  return g_level.load(std::memory_order_relaxed);
}

bool logEnabled(LogLevel level) {
  return level >= g_level.load(std::memory_order_relaxed);
}

void setLogWriter(LogWriter writer) {
  g_writer.store(writer, std::memory_order_release);
}

std::string formatLogLine(WallTime time, LogLevel level, std::string_view message) {
  static constexpr std::string_view kTags[] = {"DEBUG ", "INFO  ", "WARN  ", "ERROR "};
  static constexpr char kHex[] = "0123456789abcdef";
  std::string line;
  line.reserve(32 + message.size());
  appendRfc3339Millis(line, time);
  line.push_back(' ');
  line += kTags[static_cast<std::size_t>(level) & 3];
  for (char ch : message) {
    auto c = static_cast<unsigned char>(ch);
    if (c == '\n') {
      line += "\\n";
    } else if (c == '\r') {
      line += "\\r";
    } else if (c < 0x20 && c != '\t') {
      line += "\\x";
      line.push_back(kHex[c >> 4]);
      line.push_back(kHex[c & 0xF]);
    } else {
      line.push_back(ch);
    }
  }
  line.push_back('\n');
  return line;
}

void logMessage(LogLevel level, std::string_view message) {
  if (logEnabled(level)) emit(level, message);
}

void vlog(LogLevel level, fmt::string_view format, fmt::format_args args) {
  fmt::memory_buffer buffer;
  fmt::vformat_to(std::back_inserter(buffer), format, args);
  emit(level, std::string_view(buffer.data(), buffer.size()));
}

}  // namespace llmux::telemetry
