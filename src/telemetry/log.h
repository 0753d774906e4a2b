#pragma once

#include <fmt/core.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/clock.h"

/// The application log: one line per message on stderr, "<RFC 3339 time> <LEVEL> <message>".
///
/// The one exception to "no mutable globals": the log level and the line writer are process-wide
/// and meant to be set once at start-up (`setLogLevel`, `setLogWriter`) before any thread logs.
/// Both are atomics, so a later change (a config reload of the level) is still race-free. A
/// message below the level costs one relaxed load and no formatting.
namespace llmux::telemetry {

/// Severity of an application log message.
enum class LogLevel : std::uint8_t {
  Debug,  ///< developer detail, off in production
  Info,   ///< life-cycle events: listening, config reloaded
  Warn,   ///< something degraded but served
  Error,  ///< something failed and needs an operator
};

/// "debug", "info", "warn", "error".
std::string_view logLevelName(LogLevel level);

/// Parses the configuration spelling ("warning" is accepted for "warn"); nullopt when unknown.
std::optional<LogLevel> parseLogLevel(std::string_view name);

/// Messages below `level` are discarded. Default: Info.
void setLogLevel(LogLevel level);
LogLevel logLevel();
bool logEnabled(LogLevel level);

/// Receives each finished line (newline included). Must be thread-safe.
using LogWriter = void (*)(std::string_view line);

/// Replaces the stderr writer (nullptr restores it); for tests and embedding.
void setLogWriter(LogWriter writer);

/// One finished log line: "2023-11-14T22:13:20.123Z INFO  message\n". Control characters in
/// `message` are escaped so a message can never forge a second line.
std::string formatLogLine(WallTime time, LogLevel level, std::string_view message);

/// Writes `message` if `level` is enabled.
void logMessage(LogLevel level, std::string_view message);

/// Formats and writes; the type-erased back end of the helpers below.
void vlog(LogLevel level, fmt::string_view format, fmt::format_args args);

template <class... Args>
void logAt(LogLevel level, fmt::format_string<Args...> format, Args&&... args) {
  if (logEnabled(level)) vlog(level, format, fmt::make_format_args(args...));
}

template <class... Args>
void logDebug(fmt::format_string<Args...> format, Args&&... args) {
  if (logEnabled(LogLevel::Debug)) vlog(LogLevel::Debug, format, fmt::make_format_args(args...));
}

template <class... Args>
void logInfo(fmt::format_string<Args...> format, Args&&... args) {
  if (logEnabled(LogLevel::Info)) vlog(LogLevel::Info, format, fmt::make_format_args(args...));
}

template <class... Args>
void logWarn(fmt::format_string<Args...> format, Args&&... args) {
  if (logEnabled(LogLevel::Warn)) vlog(LogLevel::Warn, format, fmt::make_format_args(args...));
}

template <class... Args>
void logError(fmt::format_string<Args...> format, Args&&... args) {
  if (logEnabled(LogLevel::Error)) vlog(LogLevel::Error, format, fmt::make_format_args(args...));
}

}  // namespace llmux::telemetry
