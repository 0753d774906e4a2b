#pragma once

#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "telemetry/log.h"

namespace llmux::store {

/// While alive, the application log's lines are kept here instead of going to stderr.
class CapturedLog {
 public:
  CapturedLog() {
    std::lock_guard lock(mutex());
    lines_().clear();
    telemetry::setLogWriter(&keep);
  }
  ~CapturedLog() { telemetry::setLogWriter(nullptr); }
  CapturedLog(CapturedLog const&) = delete;
  CapturedLog& operator=(CapturedLog const&) = delete;

  std::vector<std::string> lines() const {
    std::lock_guard lock(mutex());
    return lines_();
  }

 private:
  // The writer is a plain function pointer: the lines live in function-local statics.
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::vector<std::string>& lines_() {
    static std::vector<std::string> kept;
    return kept;
  }
  static void keep(std::string_view line) {
    std::lock_guard lock(mutex());
    lines_().emplace_back(line);
  }
};

}  // namespace llmux::store
