#include "net/listen_address.h"

#include "core/strings.h"

namespace llmux::net {

std::optional<HostPort> parseHostPort(std::string_view text) {
  auto colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0) return std::nullopt;
  std::string_view host = text.substr(0, colon);
  auto port = parseNonNegative(text.substr(colon + 1));
  if (!port || *port > 65535) return std::nullopt;
  if (host.front() == '[') {
    if (host.size() < 3 || host.back() != ']') return std::nullopt;
    host = host.substr(1, host.size() - 2);
  }
  return HostPort{std::string(host), static_cast<std::uint16_t>(*port)};
}

}  // namespace llmux::net
