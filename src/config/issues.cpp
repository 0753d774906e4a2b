#include "config/issues.h"

namespace llmux::config {

std::string ConfigIssue::text() const {
  if (path.empty()) return message;
  return path + ": " + message;
}

std::string formatIssues(std::vector<ConfigIssue> const& issues) {
  std::string out;
  for (auto const& issue : issues) {
    out += issue.text();
    out += '\n';
  }
  return out;
}

}  // namespace llmux::config
