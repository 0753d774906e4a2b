#include "e2e/scenarios/security_support.h"

namespace llmux::e2e::security {

std::string linesWith(std::string_view text, std::string_view needle) {
  std::string out;
  while (!text.empty()) {
    auto end = text.find('\n');
    std::string_view line = text.substr(0, end);
    if (line.find(needle) != std::string_view::npos) {
      out += line;
      out += '\n';
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return out;
}

}  // namespace llmux::e2e::security
