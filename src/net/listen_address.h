#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace llmux::net {

/// "host:port" or "[v6]:port", split. The host may be a name; it is resolved at bind time.
struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};

std::optional<HostPort> parseHostPort(std::string_view text);

}  // namespace llmux::net
