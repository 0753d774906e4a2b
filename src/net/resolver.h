#pragma once

#include <chrono>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/result.h"
#include "net/asio_types.h"

namespace llmux::net {

/// Name resolution for upstream hosts, owned by one worker. getaddrinfo runs on Asio's internal
/// resolver thread, never on the I/O thread; answers are cached for a short time so a busy
/// upstream costs one lookup per minute, not one per connection.
class CachingResolver {
 public:
  explicit CachingResolver(asio::io_context& io, std::chrono::seconds ttl = std::chrono::seconds(60));

  /// Endpoints for host:port. IP literals are answered without a lookup.
  Task<Result<std::vector<tcp::endpoint>>> resolve(std::string const& host, std::uint16_t port);

 private:
  struct Entry {
    std::vector<tcp::endpoint> endpoints;
    std::chrono::steady_clock::time_point expires;
  };
  Resolver resolver_;
  std::chrono::seconds ttl_;
  std::unordered_map<std::string, Entry> cache_;
};

}  // namespace llmux::net
