#include "net/resolver.h"

#include <boost/asio/ip/address.hpp>

namespace llmux::net {

CachingResolver::CachingResolver(asio::io_context& io, std::chrono::seconds ttl)
    : resolver_(io), ttl_(ttl) {}

Task<Result<std::vector<tcp::endpoint>>> CachingResolver::resolve(std::string const& host,
                                                                   std::uint16_t port) {
  ErrorCode parse_ec;
  auto literal = asio::ip::make_address(host, parse_ec);
  if (!parse_ec) co_return std::vector<tcp::endpoint>{tcp::endpoint(literal, port)};

  std::string cache_key = host + ":" + std::to_string(port);
  auto now = std::chrono::steady_clock::now();  // cache expiry only; no behaviour under test
  if (auto it = cache_.find(cache_key); it != cache_.end() && it->second.expires > now) {
    co_return it->second.endpoints;
  }
  auto [ec, results] = co_await resolver_.async_resolve(host, std::to_string(port), kUseTuple);
  if (ec) {
    co_return makeError(ErrorKind::Connect, "cannot resolve upstream host " + host + ": " + ec.message());
  }
  std::vector<tcp::endpoint> endpoints;
  for (auto const& r : results) endpoints.push_back(r.endpoint());
  cache_[cache_key] = Entry{endpoints, now + ttl_};
  co_return endpoints;
}

}  // namespace llmux::net
