#include "net/resolver.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>

#include <boost/asio/ip/address.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/this_coro.hpp>

namespace llmux::net {

using Endpoints = std::vector<tcp::endpoint>;

Result<Endpoints> systemLookup(std::string const& host, std::uint16_t port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_ADDRCONFIG | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  std::string service = std::to_string(port);
  int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found);
  if (rc != 0) {
    std::string why = rc == EAI_SYSTEM ? std::strerror(errno) : ::gai_strerror(rc);
    return makeError(ErrorKind::Connect, "cannot resolve upstream host " + host + ": " + why);
  }
  Endpoints endpoints;
  for (addrinfo* ai = found; ai; ai = ai->ai_next) {
    if (ai->ai_addrlen > sizeof(sockaddr_storage)) continue;
    tcp::endpoint endpoint;
    std::memcpy(endpoint.data(), ai->ai_addr, ai->ai_addrlen);
    endpoint.resize(ai->ai_addrlen);
    endpoints.push_back(endpoint);
  }
  ::freeaddrinfo(found);
  if (endpoints.empty()) {
    return makeError(ErrorKind::Connect, "cannot resolve upstream host " + host + ": no address");
  }
  return endpoints;
}

/// One caller waiting for a lookup, woken on its own io_context.
struct CachingResolver::Waiter {
  explicit Waiter(Executor executor) : wake(executor, MonoTime::max()) {}
  Timer wake;
  std::optional<Result<Endpoints>> answer;  ///< set on the waiter's thread, before `wake` fires
};

/// What the resolver shares with its lookup threads and with the waits in progress: both may
/// outlive the resolver object.
struct CachingResolver::Core {
  struct Entry {
    Endpoints endpoints;
    MonoTime expires;
  };
  /// A lookup queued or running, and who waits for it.
  struct Flight {
    std::string host;
    std::uint16_t port = 0;
    std::vector<std::shared_ptr<Waiter>> waiters;
  };

  HostLookup lookup;
  std::chrono::seconds ttl;

  std::mutex mutex;  // guards everything below
  std::unordered_map<std::string, Entry> cache;
  std::unordered_map<std::string, Flight> flights;
  std::deque<std::string> queue;  ///< flights no thread has taken yet
  std::size_t threads = 0;        ///< lookup threads running
  bool closed = false;            ///< the resolver is gone: answers are cached, not delivered

  /// Runs queued lookups until none is left. Answers are posted to each waiter's io_context
  /// under the lock, so a waiter that gave up (and left the flight under the same lock) never
  /// gets one after its io_context may have gone.
  static void lookupLoop(std::shared_ptr<Core> core) {
    std::unique_lock lock(core->mutex);
    while (!core->queue.empty()) {
      std::string key = std::move(core->queue.front());
      core->queue.pop_front();
      std::string host = core->flights[key].host;
      std::uint16_t port = core->flights[key].port;
      lock.unlock();
      Result<Endpoints> answer = runLookup(*core, host, port);
      lock.lock();
      if (answer) core->cache[key] = Entry{*answer, MonoClock::now() + core->ttl};
      auto flight = core->flights.extract(key);
      if (core->closed || flight.empty()) continue;
      for (auto& waiter : flight.mapped().waiters) {
        boost::asio::post(waiter->wake.get_executor(), [waiter, answer] {
          waiter->answer = answer;
          waiter->wake.cancel();
        });
      }
    }
    --core->threads;
  }

  static Result<Endpoints> runLookup(Core& core, std::string const& host, std::uint16_t port) {
    try {
      return core.lookup(host, port);
    } catch (std::exception const& e) {
      return makeError(ErrorKind::Internal, "DNS lookup of " + host + " failed: " + e.what());
    }
  }

  /// Joins the flight of `key` (starting it when there is none). Called with the lock held.
  Result<void> join(std::string const& key, std::string const& host, std::uint16_t port,
                    std::shared_ptr<Waiter> const& waiter, std::shared_ptr<Core> const& self) {
    auto [it, started] = flights.try_emplace(key);
    it->second.waiters.push_back(waiter);
    if (!started) return {};
    it->second.host = host;
    it->second.port = port;
    queue.push_back(key);
    if (threads >= kMaxLookupThreads) return {};  // a running thread takes it next
    try {
      std::thread(lookupLoop, self).detach();  // getaddrinfo cannot be interrupted: never joined
      ++threads;
    } catch (std::system_error const& e) {
      queue.pop_back();
      flights.erase(it);
      return makeError(ErrorKind::Internal,
                       "cannot start a DNS lookup of " + host + ": " + e.what());
    }
    return {};
  }

  void leave(std::string const& key, std::shared_ptr<Waiter> const& waiter) {
    std::lock_guard lock(mutex);
    auto it = flights.find(key);
    if (it != flights.end()) std::erase(it->second.waiters, waiter);
  }
};

CachingResolver::CachingResolver(HostLookup lookup, std::chrono::seconds ttl)
    : core_(std::make_shared<Core>()) {
  core_->lookup = std::move(lookup);
  core_->ttl = ttl;
}

CachingResolver::~CachingResolver() {
  std::lock_guard lock(core_->mutex);
  core_->closed = true;
  for (auto& [key, flight] : core_->flights) flight.waiters.clear();
}

Task<Result<Endpoints>> CachingResolver::resolve(std::string host, std::uint16_t port,
                                                 MonoTime deadline, std::stop_token stop) {
  ErrorCode parse_ec;
  auto literal = boost::asio::ip::make_address(host, parse_ec);
  if (!parse_ec) co_return Endpoints{tcp::endpoint(literal, port)};

  std::shared_ptr<Core> core = core_;  // the frame may outlive the resolver at shutdown
  std::string key = host + ":" + std::to_string(port);
  auto waiter = std::make_shared<Waiter>(co_await boost::asio::this_coro::executor);
  {
    std::lock_guard lock(core->mutex);
    if (auto it = core->cache.find(key); it != core->cache.end()) {
      if (it->second.expires > MonoClock::now()) co_return it->second.endpoints;
      core->cache.erase(it);
    }
    if (core->closed) co_return makeError(ErrorKind::Cancelled, "the resolver is shut down");
    if (auto joined = core->join(key, host, port, waiter, core); !joined) {
      co_return joined.error();
    }
  }
  // Out of the flight when the wait ends, however it ends (an answer, the deadline, a stop, or
  // the frame destroyed with its io_context at shutdown): nothing is posted to a gone waiter.
  struct LeaveFlight {
    std::shared_ptr<Core> core;
    std::string key;
    std::shared_ptr<Waiter> waiter;
    ~LeaveFlight() { core->leave(key, waiter); }
  } leave{core, key, waiter};

  bool stopped = false;
  std::stop_callback on_stop(stop, [&stopped, &waiter] {
    stopped = true;
    waiter->wake.cancel();
  });
  if (!stopped) {
    waiter->wake.expires_at(deadline);
    co_await waiter->wake.async_wait(kUseTuple);
  }
  // An answer that arrived together with the deadline or the stop is still taken.
  if (waiter->answer) co_return std::move(*waiter->answer);
  if (stopped) co_return makeError(ErrorKind::Cancelled, "DNS lookup of " + host + " cancelled");
  co_return makeError(ErrorKind::Timeout, "DNS lookup of " + host + " timed out");
}

}  // namespace llmux::net
