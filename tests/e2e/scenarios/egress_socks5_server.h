#pragma once

// A small SOCKS5 server (RFC 1928, user name and password per RFC 1929) for the egress
// scenarios: Dante, the real SOCKS5 server the tests also run, checks user names against the
// system's accounts, which a test must not create. This one records what each client asked for
// (the target as sent: a name or an address) and relays bytes both ways.
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "e2e/support/socket_io.h"

namespace llmux::e2e {

class Socks5Server {
 public:
  /// Requires user name `username` and password `password`; binds 127.0.0.1 on a free port.
  Socks5Server(std::string username, std::string password);
  ~Socks5Server();
  Socks5Server(Socks5Server const&) = delete;
  Socks5Server& operator=(Socks5Server const&) = delete;

  std::uint16_t port() const { return port_; }
  /// Each connect request as "name:host:port" (address type 3) or "ip:address:port".
  std::vector<std::string> targets() const;
  /// Logins refused for a wrong user name or password.
  int refusedLogins() const { return refused_logins_.load(); }

 private:
  void acceptLoop();
  void serve(UniqueFd client);

  std::string username_;
  std::string password_;
  UniqueFd listener_;
  std::uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> refused_logins_{0};
  std::thread acceptor_;
  mutable std::mutex mutex_;
  std::vector<std::thread> threads_;
  std::vector<std::string> targets_;
};

}  // namespace llmux::e2e
