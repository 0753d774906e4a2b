#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace llmux::test_support {

/// A private PostgreSQL for one test run: `initdb` into a fresh temporary directory, then
/// `pg_ctl start` on a free loopback port (trust authentication, user `llmux`, fsync off). As
/// root it runs as the `postgres` user (`runuser`; PostgreSQL refuses root), which owns the
/// directory. Stopped (and its directory removed) on destruction. The binaries come from
/// /usr/lib/postgresql/<version>/bin, else PATH (Debian's postgresql package; scripts/bootstrap
/// installs it). Shared by the store's unit tests and the end-to-end request log scenario.
class PostgresServer {
 public:
  /// Starts one; on failure returns nullptr and says why in `error` (no binaries, initdb or the
  /// server failing, with their output). Tests fail on it: they never skip.
  static std::unique_ptr<PostgresServer> start(std::string& error);
  ~PostgresServer();
  PostgresServer(PostgresServer const&) = delete;
  PostgresServer& operator=(PostgresServer const&) = delete;

  std::uint16_t port() const { return port_; }
  /// postgres://llmux@127.0.0.1:<port>/<database>
  std::string url(std::string const& database) const;

  /// CREATE DATABASE `name`; false with `error` on failure.
  bool createDatabase(std::string const& name, std::string& error);

  /// `pg_ctl stop -m fast`: clients are disconnected and the port closes (the server goes away).
  bool stop(std::string& error);
  /// Starts the stopped server again on the same port, with its data.
  bool restart(std::string& error);

  /// SIGSTOP to the server and every process of it (the backends of open connections): a server
  /// that keeps its connections and never answers. `resume` sends SIGCONT to the same processes.
  bool pause(std::string& error);
  void resume();

 private:
  PostgresServer() = default;
  bool startServer(std::string& error);
  /// Runs `command` (a pg binary and its arguments) as the server's user; its output in `output`.
  bool runAsOwner(std::string const& command, std::string& output);

  std::filesystem::path bin_;
  std::filesystem::path dir_;
  bool as_postgres_ = false;
  bool running_ = false;
  std::vector<int> paused_;  ///< the pids `pause` stopped
  std::uint16_t port_ = 0;
};

/// The rows `sql` returns from the database at `url` (libpq), each a list of column texts with
/// NULL as nullopt; nullopt with `error` when it fails. For tests that look at what was written.
std::optional<std::vector<std::vector<std::optional<std::string>>>> postgresQuery(
    std::string const& url, std::string const& sql, std::string& error);

/// The same rows as "a|b|c" lines (NULL as "\N"): what scenarios compare whole.
std::optional<std::vector<std::string>> postgresLines(std::string const& url,
                                                      std::string const& sql, std::string& error);

}  // namespace llmux::test_support
