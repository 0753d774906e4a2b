#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/result.h"
#include "net/asio_types.h"

namespace llmux::net {

/// A blocking lookup of host:port: getaddrinfo in production; tests inject slow or counting fakes.
using HostLookup =
    std::function<Result<std::vector<tcp::endpoint>>(std::string const& host, std::uint16_t port)>;

/// getaddrinfo (blocking; it cannot be interrupted).
Result<std::vector<tcp::endpoint>> systemLookup(std::string const& host, std::uint16_t port);

/// Name resolution for upstream hosts, one per process, shared by every worker (thread-safe).
/// Lookups run on threads of their own (at most kMaxLookupThreads at once), never on an I/O
/// thread. Concurrent look-ups of one host:port share one lookup and every waiter gets its answer
/// on its own io_context; answers are cached for `ttl`, so a busy upstream costs one lookup a
/// minute, not one per connection. A waiter gives up at its deadline, or when its stop token is
/// triggered, at once: the lookup goes on in the background and its answer still fills the cache.
///
/// The resolver may be destroyed while lookups run: their threads keep what they need, and no
/// answer is delivered to a waiter after the destruction.
class CachingResolver {
 public:
  static constexpr std::size_t kMaxLookupThreads = 4;

  explicit CachingResolver(HostLookup lookup = systemLookup,
                           std::chrono::seconds ttl = std::chrono::seconds(60));
  ~CachingResolver();
  CachingResolver(CachingResolver const&) = delete;
  CachingResolver& operator=(CachingResolver const&) = delete;

  /// Endpoints for host:port by `deadline` (then a Timeout error naming the DNS lookup), or a
  /// Cancelled error as soon as `stop` is triggered (from the caller's thread). IP literals are
  /// answered without a lookup; a cached answer is returned even past the deadline.
  Task<Result<std::vector<tcp::endpoint>>> resolve(std::string host, std::uint16_t port,
                                                   MonoTime deadline = MonoTime::max(),
                                                   std::stop_token stop = {});

 private:
  struct Core;
  struct Waiter;
  std::shared_ptr<Core> core_;
};

}  // namespace llmux::net
