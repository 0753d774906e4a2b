#pragma once

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace llmux::test_support {

/// A private redis-server for one test: a free loopback port, a fresh temporary directory, no
/// persistence (`--save "" --appendonly no`). Killed (and its directory removed) on destruction.
/// Shared by the unit tests of shared_state/ and the end-to-end scenarios of the shared limits.
class RedisServer {
 public:
  /// Starts one; on failure returns nullptr and says why in `error` (redis-server missing from
  /// PATH, not ready in time). `extra` is appended to the command line.
  static std::unique_ptr<RedisServer> start(std::vector<std::string> const& extra, std::string& error);
  ~RedisServer();

  std::uint16_t port() const { return port_; }
  pid_t pid() const { return pid_; }
  /// SIGSTOP / SIGCONT: a server that accepts connections and never answers, then answers again.
  void pause();
  void resume();

 private:
  RedisServer() = default;

  pid_t pid_ = -1;
  int log_fd_ = -1;  ///< the read end of the server's stdout (kept open so its logging never fails)
  std::uint16_t port_ = 0;
  std::filesystem::path dir_;
};

/// A loopback port nothing listens on right now.
std::uint16_t freeLoopbackPort();

/// The path of the executable `program` in a directory of PATH, or "".
std::string findOnPath(std::string_view program);

}  // namespace llmux::test_support
