#include "protocol/cookies.h"

#include "core/strings.h"

namespace llmux::protocol {

std::optional<std::string_view> cookieValue(HeaderList const& headers, std::string_view name) {
  for (HeaderField const& field : headers) {
    if (!equalsIgnoreCase(field.name, "cookie")) continue;
    std::string_view rest = field.value;
    while (!rest.empty()) {
      auto semicolon = rest.find(';');
      std::string_view pair = trimSpaces(rest.substr(0, semicolon));
      rest = semicolon == std::string_view::npos ? std::string_view() : rest.substr(semicolon + 1);
      auto eq = pair.find('=');
      if (eq == std::string_view::npos || trimSpaces(pair.substr(0, eq)) != name) continue;
      std::string_view value = trimSpaces(pair.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace llmux::protocol
