#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmux::test_support {

/// A private clickhouse-server (Debian's 18.16) for a test binary: free loopback HTTP and native
/// ports, a fresh temporary directory holding its config, data and log, a small mark cache.
/// Stopped (and its directory removed) on destruction. Start one per binary and share it: it
/// takes about a second.
class ClickHouseServer {
 public:
  /// Starts one and waits for `GET /ping`; nullptr with the reason in `error` otherwise.
  static std::unique_ptr<ClickHouseServer> start(std::string& error);
  ~ClickHouseServer();

  std::uint16_t httpPort() const { return http_port_; }
  std::uint16_t tcpPort() const { return tcp_port_; }

  /// Runs `sql` with clickhouse-client; the rows of its answer as tab-separated lines. nullopt
  /// (the reason in `error`) when the client fails.
  std::optional<std::vector<std::string>> query(std::string const& sql, std::string& error) const;

 private:
  ClickHouseServer() = default;

  pid_t pid_ = -1;
  std::uint16_t http_port_ = 0;
  std::uint16_t tcp_port_ = 0;
  std::filesystem::path dir_;
};

}  // namespace llmux::test_support
