#pragma once

#include <string>
#include <vector>

namespace llmux::config {

/// One configuration problem. `path` names the offending value ("channels[2].base_url",
/// "gateway_keys[0].key"); it is "" for problems with the document as a whole (unreadable file,
/// YAML syntax error). Messages never contain a secret.
struct ConfigIssue {
  std::string path;
  std::string message;

  /// "path: message", or just "message" when `path` is empty.
  std::string text() const;
  bool operator==(ConfigIssue const&) const = default;
};

/// One `text()` per line, each line ending with '\n'.
std::string formatIssues(std::vector<ConfigIssue> const& issues);

}  // namespace llmux::config
